"""The pyspiel side of the puzzles: one-player games over a `Puzzle`'s rules.

A puzzle module defines its rules once, as a `Puzzle` (move tables and
scalar functions over one state, a 1-D int8 numpy array), and builds both its
batched JAX engine and its pyspiel game from them. This module is the pyspiel
game every puzzle shares:

- one player, deterministic, perfect information; reward −1 per move, the
  return is minus the number of moves; terminal at the goal, after
  `max_length` moves, or where no move is legal;
- parameters `scramble_moves` and `seed` (the initial state is the goal
  scrambled by that many seeded random moves; Sokoban has a level number
  instead) or `state` (a state string in the puzzle's notation), and
  `max_length`;
- the observation tensor is the puzzle's encoding (DeepCubeA's one-hot), the
  observation string its notation; the information-state string is the
  history of moves from the initial state.

It also holds the contract every puzzle's batched engine meets, as code
(`BatchedPuzzle`, `check_puzzle`; `tests/games/puzzles/puzzle_conformance_test.py`
checks each engine against it and against its pyspiel game), and two helpers
the engines share: picking each board's child by action, and random walks of
legal moves (scrambles, reverse play).
"""

from typing import Any, Callable, Optional, Protocol

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.games import registry
from open_spiel_ext.games import validation
import pyspiel


class Puzzle:
  """The rules of one puzzle instance; subclasses fill in the tables.

  Attributes:
    name: the game's short name, for error messages.
    num_actions: distinct moves.
    goal: the solved state.
    tensor_shape: the shape of `encode`'s output.
  """
  name: str
  num_actions: int
  goal: np.ndarray
  tensor_shape: tuple[int, ...]

  def next_state(self, state: np.ndarray, action: int) -> np.ndarray:
    raise NotImplementedError

  def legal_actions(self, state: np.ndarray) -> list[int]:
    del state  # Most puzzles allow every move everywhere.
    return list(range(self.num_actions))

  def is_goal(self, state: np.ndarray) -> bool:
    return bool(np.array_equal(state, self.goal))

  def action_name(self, action: int) -> str:
    raise NotImplementedError

  def encode(self, state: np.ndarray) -> np.ndarray:
    raise NotImplementedError

  def to_string(self, state: np.ndarray) -> str:
    raise NotImplementedError

  def parse(self, text: str) -> np.ndarray:
    """The state a string denotes; ValueError naming what is wrong."""
    raise NotImplementedError

  def scramble(self, moves: int, seed: int) -> np.ndarray:
    """The goal after `moves` uniformly random legal moves."""
    rng = np.random.RandomState(seed)
    state = self.goal.copy()
    for _ in range(moves):
      legal = self.legal_actions(state)
      state = self.next_state(state, legal[rng.randint(len(legal))])
    return state


def puzzle_game_type(short_name: str,
                     long_name: str,
                     extra_parameters: dict[str, Any],
                     max_length: int,
                     scrambled: bool = True) -> pyspiel.GameType:
  """The GameType of a puzzle with its own parameters and the shared ones.

  A `scrambled` puzzle starts `scramble_moves` seeded random moves from its
  goal unless `state` is given; others choose their start in their own
  parameters (`PuzzleGame.default_initial`).
  """
  scramble = {"scramble_moves": 20, "seed": 0} if scrambled else {}
  return pyspiel.GameType(
      short_name=short_name,
      long_name=long_name,
      dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
      chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
      information=pyspiel.GameType.Information.PERFECT_INFORMATION,
      utility=pyspiel.GameType.Utility.GENERAL_SUM,
      reward_model=pyspiel.GameType.RewardModel.REWARDS,
      max_num_players=1,
      min_num_players=1,
      provides_information_state_string=True,
      provides_information_state_tensor=False,
      provides_observation_string=True,
      provides_observation_tensor=True,
      provides_factored_observation_string=False,
      parameter_specification={
          **extra_parameters, **scramble, "state": "",
          "max_length": max_length
      })


