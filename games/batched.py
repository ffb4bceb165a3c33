"""The batched-environment contract that every learner trains on, and its
fallback for any pyspiel game.

A batched environment plays B games of one game at once. Its state is a
pytree whose leaves have a leading batch axis and which has at least these
fields (in the style of PGX):

  current_player     [B] int32: the player to move; -1 once the game is over.
  observation        [B, players, *shape] float32: each player's
                     information-state tensor, OpenSpiel's
                     `information_state_tensor(player)` of the same state.
  legal_action_mask  [B, actions] bool: the legal actions of the player to
                     move (none once the game is over).
  rewards            [B, players] float32: what each player received on the
                     last step (the returns, for games that pay at the end).
  terminated         [B] bool: whether the game is over.

and the environment has:

  num_players, num_actions, observation_shape, game (the pyspiel game it
  plays, the rules reference);
  init(keys [B, 2]) -> state: B fresh games past their opening chance nodes;
  step(state, actions [B] int32) -> state: the player to move in each game
    takes its action, then chance moves until a player is to move or the
    game ends. A finished game stays as it is (rewards 0) unless the
    environment was made with `auto_reset=True`: then the step that ends a
    game returns its `rewards` and `terminated=True` together with the
    observation, legal mask and player of a fresh game, which the next step
    continues (so with auto-reset `terminated` marks the end of a
    transition, and every row takes a legal action of the game it shows);
  checked_step(state, actions): `step`, after checking on the host that
    every action is legal (ValueError naming the game, the action and the
    legal ones otherwise). `step` itself does not check: learners sample
    from the mask.

JAX engines (`games/batched_poker.py`) are pure: `init` and `step` are
jittable and chance is drawn from keys carried in the state.
`PyspielVectorEnv` below gives any pyspiel game the same interface at C++
speed (or the speed of the Python game); it steps real pyspiel states, so
its `step` changes the states it was given and is not jittable.
"""

from typing import Any, NamedTuple, Optional, Union

import jax
import numpy as np

import pyspiel

CONTRACT_FIELDS = ("current_player", "observation", "legal_action_mask",
                   "rewards", "terminated")
GAME_OVER = -1  # `current_player` of a finished game.


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


class PyspielVectorEnv:
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
    """Plays one action in every unfinished game (see the module docstring);
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
