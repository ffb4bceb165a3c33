"""A convolutional Stratego network over the observation planes, with a
policy head laid out square by square.

The input is a batch of pyspiel Stratego observation tensors, flattened
([B, planes · 100], as `games/stratego/env.py` shows them, in the mover's
frame): `planes` 10×10 planes, square s = row · 10 + column. A 1×1
convolution embeds each square's planes into `widths[0]` channels; each
further width is a residual 3×3 convolution (`conv3x3`; ReLU), so three
widths see a 5×5 neighbourhood, and every layer also adds a linear map of
the board's mean features (so a Scout on one side can react to the other).

Policy head (`num_outputs` the game's action count): a 1×1 convolution to
`types + 36` logits per square, which are the action ids as the rules lay
them out (`Rules.placement_action`, `Rules.move_action`): channel t < types
is "place a piece of type t here", channel types + 9·direction + distance − 1
"move the piece here `distance` squares that way". Each move's logit also
adds a score of the square it lands on (a second 1×1 convolution to 36
channels, read at the target by `at_targets`), so a move sees what it
attacks or approaches however far away, as a Scout's run must. This
factored head (piece-square × direction-distance) has 79 · C weights
instead of the 4,300 · 100 · C of a dense head, and it is
translation-equivariant as the moves are. Value head (`num_outputs=1`): a 1×1 convolution to 4
channels, flattened, a dense ReLU layer of `widths[-1]` and a linear output.
With `with_value`, one network carries both heads on one trunk (PPO's
`shared_trunk`). Learners' configs name it "stratego_conv" (registered here,
`rl/networks.py`).
"""

import functools
from typing import Sequence

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.rl import networks
from open_spiel_ext.games.stratego import rules as rules_lib

_SQUARES = rules_lib.NUM_SQUARES
_SIDE = rules_lib.BOARD_SIZE
_MOVE_CHANNELS = rules_lib.MOVES_PER_SQUARE
_MAX_DISTANCE = rules_lib.MAX_DISTANCE
_VALUE_CHANNELS = 4
_LAYOUT = ("NHWC", "HWIO", "NHWC")


def placement_types(num_actions: int) -> int:
  """The piece types of a Stratego game with `num_actions` action ids.

  Raises:
    ValueError: `num_actions` is not a Stratego game's action count.
  """
  types, rest = divmod(num_actions - rules_lib.NUM_MOVE_ACTIONS, _SQUARES)
  if types < 1 or rest:
    raise ValueError(
        f"the Stratego network's head needs a Stratego game's action count "
        f"(types · {_SQUARES} + {rules_lib.NUM_MOVE_ACTIONS}), got "
        f"num_outputs={num_actions}")
  return types


def head_index(types: int) -> np.ndarray:
  """[actions] where each action id's logit sits in the head's output
  flattened as [square, channel] (channels: `types` placements, then 36
  moves, 9 · direction + distance − 1)."""
  channels = types + _MOVE_CHANNELS
  piece_type, square = np.divmod(np.arange(types * _SQUARES), _SQUARES)
  origin, move = np.divmod(np.arange(rules_lib.NUM_MOVE_ACTIONS),
                           _MOVE_CHANNELS)
  return np.concatenate([square * channels + piece_type,
                         origin * channels + types + move])


def to_actions(per_square: jax.Array, types: int) -> jax.Array:
  """[B, 100, types + 36] logits per square and channel -> [B, actions] in
  action-id order (`head_index`), by transposes rather than a gather (whose
  gradient, a scatter, XLA spends seconds constant-folding)."""
  batch = per_square.shape[0]
  placements = per_square[:, :, :types].transpose(0, 2, 1)
  return jnp.concatenate([placements.reshape(batch, -1),
                          per_square[:, :, types:].reshape(batch, -1)], -1)


@functools.lru_cache(maxsize=None)
def target_shifts() -> np.ndarray:
  """[36, 100, 100] 0/1: entry (m, s, t) is 1 where move channel m from
  square s lands on square t (on the board; lakes included)."""
  shifts = np.zeros((_MOVE_CHANNELS, _SQUARES, _SQUARES), np.float32)
  rows, columns = np.divmod(np.arange(_SQUARES), _SIDE)
  for direction, (row_step, column_step) in enumerate(
      rules_lib.DIRECTION_STEPS):
    for distance in range(1, _MAX_DISTANCE + 1):
      row, column = rows + distance * row_step, columns + distance * column_step
      inside = (row >= 0) & (row < _SIDE) & (column >= 0) & (column < _SIDE)
      shifts[direction * _MAX_DISTANCE + distance - 1, inside,
             (row * _SIDE + column)[inside]] = 1
  return shifts


def at_targets(scores: jax.Array) -> jax.Array:
  """[B, 10, 10, 36] -> [B, 10, 10, 36]: move channel m of square s takes
  channel m of the square that move lands on (0 off the board), as a product
  with the constant `target_shifts` (36 shifted slices give the same, but
  XLA's CPU gradient of a log-softmax over them is 6× slower)."""
  batch = scores.shape[0]
  landed = jnp.einsum("btm,mst->bsm",
                      scores.reshape(batch, _SQUARES, _MOVE_CHANNELS),
                      jnp.asarray(target_shifts()))
  return landed.reshape(scores.shape)