class PuzzleGame(pyspiel.Game):
  """A puzzle as a pyspiel game; subclasses set GAME_TYPE and `make_puzzle`."""

  GAME_TYPE: pyspiel.GameType = None

  def make_puzzle(self, params: dict[str, Any]) -> Puzzle:
    raise NotImplementedError

  def __init__(self, params: Optional[dict[str, Any]] = None):
    params = validation.with_defaults(self.GAME_TYPE, params)
    name = self.GAME_TYPE.short_name
    self.puzzle = self.make_puzzle(params)
    self.max_length = params["max_length"]
    validation.require_at_least(name, "max_length", self.max_length, 1)
    self.initial = (self.puzzle.parse(params["state"])
                    if params["state"] else self.default_initial(params))
    super().__init__(
        self.GAME_TYPE,
        pyspiel.GameInfo(
            num_distinct_actions=self.puzzle.num_actions,
            max_chance_outcomes=0,
            num_players=1,
            min_utility=-float(self.max_length),
            max_utility=0.0,
            utility_sum=None,
            max_game_length=self.max_length),
        params)

  def default_initial(self, params: dict[str, Any]) -> np.ndarray:
    """The initial state when no `state` is given: a seeded scramble."""
    name = self.GAME_TYPE.short_name
    validation.require_at_least(name, "scramble_moves",
                                params["scramble_moves"], 0)
    validation.require_at_least(name, "seed", params["seed"], 0)
    return self.puzzle.scramble(params["scramble_moves"], params["seed"])

  def new_initial_state(self) -> "PuzzleState":
    return PuzzleState(self)

  def make_py_observer(
      self,
      iig_obs_type: Optional[pyspiel.IIGObservationType] = None,
      params: Optional[dict[str, Any]] = None) -> "PuzzleObserver":
    if params:
      raise ValueError(f"Observation parameters not supported; got {params}")
    return PuzzleObserver(self.puzzle, iig_obs_type)


class PuzzleState(pyspiel.State):
  """A puzzle position and the number of moves made."""

  def __init__(self, game: PuzzleGame):
    super().__init__(game)
    self._puzzle = game.puzzle
    self._max_length = game.max_length
    self.cells = game.initial.copy()
    self.moves = 0
    self._update()

  def _update(self) -> None:
    self._solved = self._puzzle.is_goal(self.cells)
    self._legal = [] if self._solved else self._puzzle.legal_actions(
        self.cells)

  def current_player(self) -> int:
    return pyspiel.PlayerId.TERMINAL if self.is_terminal() else 0

  def is_terminal(self) -> bool:
    """Solved, out of moves, or stuck (a Sokoban player walled in)."""
    return self._solved or self.moves >= self._max_length or not self._legal

  def is_solved(self) -> bool:
    return self._solved

  def _legal_actions(self, player: int) -> list[int]:
    del player
    return [] if self.is_terminal() else list(self._legal)

  def _apply_action(self, action: int) -> None:
    validation.require_legal_action(self, action)
    self.cells = self._puzzle.next_state(self.cells, action)
    self.moves += 1
    self._update()

  def _action_to_string(self, player: int, action: int) -> str:
    del player
    return self._puzzle.action_name(action)

  def rewards(self) -> list[float]:
    return [-1.0 if self.moves else 0.0]

  def returns(self) -> list[float]:
    return [-float(self.moves)]

  def __str__(self) -> str:
    return self._puzzle.to_string(self.cells)


class PuzzleObserver:
  """The puzzle's encoding and notation; information states add history."""

  def __init__(self, puzzle: Puzzle,
               iig_obs_type: Optional[pyspiel.IIGObservationType]):
    self._puzzle = puzzle
    self._perfect_recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
    self.tensor = np.zeros(int(np.prod(puzzle.tensor_shape)), np.float32)
    self.dict = {"observation": self.tensor.reshape(puzzle.tensor_shape)}

  def set_from(self, state: PuzzleState, player: int) -> None:
    del player
    self.tensor[:] = self._puzzle.encode(state.cells).ravel()

  def string_from(self, state: PuzzleState, player: int) -> str:
    del player
    if self._perfect_recall:
      return " ".join(self._puzzle.action_name(a) for a in state.history())
    return self._puzzle.to_string(state.cells)


