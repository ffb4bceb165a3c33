"""Exact values of learned policies against a fixed opponent.

For a game the tree engine walks (and for a game that copies the actions of
one it walks, such as m-Clone Leduc with any number of clones, through its
collapse onto that game's tree: `games/registry.py`'s `clones_of`),
`ExactEvaluator` gives the exact value of a learned policy against an
`Opponent` in each seat next to the exact best-response value: their
difference is how far a learned best response is from a true one. A mixture
opponent is evaluated as the behaviour policy that plays like it
(`TreeSweeps.mixture_policy`).
"""

from typing import Callable, NamedTuple, Optional

import numpy as np

from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import network_policies
from open_spiel_ext.algorithms.rl import opponents as opponents_lib
from open_spiel_ext.algorithms.tree import game_tree as game_tree_lib
from open_spiel_ext.algorithms.tree import policies as tree_policies
from open_spiel_ext.algorithms.tree import sweeps as sweeps_lib
from open_spiel_ext.games import registry
import pyspiel


class Evaluation(NamedTuple):
  """Exact values of a learned policy, per seat, against the opponent."""
  values: np.ndarray  # [2] the learned policy's value in seat 0 and seat 1.
  best_values: np.ndarray  # [2] the best response's value in each seat.

  @property
  def gap(self) -> float:
    """How much less than a best response the policy gets, averaged over
    the two seats."""
    return float(np.mean(self.best_values - self.values))


class ExactEvaluator:
  """Exact values against one opponent on a tree-sized game (or on clones of
  one, collapsed onto it)."""

  def __init__(self, game: pyspiel.Game, opponent: opponents_lib.Opponent,
               max_nodes: int = 10**6):
    """Builds the tree (ValueError if it has more than `max_nodes` nodes)."""
    self.clones, self.sweeps = _evaluation_sweeps(game, max_nodes)
    self.opponent_policy = opponent_policy(self.sweeps, self.clones, opponent)
    self.best_values = np.array([
        self.sweeps.best_response(self.opponent_policy, seat)[0]
        for seat in (0, 1)])

  def policy_array(self, policy: learner_lib.LearnedPolicy) -> np.ndarray:
    """The learned policy as a policy array of the evaluation tree."""
    tree = self.sweeps.tree
    legal = np.tile(tree.legal, self.clones)
    array = network_policies.tabulate(tree, policy.logits_fn(), legal)
    return (network_policies.collapse_clones(array, self.clones)
            if self.clones > 1 else array)

  def __call__(self, policy: learner_lib.LearnedPolicy) -> Evaluation:
    learned = self.policy_array(policy)
    tree = self.sweeps.tree
    values = []
    for seat in (0, 1):
      mine = (tree.infoset_player == seat)[:, None]
      joint = np.where(mine, learned, self.opponent_policy)
      value = self.sweeps.expected_value(joint)
      values.append(value if seat == 0 else -value)
    return Evaluation(np.array(values), self.best_values)


def _evaluation_sweeps(game: pyspiel.Game, max_nodes: int
                      ) -> tuple[int, sweeps_lib.TreeSweeps]:
  """(clones, the sweeps of the tree evaluations walk: the base game's for
  clones of one, else the game's)."""
  tree_game, clones = _evaluation_game(game)
  return clones, sweeps_lib.for_game(tree_game, max_nodes)


def opponent_policy(tree_sweeps: sweeps_lib.TreeSweeps, clones: int,
                    opponent: opponents_lib.Opponent) -> np.ndarray:
  """The behaviour policy array of an opponent (of any kind) on the tree."""
  return tree_sweeps.mixture_policy(
      opponent.members_table(tree_sweeps.tree, clones),
      np.asarray(opponent.weights, np.float64))


class OpponentExploitability:
  """The exact exploitability of opponents, policies of the whole game
  (PSRO's and NXDO's meta-strategies), on a tree built once."""

  def __init__(self, game: pyspiel.Game, max_nodes: int = 10**6):
    """Builds the tree (ValueError if it has more than `max_nodes` nodes)."""
    self.clones, self.sweeps = _evaluation_sweeps(game, max_nodes)

  def __call__(self, opponent: opponents_lib.Opponent) -> float:
    return self.sweeps.exploitability(opponent_policy(self.sweeps,
                                                      self.clones, opponent))


def _evaluation_game(game: pyspiel.Game) -> registry.Clones:
  """The game evaluations walk and how many clones to collapse onto it: the
  base game, for a game that copies each of its actions more than once
  (`registry.clones_of`), else `game` itself."""
  clones = registry.clones_of(game)
  return clones if clones.copies > 1 else registry.Clones(game, 1)


def exploitability_of(game: pyspiel.Game, max_nodes: int = 10**6
                     ) -> Optional[Callable[[learner_lib.LearnedPolicy],
                                            float]]:
  """The exact exploitability of learned policies of `game` (clones of a
  game through that game, m-Clone Leduc through Leduc), or None for a game
  whose tree has more than `max_nodes` nodes (or that the tree engine cannot
  walk)."""
  base, clones = _evaluation_game(game)
  if clones > 1:
    evaluator = network_policies.CloneEvaluator(base)
    return lambda policy: evaluator.exploitability(policy.logits_fn(), clones)
  try:
    tree = game_tree_lib.build_tree(game, max_nodes)
  except ValueError:
    return None
  sweeps = sweeps_lib.TreeSweeps(tree)
  return lambda policy: sweeps.exploitability(
      network_policies.tabulate(tree, policy.logits_fn()))


def tabular_policy(game: pyspiel.Game, policy: learner_lib.LearnedPolicy,
                   max_nodes: int = 10**6,
                   tree: Optional[game_tree_lib.GameTree] = None
                  ) -> Optional[policy_lib.TabularPolicy]:
  """The learned policy as an OpenSpiel TabularPolicy of `game` (on `tree`,
  its tree, if already built), or None for a game whose tree has more than
  `max_nodes` nodes."""
  if tree is None:
    try:
      tree = game_tree_lib.build_tree(game, max_nodes)
    except ValueError:
      return None
  return tree_policies.to_tabular(
      tree, network_policies.tabulate(tree, policy.logits_fn()))
