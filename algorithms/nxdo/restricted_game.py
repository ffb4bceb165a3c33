"""NXDO's restricted game as a JAX engine of the batched-environment
contract (`games/batched.py`) over an engine of the original game.

At every information state the player to move picks a population member (a
meta-action of NXDO), and that member's action is sampled and applied; for
NXDO-VA the actions stay the original ones, masked to those some member
plays (with probability at least `va_threshold`). The population's
parameters live in the engine's state, padded to a fixed `capacity`, so the
same compiled code serves a growing population.
"""

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.games import batched
from open_spiel_ext.utils import padding

VARIANTS = ("nxdo", "nxdo_va")
DEFAULT_VA_THRESHOLD = 0.01


class RestrictedState(NamedTuple):
  """The contract's fields, then the original game's state and the
  population."""
  current_player: jax.Array
  observation: jax.Array
  legal_action_mask: jax.Array
  rewards: jax.Array
  terminated: jax.Array
  inner: Any  # The original engine's state.
  population: Any  # Member parameters stacked on a leading [capacity] axis.
  size: jax.Array  # How many of them are members.
  key: jax.Array  # Samples the members' actions.


def check_variant(variant: str, continuous: bool = False) -> None:
  """Raises ValueError for an unknown variant, or NXDO-VA on continuous
  actions (its mask is over discrete ones)."""
  if variant not in VARIANTS:
    raise ValueError(f"variant must be one of {VARIANTS}, got "
                     f"variant={variant!r}")
  if continuous and variant == "nxdo_va":
    raise ValueError("nxdo_va masks discrete actions; a continuous-action "
                     "game takes variant='nxdo'")


def stack_members(members: list[Any], capacity: int) -> Any:
  """The members' parameters stacked and padded (with copies of the first)
  to `capacity` rows."""
  if not members:
    raise ValueError("a restricted game needs at least one population member")
  if len(members) > capacity:
    raise ValueError(f"{len(members)} members do not fit capacity="
                     f"{capacity}")
  padded = members + [members[0]] * (capacity - len(members))
  return jax.tree.map(lambda *leaves: jnp.stack(leaves), *padded)


def default_capacity(size: int) -> int:
  """Room for the population to grow with few recompilations."""
  return padding.next_power_of_two(max(size, 8))


class Members:
  """The population's policies evaluated on a batch of observations (a
  member's `apply` gives logits, or with `continuous` its action)."""

  def __init__(self, apply: learner_lib.LogitsFn, variant: str,
               va_threshold: float, continuous: bool = False):
    check_variant(variant, continuous)
    if not 0 < va_threshold <= 1:
      raise ValueError(f"va_threshold must be in (0, 1], got "
                       f"va_threshold={va_threshold}")
    self.apply = apply
    self.variant = variant
    self.va_threshold = va_threshold
    self.continuous = continuous

  def probabilities(self, population, observation, mask):
    """[capacity, B, A] every member's action probabilities."""
    logits = jax.vmap(lambda p: self.apply(p, observation))(population)
    return masking.masked_softmax(logits, mask[None])

  def valid(self, population, size, observation, mask):
    """[B, A] the actions some member plays (NXDO-VA's mask)."""
    probabilities = self.probabilities(population, observation, mask)
    member = jnp.arange(probabilities.shape[0]) < size
    played = (probabilities >= self.va_threshold) & member[:, None, None]
    return played.any(axis=0) & mask

  def meta_mask(self, population, size, observation, mask):
    """[B, meta-actions] the restricted game's legal actions."""
    if self.variant == "nxdo_va":
      return self.valid(population, size, observation, mask)
    capacity = jax.tree.leaves(population)[0].shape[0]
    live = mask.any(axis=1)
    return (jnp.arange(capacity) < size)[None] & live[:, None]

  def original_actions(self, population, observation, mask, meta_actions,
                       key):
    """[B] the original game's actions that meta-actions take."""
    if self.variant == "nxdo_va":
      return meta_actions
    if self.continuous:
      actions = jax.vmap(lambda p: self.apply(p, observation))(population)
      return jnp.take_along_axis(actions, meta_actions[None, :, None],
                                 axis=0)[0]
    probabilities = self.probabilities(population, observation, mask)
    chosen = jnp.take_along_axis(probabilities, meta_actions[None, :, None],
                                 axis=0)[0]
    return masking.masked_sample(key, jnp.log(chosen), mask)


class RestrictedGame:
  """A population's restricted game on an engine of the original game (see
  the module docstring)."""

  num_players = 2

  def __init__(self, env: Any, apply: learner_lib.LogitsFn,
               members: list[Any], variant: str = "nxdo",
               capacity: int | None = None,
               va_threshold: float = DEFAULT_VA_THRESHOLD):
    """
    Args:
      env: a JAX engine of the original game (contract of games/batched.py).
      apply: the members' logits function, (params, observation) -> logits
        (-> actions on an engine with continuous actions).
      members: each member's parameters.
      variant: "nxdo" (meta-actions pick members) or "nxdo_va" (original
        actions, masked to those members play).
      capacity: the most members the engine's state holds (meta-actions of
        NXDO); by default the next power of two >= max(size, 8).
      va_threshold: NXDO-VA: the probability from which a member plays an
        action.
    """
    self.env = env
    self.members = Members(apply, variant, va_threshold,
                            getattr(env, "continuous", False))
    self.variant = variant
    self.size = len(members)
    self.capacity = capacity or default_capacity(self.size)
    self.population = stack_members(members, self.capacity)
    # Its policies are not the original game's: no game for evaluators to
    # walk (meta_policy gives the original game's policy).
    self.game = None
    self.original_game = env.game
    self.name = f"{variant}({getattr(env, 'name', env.game)})"
    self.auto_reset = env.auto_reset
    self.observation_shape = env.observation_shape
    self.num_actions = (self.capacity if variant == "nxdo" else
                        env.num_actions)

  def init(self, keys: jax.Array) -> RestrictedState:
    return self._wrap(self.env.init(keys), self.population,
                      jnp.int32(self.size), jax.random.fold_in(keys[0], 1))

  def step(self, state: RestrictedState,
           actions: jax.Array) -> RestrictedState:
    """The meta-actions of the players to move (see games/batched.py)."""
    key, act_key = jax.random.split(state.key)
    inner = state.inner
    rows = jnp.arange(actions.shape[0])
    player = jnp.maximum(inner.current_player, 0)
    original = self.members.original_actions(
        state.population, inner.observation[rows, player],
        inner.legal_action_mask, actions, act_key)
    return self._wrap(self.env.step(inner, original), state.population,
                      state.size, key)

  def checked_step(self, state: RestrictedState,
                   actions: Any) -> RestrictedState:
    batched.check_actions(self.name, np.asarray(state.legal_action_mask),
                          np.asarray(state.terminated), actions)
    return self.step(state, jnp.asarray(actions, jnp.int32))

  def _wrap(self, inner, population, size, key) -> RestrictedState:
    rows = jnp.arange(inner.current_player.shape[0])
    player = jnp.maximum(inner.current_player, 0)
    mask = self.members.meta_mask(population, size,
                                  inner.observation[rows, player],
                                  inner.legal_action_mask)
    return RestrictedState(inner.current_player, inner.observation, mask,
                           inner.rewards, inner.terminated, inner,
                           population, size, key)