class BatchedPuzzle(Protocol):
  """What every puzzle's batched engine offers: jitted functions over a batch
  of states [B, D] (int8 rows, `PuzzleState.cells`). Engines subclass it (to
  inherit `legal_mask`); `check_puzzle` checks that an object has every
  member.

  Attributes:
    num_actions: A, the moves.
    goal: [D] the solved state, or None where every instance has its own
      (Sokoban's levels).
    next_states: [B, D] -> [B, A, D] each state's child by each move; an
      illegal move leaves the state as it is.
    prev_states: [B, D] -> [B, R, D] the states one reverse move before (the
      reverse transition model that scrambles walk from a goal); a reverse
      move that cannot be made leaves the state as it is.
    step: ([B, D], actions [B]) -> [B, D] each state's child by its action.
    is_goal: [B, D] -> [B] bool whether each state is solved.
    encode: [B, D] -> [B, *tensor_shape] float32 the networks' input, the
      pyspiel game's observation tensor.
  """
  num_actions: int
  goal: Optional[jax.Array]
  next_states: Callable[[jax.Array], jax.Array]
  prev_states: Callable[[jax.Array], jax.Array]
  step: Callable[[jax.Array, jax.Array], jax.Array]
  is_goal: Callable[[jax.Array], jax.Array]
  encode: Callable[[jax.Array], jax.Array]

  def legal_mask(self, states: jax.Array) -> jax.Array:
    """[B, D] -> [B, A] bool which moves are legal: every one, unless the
    engine says otherwise."""
    return jnp.ones((states.shape[0], self.num_actions), bool)


def check_puzzle(engine: Any) -> None:
  """Raises TypeError naming the members of `BatchedPuzzle` that `engine`
  lacks."""
  members = list(BatchedPuzzle.__annotations__) + ["legal_mask"]
  missing = [name for name in members if not hasattr(engine, name)]
  if missing:
    raise TypeError(f"{type(engine).__name__} is not a batched puzzle: it "
                    f"lacks {', '.join(missing)}")


def chosen_children(children: jax.Array, actions: jax.Array) -> jax.Array:
  """[B, A, ...] children, [B] actions -> [B, ...] the chosen child of each."""
  return jnp.take_along_axis(children, actions[:, None, None], axis=1)[:, 0]


def random_walk(key: jax.Array, start: jax.Array, steps: int,
                expand: Callable[[jax.Array], tuple[jax.Array, jax.Array]],
                depths: Optional[jax.Array] = None) -> jax.Array:
  """`steps` uniformly random legal moves of `expand` (children, legality).

  With `depths` [B], state b stops moving after depths[b] moves.
  """

  def move(i, states):
    children, legal = expand(states)
    noise = jax.random.uniform(jax.random.fold_in(key, i), legal.shape)
    chosen = chosen_children(children,
                             jnp.argmax(jnp.where(legal, noise, -1.0), axis=1))
    if depths is None:
      return chosen
    return jnp.where((i < depths)[:, None], chosen, states)

  return jax.lax.fori_loop(0, steps, move, start)


# Short name -> the batched engine of the puzzle at a size, for puzzles with
# one goal state and a `size` parameter (those DeepCubeA's methods train on).
_SIZED_ENGINES: dict[str, Callable[[int], BatchedPuzzle]] = {}


def register(game_class: type) -> None:
  registry.register(game_class.GAME_TYPE, game_class)


def register_sized_engine(short_name: str,
                          engine: Callable[[int], BatchedPuzzle]) -> None:
  """Records a registered puzzle's batched engine by size, `engine(size)`."""
  _SIZED_ENGINES[short_name] = engine


def sized_puzzles() -> tuple[str, ...]:
  """The short names of the puzzles with a batched engine by size."""
  return tuple(sorted(_SIZED_ENGINES))


def _check_sized(name: str) -> None:
  if name not in _SIZED_ENGINES:
    raise ValueError(f"puzzle must be one of {sized_puzzles()}, got "
                     f"puzzle={name!r}")


def rules(name: str, size: int) -> Puzzle:
  """The rules of a puzzle of `sized_puzzles()` at a size; ValueError naming
  a puzzle without a batched engine or a size its game refuses."""
  _check_sized(name)
  return pyspiel.load_game(name, {"size": size, "scramble_moves": 0}).puzzle


def sized_engine(name: str, size: int) -> BatchedPuzzle:
  """The batched engine of a puzzle of `sized_puzzles()` at a size;
  ValueError as `rules`."""
  rules(name, size)  # The game checks the size.
  return _SIZED_ENGINES[name](size)
