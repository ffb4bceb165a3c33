"""CFR, CFR+ and linear CFR over a GameTree, jitted, with restricted games.

The updates follow OpenSpiel's solvers exactly: alternating updates (player 0's
regrets, then player 1's against player 0's updated policy); regrets
counterfactual-reach weighted; the average policy accumulates each player's own
reach times its current policy during its own pass.

| variant | regrets                      | average weight |
|---------|------------------------------|----------------|
| cfr     | summed (regret matching)     | 1              |
| cfr+    | floored at 0 (regret matching+) | iteration t |
| linear  | weighted by t                | iteration t    |

A `mask` ([infosets, actions], within the legal actions) restricts the game:
policies put probability only on masked actions, and regrets of unmasked actions
are kept at zero, so that an action entering the mask later (XDO) starts fresh
while everything already learned is kept (warm start).
"""

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.tree import game_tree as game_tree_lib
from open_spiel_ext.algorithms.tree import policies
from open_spiel_ext.algorithms.tree import sweeps

VARIANTS = ("cfr", "cfr+", "linear")


class CFRState(NamedTuple):
  regrets: jax.Array  # [infosets, actions] cumulative regrets.
  average_weights: jax.Array  # [infosets, actions] cumulative policy.
  current: jax.Array  # [infosets, actions] current policy.
  iteration: jax.Array  # Iterations done.


def regret_matching(regrets: jax.Array, mask: jax.Array) -> jax.Array:
  """Positive regrets normalised; uniform over the mask where none is positive."""
  positive = jnp.where(mask, jnp.maximum(regrets, 0.0), 0.0)
  totals = positive.sum(axis=1, keepdims=True)
  uniform = mask / mask.sum(axis=1, keepdims=True)
  return jnp.where(totals > 0, positive / jnp.where(totals > 0, totals, 1.0),
                   uniform)


def _player_pass(layout, arrays, state: CFRState, mask, player,
                 variant: str) -> CFRState:
  """Updates `player`'s regrets and average policy; refreshes the policy."""
  weights = sweeps.edge_weights(arrays, state.current)
  reach = sweeps.reach_probabilities(arrays, weights)
  values = sweeps.node_values(layout, arrays, weights) * (1.0 - 2 * player)
  counterfactual = sweeps.counterfactual_reach(reach, player)
  parent = arrays["parent"][1:]  # Edges: into the nodes of levels 1, 2, ...
  parent_reach = jnp.take_along_axis(counterfactual[:-1], parent, axis=1)
  parent_values = jnp.take_along_axis(values[:-1], parent, axis=1)
  mine = arrays["owner"][1:] == player
  edge_regrets = jnp.where(mine, parent_reach * (values[1:] - parent_values),
                           0.0)
  num_infosets, num_actions = mask.shape
  regrets = jax.ops.segment_sum(
      edge_regrets.ravel(),
      (arrays["parent_infoset"][1:] * num_actions +
       arrays["action"][1:]).ravel(),
      num_segments=num_infosets * num_actions).reshape(num_infosets,
                                                       num_actions)
  own_reach = jax.ops.segment_sum(
      jnp.where(arrays["player"] == player, reach[:, player], 0.0).ravel(),
      arrays["infoset"].ravel(), num_segments=num_infosets)
  iteration = (state.iteration + 1).astype(jnp.float64)
  average_weight = 1.0 if variant == "cfr" else iteration
  regret_weight = iteration if variant == "linear" else 1.0
  cumulative = state.regrets + regret_weight * regrets
  if variant == "cfr+":
    cumulative = jnp.maximum(cumulative, 0.0)
  cumulative = jnp.where(mask, cumulative, 0.0)
  is_mine = (arrays["infoset_player"] == player)[:, None]
  average_weights = state.average_weights + jnp.where(
      is_mine, average_weight * own_reach[:, None] * state.current, 0.0)
  return state._replace(regrets=cumulative, average_weights=average_weights,
                        current=regret_matching(cumulative, mask))


@functools.partial(jax.jit, static_argnums=(0, 4))
def _iterate(layout, arrays, state: CFRState, mask, variant: str,
             num_iterations) -> CFRState:
  def one_pass(player, state):
    return _player_pass(layout, arrays, state, mask, player, variant)

  def one_iteration(_, state):
    state = jax.lax.fori_loop(0, 2, one_pass, state)
    return state._replace(iteration=state.iteration + 1)
  return jax.lax.fori_loop(0, num_iterations, one_iteration, state)


class CFRSolver:
  """CFR, CFR+ or linear CFR on a tree, optionally within a restricted game."""

  def __init__(self, tree_sweeps: sweeps.TreeSweeps, variant: str = "cfr+",
               mask: np.ndarray | None = None):
    if variant not in VARIANTS:
      raise ValueError(f"variant must be one of {VARIANTS}, got "
                       f"variant={variant!r}")
    self._sweeps = tree_sweeps
    self.variant = variant
    tree = tree_sweeps.tree
    with jax.enable_x64(True):
      zeros = jnp.zeros(tree.legal.shape)
      self._state = CFRState(zeros, zeros, zeros, jnp.asarray(0))
    self.set_mask(tree.legal if mask is None else mask)

  @property
  def tree(self) -> game_tree_lib.GameTree:
    return self._sweeps.tree

  def set_sweeps(self, tree_sweeps: sweeps.TreeSweeps) -> None:
    """Runs on from now on over `tree_sweeps`, e.g. a restricted game's
    sub-tree of the same tree (information states keep their indices)."""
    if tree_sweeps.tree is not self.tree:
      raise ValueError("set_sweeps needs a sub-tree of the solver's tree")
    self._sweeps = tree_sweeps

  @property
  def iteration(self) -> int:
    return int(self._state.iteration)

  @property
  def mask(self) -> np.ndarray:
    return self._mask

  def set_mask(self, mask: np.ndarray) -> None:
    """Restricts (or widens) the game; learned regrets and averages stay."""
    mask = np.asarray(mask, bool)
    if mask.shape != self.tree.legal.shape:
      raise ValueError(f"mask shape {mask.shape} differs from the tree's "
                       f"{self.tree.legal.shape}")
    if np.any(mask & ~self.tree.legal) or not np.all(mask.any(axis=1)):
      raise ValueError("mask must keep at least one action per information "
                       "state, and only legal ones")
    self._mask = mask
    with jax.enable_x64(True):
      device_mask = jnp.asarray(mask)
      regrets = jnp.where(device_mask, self._state.regrets, 0.0)
      self._state = self._state._replace(
          regrets=regrets, current=regret_matching(regrets, device_mask))

  def run(self, num_iterations: int) -> None:
    """Runs `num_iterations` iterations (both players each); returns when the
    device has finished them."""
    with jax.enable_x64(True):
      self._state = jax.block_until_ready(
          _iterate(self._sweeps.layout, self._sweeps.arrays, self._state,
                   jnp.asarray(self._mask), self.variant,
                   jnp.asarray(num_iterations)))

  def current_policy(self) -> np.ndarray:
    return np.asarray(self._state.current)

  def average_policy(self) -> np.ndarray:
    """The average policy; uniform on the mask where nothing accumulated."""
    return policies.normalized(np.asarray(self._state.average_weights),
                               self._mask)
