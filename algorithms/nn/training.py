"""One training state and one update step for every learned algorithm.

`TrainState` holds what a learner's network training changes: the haiku
parameters and state (batch-norm averages; `{}` without), the optax state,
the number of updates, and optionally a target network (its parameters,
state, and the step of its last copy, -1 before the first). It is a pytree,
so it goes through `jax.jit`, `lax.scan` and `utils/checkpoints` as it is.

`make_update(loss_fn, optimizer)` builds the step: the gradient of
`loss_fn(params, net_state, *batch) -> (loss, (net_state, aux))`, the
optimiser's update, the new parameters; jit it (or call it inside a jitted
function). The step returns `aux`, not the loss: a learner that wants the
loss reports it in `aux`. (Returning the loss too would change how XLA fuses
the gradient computation, and with it the last bits of the parameters: CAPI
and DAVI train bit for bit as they did before this kit.)
"""

from typing import Any, Callable, NamedTuple, Optional

import haiku as hk
import jax
import jax.numpy as jnp
import optax

NO_TARGET_YET = -1  # `target_step` before the target is first copied.

LossFn = Callable[..., tuple[jax.Array, tuple[hk.State, Any]]]


class TrainState(NamedTuple):
  """A network's training state (see the module docstring)."""
  params: hk.Params
  net_state: hk.State
  opt_state: optax.OptState
  step: jax.Array
  target_params: Optional[hk.Params] = None
  target_net_state: Optional[hk.State] = None
  target_step: jax.Array = jnp.int32(NO_TARGET_YET)


def init_train_state(params: hk.Params, net_state: hk.State,
                     optimizer: optax.GradientTransformation,
                     with_target: bool = False) -> TrainState:
  """Step 0; with a target network that starts as a copy not yet in use."""
  target = (params, net_state) if with_target else (None, None)
  return TrainState(params, net_state, optimizer.init(params), jnp.int32(0),
                    *target, jnp.int32(NO_TARGET_YET))


def copy_to_target(state: TrainState) -> TrainState:
  """The target network becomes the current one, as of this step."""
  return state._replace(target_params=state.params,
                        target_net_state=state.net_state,
                        target_step=state.step)


def has_target(state: TrainState) -> jax.Array:
  """Whether the target network has been copied at least once."""
  return state.target_step != NO_TARGET_YET


def make_update(loss_fn: LossFn, optimizer: optax.GradientTransformation
               ) -> Callable[..., tuple[TrainState, Any]]:
  """The update step `(state, *batch) -> (state, aux)`."""

  def update(state: TrainState, *batch: Any) -> tuple[TrainState, Any]:
    (_, (net_state, aux)), grads = jax.value_and_grad(
        lambda params: loss_fn(params, state.net_state, *batch),
        has_aux=True)(state.params)
    updates, opt_state = optimizer.update(grads, state.opt_state,
                                          state.params)
    return state._replace(params=optax.apply_updates(state.params, updates),
                          net_state=net_state, opt_state=opt_state,
                          step=state.step + 1), aux

  return update
