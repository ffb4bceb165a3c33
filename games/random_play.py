"""Uniformly random play: of any pyspiel game, chance sampled as the game
says (`sample_action`), and of a batch of games, a legal action drawn per row
of a legal mask (`uniform_true_index`, jittable)."""

import jax
import jax.numpy as jnp
import numpy as np

import pyspiel


def sample_action(state: pyspiel.State, rng: np.random.RandomState) -> int:
  """A chance outcome drawn by its probability, or a uniform legal action."""
  if state.is_chance_node():
    actions, probs = zip(*state.chance_outcomes())
    return int(rng.choice(actions, p=probs))
  return int(rng.choice(state.legal_actions()))


def _running_sum(values: jax.Array) -> jax.Array:
  """Inclusive running sum along the last axis, as int32.

  An associative scan: XLA's cumsum on CPU takes time quadratic in the width.
  """
  return jax.lax.associative_scan(jnp.add, values.astype(jnp.int32), axis=-1)


def uniform_true_index(key: jax.Array, mask: jax.Array,
                       block: int = 32) -> jax.Array:
  """Per row of a [batch, n] mask, the index of a uniformly drawn True entry.

  Draws the k-th True entry for a uniform k, locating it in two levels (the
  block, then the entry inside it) so that no scan runs over the whole width.
  Rows without a True entry get 0.
  """
  batch, width = mask.shape
  blocks = -(-width // block)
  padded = jnp.pad(mask, ((0, 0), (0, blocks * block - width)))
  padded = padded.reshape(batch, blocks, block)
  per_block = padded.sum(axis=-1, dtype=jnp.int32)
  running = _running_sum(per_block)
  pick = jnp.floor(jax.random.uniform(key, (batch,)) *
                   running[:, -1]).astype(jnp.int32)
  chosen_block = jnp.argmax(running > pick[:, None], axis=-1)
  before = jnp.take_along_axis(running - per_block, chosen_block[:, None],
                               axis=-1)[:, 0]
  inside = jnp.take_along_axis(padded, chosen_block[:, None, None],
                               axis=1)[:, 0]
  offset = jnp.argmax(_running_sum(inside) > (pick - before)[:, None],
                      axis=-1)
  return chosen_block * block + offset
