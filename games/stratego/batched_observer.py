"""What each player observes of a batch of Stratego boards: the planes of
`observer.StrategoObserver`'s default observation (its own pieces'
identities, what is public, one ply of history), computed in JAX
(`BatchedObserver`, for `env.StrategoEnv`).

`tests/games/stratego/stratego_batched_test.py` checks them against the
pyspiel game's observation tensors move by move.
"""

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.games.stratego import batched
from open_spiel_ext.games.stratego import rules as rules_lib


class BatchedObserver:
  """Jitted observations of the boards of one `batched.BatchedStratego`.

  Attributes:
    num_planes: the observation's 10×10 planes.
    observation_shape: (planes · 100,), per player.
    observations: boards -> [B, 2, planes · 100] float32 each player's
      observation tensor, seen from its side (rotated 180° for player 1).
  """

  def __init__(self, engine: batched.BatchedStratego):
    self._engine = engine
    rules = engine.rules
    self.num_planes = 4 * rules.num_types + 11
    self.observation_shape = (self.num_planes * rules_lib.NUM_SQUARES,)
    lakes = np.zeros(rules_lib.NUM_SQUARES, np.float32)
    lakes[sorted(rules_lib.LAKES)] = 1
    self._lakes = jnp.asarray(lakes)
    self._counts = jnp.asarray(np.array(rules.counts, np.float32))
    self.observations = jax.jit(jax.vmap(lambda board: jax.vmap(
        lambda player: self._observation(board, player))(jnp.arange(2))))

  def _observation(self, board: batched.Boards,
                   player: jax.Array) -> jax.Array:
    """[planes · 100] what `player` observes of one board (the class
    docstring)."""
    squares = self._engine.square_contents(board)
    types = jnp.arange(self._engine.rules.num_types)[:, None]
    own = squares["owner"] == player
    opponent = (squares["owner"] == 1 - player) & (
        board.placed == self._engine.army_size).all()
    known = squares["revealed"] | squares["shown_scout"]
    of_type = squares["kind"][None] == types
    captured = board.captured / self._counts
    constant = lambda values: jnp.broadcast_to(
        values[:, None], (values.shape[0], rules_lib.NUM_SQUARES))
    last = jax.nn.one_hot(board.last_move, rules_lib.NUM_SQUARES)
    planes = jnp.concatenate([
        own[None] & of_type, own[None], opponent[None] & known & of_type,
        (opponent & ~known)[None], (own & squares["moved"])[None],
        (opponent & squares["moved"])[None], (own & known)[None],
        (opponent & squares["shown_scout"])[None], self._lakes[None],
        constant(captured[player]), constant(captured[1 - player]),
        constant((board.placed < self._engine.army_size).any()[None]),
        constant((board.ply / self._engine.ply_limit)[None]), last,
    ]).astype(jnp.float32)
    view = jnp.where(player == 1, rules_lib.NUM_SQUARES - 1 -
                     jnp.arange(rules_lib.NUM_SQUARES),
                     jnp.arange(rules_lib.NUM_SQUARES))
    return planes[:, view].ravel()
