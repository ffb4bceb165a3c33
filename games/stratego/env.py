"""Stratego as a batched learning environment (the contract of
`games/batched.py`) on the batched engine.

`StrategoEnv(game)` plays a pyspiel `barrage_stratego` or `stratego` game
with its parameters: with `setup=placement` the players place their pieces
as actions (the setup is part of the policy), with `setup=random` every game
starts from uniformly random setups (the chance nodes, drawn from the
game's key), with `setup=fixed` from the game's two setups. Each player's
`observation` is the pyspiel game's observation tensor (its planes, one ply
of history, seen from the player's side; `BatchedObserver.observations`),
not the information-state tensor of the contract's default: the
information state keeps 8 plies and the observation's planes already carry
what a player remembers of the game (revealed and moved pieces, losses).
Rewards are paid when a game ends: +1 to the winner, −1 to the loser, 0 in
a draw. With `material_shaping=c > 0`, learners also see potential-based
shaping (Ng, Harada and Russell, 1999): each ply pays player 0
c · (Φ(after) − Φ(before)) and player 1 its negative, where Φ is the material
player 0 is ahead by (`Rules.material` of the pieces each side lost, as a
share of a whole army's) while the game goes on and 0 once it is over. A
capture is rewarded when it happens, yet the shaping of a game sums to
Φ(end) − Φ(start) = 0, so every game's return is still its result (and the
best policies are unchanged). With `relative_actions=True` actions are also
seen from the mover's side: player 1's legal mask and actions are turned
180° as its observation is (`Rules.rotated_actions`), so that one network,
seeing and acting in its own frame, plays either seat. Both are learners'
choices, which pass them as options of `engines.make`.
`tests/games/batched_conformance_test.py` plays it in lockstep with the
pyspiel game.
"""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.games import batched as contract
from open_spiel_ext.games import engines
from open_spiel_ext.games.stratego import batched
from open_spiel_ext.games.stratego import batched_observer
from open_spiel_ext.games.stratego import game as game_lib
from open_spiel_ext.games.stratego import rules as rules_lib
import pyspiel


class StrategoEnvState(NamedTuple):
  """The contract's fields, then the boards and the next games' keys."""
  current_player: jax.Array  # [B] int32, contract.GAME_OVER once over.
  observation: jax.Array  # [B, 2, planes · 100] float32.
  legal_action_mask: jax.Array  # [B, actions] bool.
  rewards: jax.Array  # [B, 2] float32.
  terminated: jax.Array  # [B] bool.
  boards: batched.Boards
  key: jax.Array  # [B, 2] uint32: draws the next games' setups.


