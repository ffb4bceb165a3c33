"""Network pieces shared by the learned algorithms, as haiku modules.

`MLP` (dense ReLU layers and a linear head), `ResidualMLP` (DeepCubeA's
cost-to-go network), `residual_trunk` (CAPI's dense layers with skips) and
`LSTMTorso` (dense layers into an LSTM, unrolled over time, for recurrent
policies such as Hanabi's). Every module takes a batch [B, ...] and
flattens what follows the batch axis.
"""

from typing import Optional, Sequence

import haiku as hk
import jax
import jax.numpy as jnp


def _require_widths(name: str, widths: Sequence[int]) -> None:
  if any(width < 1 for width in widths):
    raise ValueError(f"{name}: layer widths must be >= 1, got {list(widths)}")


class MLP(hk.Module):
  """Dense ReLU layers, then a linear head of `num_outputs` (none if None)."""

  def __init__(self, hidden_sizes: Sequence[int],
               num_outputs: Optional[int] = None, name: str = "mlp"):
    super().__init__(name=name)
    _require_widths(name, list(hidden_sizes) + [num_outputs or 1])
    self._hidden_sizes = tuple(hidden_sizes)
    self._num_outputs = num_outputs

  def __call__(self, x: jax.Array) -> jax.Array:
    x = jnp.reshape(x, (x.shape[0], -1))
    for layer, width in enumerate(self._hidden_sizes):
      x = jax.nn.relu(hk.Linear(width, name=f"dense_{layer}")(x))
    if self._num_outputs is None:
      return x
    return hk.Linear(self._num_outputs, name="head")(x)


def residual_trunk(features: jax.Array, sizes: Sequence[int],
                   name: str = "trunk") -> jax.Array:
  """Dense ReLU layers; a layer as wide as its input also adds its input
  (CAPI's reference network: 3 × 256). Called inside a haiku transform; its
  layers are named `{name}_0`, `{name}_1`, ..."""
  _require_widths(name, sizes)
  x = jnp.reshape(features, (features.shape[0], -1))
  for layer, width in enumerate(sizes):
    y = hk.Linear(width, name=f"{name}_{layer}")(x)
    x = jax.nn.relu(y + x if x.shape[-1] == width else y)
  return x


class LSTMTorso(hk.RNNCore):
  """Dense ReLU layers into an LSTM: a recurrent core for policies that see
  one observation per step (`hk.dynamic_unroll` runs it over time)."""

  def __init__(self, hidden_sizes: Sequence[int], lstm_size: int,
               name: str = "lstm_torso"):
    super().__init__(name=name)
    _require_widths(name, list(hidden_sizes) + [lstm_size])
    self._mlp = MLP(hidden_sizes, name="encoder")
    self._lstm = hk.LSTM(lstm_size, name="lstm")

  def __call__(self, inputs: jax.Array,
               state: hk.LSTMState) -> tuple[jax.Array, hk.LSTMState]:
    return self._lstm(self._mlp(inputs), state)

  def initial_state(self, batch_size: Optional[int]) -> hk.LSTMState:
    return self._lstm.initial_state(batch_size)

  def unroll(self, inputs: jax.Array,
             state: hk.LSTMState) -> tuple[jax.Array, hk.LSTMState]:
    """[T, B, ...] inputs -> [T, B, lstm_size] outputs and the last state."""
    return hk.dynamic_unroll(self, inputs, state)


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
