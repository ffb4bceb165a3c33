"""The batched-environment contract that every learner trains on, as code
(`BatchedEnv`, `check_env`, `check_state`), and its fallback for any pyspiel
game (`PyspielVectorEnv`).

A batched environment plays B games of one game at once, in the style of PGX:
a state pytree whose contract fields (`State`) have a leading batch axis, and
pure `init`/`step` functions (`BatchedEnv` says what each member is). The
engines are `games/batched_poker.py` (Kuhn, Leduc, m-Clone Leduc),
`games/batched_loss_game.py`, `games/stratego/env.py`,
`games/hanabi/engine.py` and `PyspielVectorEnv` below;
`tests/games/batched_conformance_test.py` checks every one of them against the
contract and, move by move, against its pyspiel game.

JAX engines are pure: `init` and `step` are jittable and chance is drawn from
keys carried in the state. `PyspielVectorEnv` gives any pyspiel game the same
interface at C++ speed (or the speed of the Python game); it steps real
pyspiel states, so its `step` changes the states it was given and is not
jittable.
"""

from typing import Any, Callable, NamedTuple, Optional, Protocol, Union

import jax
import numpy as np

from open_spiel_ext.utils import memory
import pyspiel

GAME_OVER = -1  # `current_player` of a finished game.


class State(Protocol):
  """The contract's fields of a batch of B games; an engine's state may have
  more."""
  current_player: Any  # [B] int32: the player to move; GAME_OVER once over.
  # [B, players, *observation_shape] float32: each player's view of the game,
  # its information-state tensor unless the engine says otherwise.
  observation: Any
  # [B, actions] bool: the legal actions of the player to move (none once
  # the game is over).
  legal_action_mask: Any
  # [B, players] float32: what each player received on the last step (the
  # returns, for games that pay at the end).
  rewards: Any
  terminated: Any  # [B] bool: whether the game is over.


CONTRACT_FIELDS = tuple(State.__annotations__)
_DTYPES = {"current_player": np.int32, "observation": np.float32,
           "legal_action_mask": np.bool_, "rewards": np.float32,
           "terminated": np.bool_}


class BatchedEnv(Protocol):
  """What every batched engine offers, whatever its number of players.

  Engines subclass it (to inherit `checked_step`); `check_env` checks that an
  object has every member.

  Attributes:
    game: the pyspiel game it plays, the rules reference.
    name: names the game in error messages.
    num_players: players of the game.
    num_actions: the width of `legal_action_mask`.
    observation_shape: each player's observation, per game.
    auto_reset: whether a finished game restarts (see `step`).
    init: keys [B, 2] (raw or typed) -> state: B fresh games past their
      opening chance nodes, chance drawn from the keys.
    step: (state, actions [B] int32) -> state: the player to move in each
      game takes its action, then chance moves until a player is to move or
      the game ends. A finished game stays as it is (rewards 0) whatever
      action it is given, unless `auto_reset`: then the step that ends a game
      returns its `rewards` and `terminated=True` together with the
      observation, legal mask and player of a fresh game, which the next step
      continues (so with auto-reset `terminated` marks the end of a
      transition, and every row takes a legal action of the game it shows).
      `step` does not check its actions: learners sample from the mask.
  """
  game: pyspiel.Game
  name: str
  num_players: int
  num_actions: int
  observation_shape: tuple[int, ...]
  auto_reset: bool
  init: Callable[[jax.Array], State]
  step: Callable[[State, Any], State]

  def checked_step(self, state: State, actions: Any) -> State:
    """`step`, after checking on the host that every action is legal
    (finished games take any action unless `auto_reset`).

    Raises:
      ValueError: naming the game, the first illegal action, its game and
        the legal actions there.
    """
    finished = np.asarray(state.terminated) & (not self.auto_reset)
    check_actions(self.name, np.asarray(state.legal_action_mask), finished,
                  np.asarray(actions))
    return self.step(state, actions)