class StrategoEnv(contract.BatchedEnv):
  """Jitted `init` and `step` of a Stratego game over a batch (module
  docstring)."""

  def __init__(self, game: pyspiel.Game, auto_reset: bool = False,
               relative_actions: bool = False, material_shaping: float = 0.0):
    if not isinstance(game, game_lib.StrategoGame):
      raise ValueError(f"not a Stratego game: {game}")
    if not material_shaping >= 0:
      raise ValueError(f"material_shaping must be >= 0, got "
                       f"material_shaping={material_shaping!r}")
    self.game = game
    self.name = str(game)
    self.auto_reset = auto_reset
    self.relative_actions = relative_actions
    self.material_shaping = material_shaping
    rules = game.rules
    self._material = jnp.asarray(rules.material / float(
        np.dot(rules.material, rules.counts)))
    self._rotated = jnp.asarray(rules.rotated_actions())
    self.setup_mode = game.setup_mode
    self.engine = batched.BatchedStratego(
        game.ARMY, game.ply_limit, game.more_squares_rule,
        game.both_stuck_draw)
    self.num_players = 2
    self.num_actions = game.num_distinct_actions()
    self.observation_shape = tuple(game.observation_tensor_shape())
    self.observer = batched_observer.BatchedObserver(self.engine)
    assert self.observation_shape == self.observer.observation_shape
    if self.setup_mode == "fixed":
      self._fixed = jnp.asarray([
          square for player, text in enumerate(game.get_parameters()[
              name] for name in ("setup0", "setup1"))
          for _, square in rules_lib.parse_setup(game.rules, player, text,
                                                 f"setup{player}")])
    self.init = jax.jit(self._init)
    self.step = jax.jit(self._step)

  def _fresh_boards(self, keys: jax.Array) -> batched.Boards:
    """New games, one per key, as the setup mode starts them."""
    batch = keys.shape[0]
    if self.setup_mode == "placement":
      return self.engine.initial(batch)
    if self.setup_mode == "random":
      return self.engine.setups_from_keys(keys)
    return self.engine.from_positions(jnp.broadcast_to(
        self._fixed, (batch,) + self._fixed.shape))

  def _with_contract(self, boards: batched.Boards, rewards: jax.Array,
                     terminated: jax.Array,
                     key: jax.Array) -> StrategoEnvState:
    over = boards.winner != batched.ONGOING
    legal = self.engine.legal_mask(boards) & ~over[:, None]
    if self.relative_actions:
      legal = jnp.where((boards.player == 1)[:, None], legal[:, self._rotated],
                        legal)
    return StrategoEnvState(
        current_player=jnp.where(over, contract.GAME_OVER, boards.player),
        observation=self.observer.observations(boards),
        legal_action_mask=legal,
        rewards=rewards, terminated=terminated, boards=boards, key=key)

  def _init(self, keys: jax.Array) -> StrategoEnvState:
    if jnp.issubdtype(keys.dtype, jax.dtypes.prng_key):
      keys = jax.random.key_data(keys)
    pairs = jax.vmap(jax.random.split)(keys)
    boards = self._fresh_boards(pairs[:, 0])
    batch = keys.shape[0]
    return self._with_contract(boards, jnp.zeros((batch, 2)),
                               boards.winner != batched.ONGOING,
                               pairs[:, 1])

  def _step(self, state: StrategoEnvState,
            actions: jax.Array) -> StrategoEnvState:
    was_over = state.boards.winner != batched.ONGOING
    actions = jnp.asarray(actions, jnp.int32)
    if self.relative_actions:
      actions = jnp.where(state.boards.player == 1, self._rotated[actions],
                          actions)
    boards = self.engine.step(state.boards, actions)
    ended = (boards.winner != batched.ONGOING) & ~was_over
    rewards = jnp.where(ended[:, None], _returns(boards.winner), 0.0)
    if self.material_shaping:
      gain = self._potential(boards) - self._potential(state.boards)
      rewards += self.material_shaping * jnp.stack([gain, -gain], axis=-1)
    if not self.auto_reset:
      return self._with_contract(boards, rewards,
                                 boards.winner != batched.ONGOING, state.key)
    pairs = jax.vmap(jax.random.split)(state.key)
    fresh = self._fresh_boards(pairs[:, 0])
    boards = jax.tree.map(
        lambda new, old: jnp.where(
            ended.reshape((-1,) + (1,) * (new.ndim - 1)), new, old),
        fresh, boards)
    key = jnp.where(ended[:, None], pairs[:, 1], state.key)
    return self._with_contract(boards, rewards, ended, key)

  def _potential(self, boards: batched.Boards) -> jax.Array:
    """[B] Φ of the module docstring: player 0's material lead, 0 once the
    game is over."""
    lost = boards.captured.astype(jnp.float32) @ self._material  # [B, 2]
    return jnp.where(boards.winner == batched.ONGOING,
                     lost[:, 1] - lost[:, 0], 0.0)


def _returns(winner: jax.Array) -> jax.Array:
  """[B, 2] +1 to the winner, −1 to the loser, 0 for a draw."""
  first = jnp.where(winner == 0, 1.0, jnp.where(winner == 1, -1.0, 0.0))
  return jnp.stack([first, -first], axis=-1)


for _short_name in ("barrage_stratego", "stratego"):
  engines.register(_short_name, StrategoEnv)
