"""Policies as [infosets, actions] arrays, and OpenSpiel TabularPolicy views.

A policy array of a GameTree holds, per information state, the probability of
each action; rows sum to one over legal (or masked) actions. Conversions to and
from `open_spiel.python.policy.TabularPolicy` build the TabularPolicy from one
state per information state, so they never walk the whole game again.
"""

import numpy as np

from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms.tree import game_tree as game_tree_lib


def uniform(mask: np.ndarray) -> np.ndarray:
  """Uniform over each row's masked actions."""
  mask = np.asarray(mask, np.float64)
  return mask / mask.sum(axis=1, keepdims=True)


def normalized(weights: np.ndarray, mask: np.ndarray) -> np.ndarray:
  """Rows of non-negative `weights` normalised; all-zero rows uniform on mask."""
  weights = np.where(mask, weights, 0.0)
  totals = weights.sum(axis=1, keepdims=True)
  return np.where(totals > 0, weights / np.where(totals > 0, totals, 1.0),
                  uniform(mask))


def pure(actions: np.ndarray, num_actions: int) -> np.ndarray:
  """The deterministic policy playing `actions[i]` at information state i."""
  return np.eye(num_actions)[actions]


def empty_tabular_policy(
    tree: game_tree_lib.GameTree) -> policy_lib.TabularPolicy:
  """A uniform TabularPolicy over the tree's information states."""
  states = [tree.state(node) for node in tree.infoset_node]
  return policy_lib.TabularPolicy(
      tree.game, states={state.history_str(): state for state in states})


def _rows(tree: game_tree_lib.GameTree,
          tabular: policy_lib.TabularPolicy) -> np.ndarray:
  return np.array([tabular.state_lookup[key] for key in tree.infoset_keys])


def to_tabular(tree: game_tree_lib.GameTree, policy: np.ndarray,
               tabular: policy_lib.TabularPolicy | None = None
              ) -> policy_lib.TabularPolicy:
  """`policy` as a TabularPolicy (written into `tabular` when given)."""
  tabular = tabular or empty_tabular_policy(tree)
  tabular.action_probability_array[_rows(tree, tabular)] = policy
  return tabular


def from_tabular(tree: game_tree_lib.GameTree,
                 tabular: policy_lib.TabularPolicy) -> np.ndarray:
  """A TabularPolicy of the same game as a policy array of `tree`."""
  return np.where(tree.legal,
                  tabular.action_probability_array[_rows(tree, tabular)], 0.0)