def games_bytes(env: BatchedEnv, batch: int) -> int:
  """A lower bound of the bytes of playing `batch` games of a JAX engine at
  once: their state from `init`, as `jax.eval_shape` sizes it without
  allocating."""
  return memory.tree_bytes(jax.eval_shape(
      lambda key: env.init(jax.random.split(key, batch)),
      jax.random.PRNGKey(0)))


def check_env(env: Any) -> None:
  """Raises TypeError naming the members of `BatchedEnv` that `env` lacks."""
  members = list(BatchedEnv.__annotations__) + ["checked_step"]
  missing = [name for name in members if not hasattr(env, name)]
  if missing:
    raise TypeError(f"{type(env).__name__} is not a batched environment: it "
                    f"lacks {', '.join(missing)}")
  not_callable = [name for name in ("init", "step", "checked_step")
                  if not callable(getattr(env, name))]
  if not_callable:
    raise TypeError(f"{type(env).__name__}: {', '.join(not_callable)} must "
                    f"be callable")


def check_state(env: BatchedEnv, state: State) -> None:
  """Raises ValueError naming the first contract field of `state` whose
  shape or dtype is not the contract's for `env`."""
  batch = np.shape(state.terminated)[:1]
  shapes = {
      "current_player": batch,
      "observation": batch + (env.num_players,) + tuple(
          env.observation_shape),
      "legal_action_mask": batch + (env.num_actions,),
      "rewards": batch + (env.num_players,),
      "terminated": batch,
  }
  for field in CONTRACT_FIELDS:
    value = getattr(state, field)
    shape, dtype = tuple(np.shape(value)), np.asarray(value).dtype
    if shape != shapes[field] or dtype != _DTYPES[field]:
      raise ValueError(
          f"{env.name}: {field} has shape {shape} and dtype {dtype}; the "
          f"contract says {shapes[field]} and "
          f"{np.dtype(_DTYPES[field])}")


def check_actions(game_name: str, legal_action_mask: np.ndarray,
                  terminated: np.ndarray, actions: np.ndarray) -> None:
  """Raises ValueError naming the first action that is not legal in its game
  (finished games take any action)."""
  actions = np.asarray(actions)
  batch = len(legal_action_mask)
  if actions.shape != (batch,):
    raise ValueError(f"{game_name}: actions must have shape ({batch},), got "
                     f"{actions.shape}")
  width = legal_action_mask.shape[1]
  in_range = (actions >= 0) & (actions < width)
  legal = np.zeros(batch, bool)
  legal[in_range] = legal_action_mask[np.flatnonzero(in_range),
                                      actions[in_range]]
  bad = np.flatnonzero(~legal & ~terminated)
  if bad.size:
    index = bad[0]
    raise ValueError(
        f"{game_name}: action {actions[index]} is not legal in game {index}; "
        f"legal actions are {np.flatnonzero(legal_action_mask[index]).tolist()}")


class PyspielBatch(NamedTuple):
  """The contract's fields for `PyspielVectorEnv`, plus its pyspiel states."""
  current_player: np.ndarray
  observation: np.ndarray
  legal_action_mask: np.ndarray
  rewards: np.ndarray
  terminated: np.ndarray
  states: list[pyspiel.State]
  rngs: list[np.random.Generator]  # Each game's chance.


