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
                 variant: str, scratch: sweeps.Scratch
                ) -> tuple[CFRState, sweeps.Scratch]:
  """Updates `player`'s regrets and average policy; refreshes the policy."""
  scratch = sweeps.reach_probabilities(layout, arrays, state.current, scratch)
  num_infosets, num_actions = mask.shape

  def sums(chunk, values, sums):
    """Adds up, per information state of `player` (and action), its
    histories' counterfactual values (cf), the values of their children
    weighted by the parents' cf (child_cf), and their own reach: the regret
    of (I, a) is child_cf[I, a] − cf[I]."""
    child_cf, cf, own_reach = sums
    reach = scratch.reach
    parent = chunk.of(arrays["parent"])
    edge = chunk.valid & (chunk.of(arrays["owner"]) == player)
    child_cf = child_cf.at[jnp.where(
        edge, chunk.of(arrays["parent_infoset"]) * num_actions +
        chunk.of(arrays["action"]), num_infosets * num_actions)].add(
            sweeps.counterfactual_reach(reach, parent, player) * values,
            mode="drop")
    mine = jnp.where(chunk.valid & (chunk.of(arrays["player"]) == player),
                     chunk.of(arrays["infoset"]), num_infosets)
    cf = cf.at[mine].add(sweeps.counterfactual_reach(
        reach, chunk.index, player) * values, mode="drop")
    own_reach = own_reach.at[mine].add(reach[chunk.index][:, player],
                                       mode="drop")
    return child_cf, cf, own_reach

  scratch, (child_cf, cf, own_reach) = sweeps.node_values(
      layout, arrays, state.current, scratch, 1.0 - 2 * player, sums,
      (jnp.zeros(num_infosets * num_actions), jnp.zeros(num_infosets),
       jnp.zeros(num_infosets)))
  regrets = child_cf.reshape(num_infosets, num_actions) - cf[:, None]
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
                        current=regret_matching(cumulative, mask)), scratch


@jax.jit
def _restricted(state: CFRState, mask) -> CFRState:
  """`state` in the game `mask` restricts: regrets of other actions dropped,
  the current policy matched to the rest."""
  regrets = jnp.where(mask, state.regrets, 0.0)
  return state._replace(regrets=regrets,
                        current=regret_matching(regrets, mask))


@functools.partial(jax.jit, static_argnums=(0, 4))
def _iterate(layout, arrays, state: CFRState, mask, variant: str,
             num_iterations) -> CFRState:
  def one_pass(player, carry):
    state, scratch = carry
    return _player_pass(layout, arrays, state, mask, player, variant, scratch)

  def one_iteration(_, carry):
    state, scratch = jax.lax.fori_loop(0, 2, one_pass, carry)
    return state._replace(iteration=state.iteration + 1), scratch

  return jax.lax.fori_loop(0, num_iterations, one_iteration,
                           (state, sweeps.new_scratch(layout)))[0]


class CFRSolver:
  """CFR, CFR+ or linear CFR on a tree, optionally within a restricted game."""

  def __init__(self, tree_sweeps: sweeps.TreeSweeps, variant: str = "cfr+",
               mask: np.ndarray | None = None):
    sweeps.check_is_sweeps(tree_sweeps, "CFRSolver")
    if variant not in VARIANTS:
      raise ValueError(f"variant must be one of {VARIANTS}, got "
                       f"variant={variant!r}")
    self._sweeps = tree_sweeps
    self.variant = variant
    tree = tree_sweeps.tree
    with jax.enable_x64(True):
      zeros = np.zeros(tree.legal.shape)
      self._state = CFRState(*map(jnp.asarray, (zeros, zeros, zeros, 0)))
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
      self._state = _restricted(self._state, jnp.asarray(mask))

  def run(self, num_iterations: int) -> None:
    """Runs `num_iterations` iterations (both players each); returns when the
    device has finished them.

    Raises:
      TypeError: `num_iterations` is not an integer.
      ValueError: it is negative.
    """
    if isinstance(num_iterations, bool) or not isinstance(
        num_iterations, (int, np.integer)):
      raise TypeError("CFRSolver.run takes a number of iterations (an int), "
                      f"got {num_iterations!r}")
    if num_iterations < 0:
      raise ValueError(f"cannot run {num_iterations} iterations: the number "
                       "of iterations must be at least 0")
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


def compile_ahead(tree: game_tree_lib.GameTree, variant: str) -> None:
  """Compiles the solver's sweeps for `tree` (and all its sub-trees) by
  running them on the sub-tree of its root alone, which costs nothing: run
  in a thread, compilation overlaps the caller's work on another core."""
  root = sweeps.TreeSweeps(tree, np.arange(tree.num_nodes) == 0)
  CFRSolver(root, variant).run(0)
  root.expected_value(policies.uniform(tree.legal))
