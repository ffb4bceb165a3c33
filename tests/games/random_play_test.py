"""Uniformly random play of batches: one legal action drawn per mask row."""

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.games import random_play


def test_uniform_true_index_is_uniform():
  mask = np.zeros((4, 70), bool)
  mask[0, [3, 40, 69]] = True
  mask[1, 5] = True
  mask[2, :] = True
  keys = jax.random.split(jax.random.PRNGKey(0), 3000)
  draws = np.asarray(jax.vmap(
      lambda key: random_play.uniform_true_index(key, jnp.asarray(mask)))(keys))
  assert set(draws[:, 0]) == {3, 40, 69}
  assert (draws[:, 1] == 5).all()
  counts = np.bincount(draws[:, 2], minlength=70)
  assert counts.min() > 10 and counts.max() < 80  # Expected 3000/70 = 43.
  assert (draws[:, 3] == 0).all()  # No True entry.
  for value in (3, 40, 69):
    assert abs(np.mean(draws[:, 0] == value) - 1 / 3) < 0.04