class PyspielVectorEnv(BatchedEnv):
  """B pyspiel states of any sequential game, stepped in lockstep.

  Chance outcomes are sampled from each game's own generator, seeded from
  its key; observations are `information_state_tensor`.
  """

  def __init__(self, game: Union[str, pyspiel.Game], auto_reset: bool = False):
    self.game = pyspiel.load_game(game) if isinstance(game, str) else game
    game_type = self.game.get_type()
    name = game_type.short_name
    if not game_type.provides_information_state_tensor:
      raise ValueError(f"PyspielVectorEnv needs information-state tensors, "
                       f"which game {self.game} does not provide")
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
      raise ValueError(
          f"PyspielVectorEnv needs a sequential game; {self.game} has "
          f"dynamics={game_type.dynamics} (load it through "
          f"turn_based_simultaneous_game)")
    self.name = name
    self.auto_reset = auto_reset
    self.num_players = self.game.num_players()
    self.num_actions = self.game.num_distinct_actions()
    self.observation_shape = tuple(self.game.information_state_tensor_shape())

  def init(self, keys: jax.Array) -> PyspielBatch:
    """Fresh games past their opening chance nodes, one per key."""
    seeds = np.asarray(jax.random.key_data(keys) if jax.dtypes.issubdtype(
        keys.dtype, jax.dtypes.prng_key) else keys, np.uint32)
    rngs = [np.random.default_rng(list(seed.ravel())) for seed in seeds]
    states = [self._new_game(rng) for rng in rngs]
    batch = len(states)
    return self._observe(PyspielBatch(
        current_player=np.zeros(batch, np.int32),
        observation=np.zeros((batch, self.num_players) + self.observation_shape,
                             np.float32),
        legal_action_mask=np.zeros((batch, self.num_actions), bool),
        rewards=np.zeros((batch, self.num_players), np.float32),
        terminated=np.zeros(batch, bool), states=states, rngs=rngs),
                         range(batch))

  def _new_game(self, rng: np.random.Generator) -> pyspiel.State:
    state = self.game.new_initial_state()
    self._play_chance(state, rng)
    return state

  def _play_chance(self, state: pyspiel.State,
                   rng: np.random.Generator) -> None:
    """Samples chance outcomes until a player moves or the game ends."""
    while state.is_chance_node():
      actions, probabilities = zip(*state.chance_outcomes())
      state.apply_action(int(rng.choice(actions, p=probabilities)))

  def step(self, batch: PyspielBatch, actions: Any,
           games: Optional[np.ndarray] = None) -> PyspielBatch:
    """Plays one action in every unfinished game (see `BatchedEnv`);
    with `games` ([B] bool), only in those games (the others' actions are
    ignored and their rewards are 0).

    Raises:
      ValueError: an action that is not legal in its game.
    """
    live = (np.ones(len(batch.states), bool) if self.auto_reset else
            ~batch.terminated)
    if games is not None:
      live = live & np.asarray(games, bool)
    check_actions(self.name, batch.legal_action_mask, ~live, actions)
    rewards = np.zeros_like(batch.rewards)
    playing = np.flatnonzero(live)
    for index in playing:
      state = batch.states[index]
      before = np.asarray(state.returns(), np.float32)
      state.apply_action(int(actions[index]))
      self._play_chance(state, batch.rngs[index])
      rewards[index] = np.asarray(state.returns(), np.float32) - before
    terminated = np.array([state.is_terminal() for state in batch.states])
    if self.auto_reset:
      for index in np.flatnonzero(terminated):
        batch.states[index] = self._new_game(batch.rngs[index])
    return self._observe(batch._replace(rewards=rewards,
                                        terminated=terminated), playing)

  def checked_step(self, batch: PyspielBatch, actions: Any) -> PyspielBatch:
    """`step`, which checks its actions already."""
    return self.step(batch, actions)

  def _observe(self, batch: PyspielBatch, indices) -> PyspielBatch:
    """Fills the contract's fields of the games in `indices` from their
    pyspiel states (a finished game shows its final information states)."""
    for index in indices:
      state = batch.states[index]
      over = state.is_terminal()
      batch.current_player[index] = GAME_OVER if over else (
          state.current_player())
      for player in range(self.num_players):
        batch.observation[index, player] = np.reshape(
            state.information_state_tensor(player), self.observation_shape)
      batch.legal_action_mask[index] = False
      if not over:
        batch.legal_action_mask[index, state.legal_actions()] = True
    return batch
