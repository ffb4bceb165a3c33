"""Network pieces shared by the learned algorithms, as haiku modules."""

from typing import Sequence

import haiku as hk
import jax
import jax.numpy as jnp


class ResidualMLP(hk.Module):
  """Dense layers, then residual blocks of two dense layers, then a head.

  Each dense layer is followed by batch norm (if `batch_norm`) and ReLU; a
  block adds its input before its last ReLU, as DeepCubeA's cost-to-go
  network does (hidden 5000, 1000, then four blocks of 1000).
  """

  def __init__(self, hidden_sizes: Sequence[int], num_blocks: int,
               num_outputs: int, batch_norm: bool = True,
               name: str = "residual_mlp"):
    super().__init__(name=name)
    if not hidden_sizes or min(hidden_sizes) < 1 or num_blocks < 0:
      raise ValueError(f"need hidden_sizes >= 1 and num_blocks >= 0, got "
                       f"hidden_sizes={list(hidden_sizes)}, "
                       f"num_blocks={num_blocks}")
    self._hidden_sizes = tuple(hidden_sizes)
    self._num_blocks = num_blocks
    self._num_outputs = num_outputs
    self._batch_norm = batch_norm

  def _dense(self, x: jax.Array, width: int, name: str,
             is_training: bool) -> jax.Array:
    x = hk.Linear(width, name=name)(x)
    if self._batch_norm:
      x = hk.BatchNorm(create_scale=True, create_offset=True, decay_rate=0.99,
                       name=f"{name}_batch_norm")(x, is_training)
    return x

  def __call__(self, x: jax.Array, is_training: bool) -> jax.Array:
    x = jnp.reshape(x, (x.shape[0], -1))
    for layer, width in enumerate(self._hidden_sizes):
      x = jax.nn.relu(self._dense(x, width, f"dense_{layer}", is_training))
    width = self._hidden_sizes[-1]
    for block in range(self._num_blocks):
      inner = jax.nn.relu(
          self._dense(x, width, f"block_{block}_a", is_training))
      x = jax.nn.relu(
          x + self._dense(inner, width, f"block_{block}_b", is_training))
    return hk.Linear(self._num_outputs, name="head")(x)