def _patches(x: jax.Array) -> jax.Array:
  """[B, H, W, 9·C]: each square's 3×3 neighbourhood (zeros off the board)."""
  _, height, width, _ = x.shape
  padded = jnp.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
  return jnp.concatenate([padded[:, i:i + height, j:j + width]
                          for i in range(3) for j in range(3)], axis=-1)


def _conv(x: jax.Array, kernel: jax.Array) -> jax.Array:
  return jax.lax.conv_general_dilated(x, kernel, (1, 1), "SAME",
                                      dimension_numbers=_LAYOUT)


@jax.custom_vjp
def conv3x3(x: jax.Array, kernel: jax.Array) -> jax.Array:
  """A 3×3 'same' convolution, NHWC × HWIO, whose kernel gradient is a
  matrix product of the input's patches: XLA's CPU kernel-gradient
  convolution runs about 30× slower inside loops (`lax.scan`, where PPO
  trains) than outside; a product runs as fast in both."""
  return _conv(x, kernel)


def _conv3x3_forward(x, kernel):
  return _conv(x, kernel), (x, kernel)


def _conv3x3_backward(saved, gradient):
  x, kernel = saved
  kernel_gradient = jnp.einsum("bhwk,bhwo->ko", _patches(x), gradient)
  input_gradient = _conv(gradient, jnp.flip(kernel, (0, 1)).swapaxes(2, 3))
  return input_gradient, kernel_gradient.reshape(kernel.shape)


conv3x3.defvjp(_conv3x3_forward, _conv3x3_backward)


class StrategoNet(hk.Module):
  """The policy (`num_outputs` actions) or value (`num_outputs=1`) network
  of the module docstring; with `with_value`, a policy network that also
  returns the value head's output on the same trunk: (logits, value)."""

  def __init__(self, widths: Sequence[int], num_outputs: int,
               name: str = "stratego_net", with_value: bool = False):
    super().__init__(name=name)
    if not widths or any(width < 1 for width in widths):
      raise ValueError(f"{name}: layer widths must be >= 1, got "
                       f"{list(widths)}")
    self._types = None if num_outputs == 1 else placement_types(num_outputs)
    self._widths = tuple(widths)
    self._with_value = with_value

  def __call__(self, observation: jax.Array):
    x = self._trunk(observation)
    if self._types is None:
      return self._value(x)
    logits = self._policy(x)
    return (logits, self._value(x)) if self._with_value else logits

  def _trunk(self, observation: jax.Array) -> jax.Array:
    batch = observation.shape[0]
    if observation[0].size % _SQUARES:
      raise ValueError(f"the Stratego network takes planes of {_SQUARES} "
                       f"squares, got an observation of {observation[0].size}")
    planes = observation.reshape(batch, -1, _SIDE, _SIDE).transpose(0, 2, 3, 1)
    x = jax.nn.relu(hk.Linear(self._widths[0], name="embed")(planes))
    for layer, width in enumerate(self._widths[1:]):
      kernel = hk.get_parameter(
          f"conv_{layer}", (3, 3, x.shape[-1], width), x.dtype,
          hk.initializers.VarianceScaling(2.0, "fan_in", "truncated_normal"))
      context = hk.Linear(width, name=f"context_{layer}")(x.mean((1, 2)))
      y = conv3x3(x, kernel) + context[:, None, None]
      x = jax.nn.relu(y + x if x.shape[-1] == width else y)
    return x

  def _value(self, x: jax.Array) -> jax.Array:
    features = hk.Linear(_VALUE_CHANNELS, name="value_squares")(x)
    hidden = jax.nn.relu(hk.Linear(self._widths[-1], name="value_hidden")(
        jax.nn.relu(features).reshape(x.shape[0], -1)))
    return hk.Linear(1, name="value")(hidden)

  def _policy(self, x: jax.Array) -> jax.Array:
    logits = hk.Linear(self._types + _MOVE_CHANNELS, name="policy")(x)
    targets = at_targets(hk.Linear(_MOVE_CHANNELS, name="target")(x))
    logits = jnp.concatenate([logits[..., :self._types],
                              logits[..., self._types:] + targets], -1)
    return to_actions(logits.reshape(x.shape[0], _SQUARES, -1), self._types)


def _network(widths: Sequence[int], num_outputs: int,
             name: str) -> hk.Transformed:
  return hk.without_apply_rng(hk.transform(
      lambda x: StrategoNet(widths, num_outputs, name=name)(x)))


def _actor_critic(widths: Sequence[int], num_actions: int,
                  name: str) -> hk.Transformed:
  return hk.without_apply_rng(hk.transform(
      lambda x: StrategoNet(widths, num_actions, name=name,
                            with_value=True)(x)))


networks.register("stratego_conv",
                  networks.NetworkBuilders(_network, _actor_critic))
