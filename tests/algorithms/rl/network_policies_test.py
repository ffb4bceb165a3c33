"""Network policies as OpenSpiel policies, and their exact exploitability."""

import numpy as np
import pytest

from open_spiel.python.algorithms import exploitability as openspiel_exploitability
from open_spiel_ext.algorithms.rl import network_policies
from open_spiel_ext.algorithms.tree import game_tree
from open_spiel_ext.algorithms.tree import sweeps
from open_spiel_ext.games import registry
import pyspiel

LEDUC = pyspiel.load_game("leduc_poker")


def random_network(num_inputs: int, num_actions: int, seed: int):
  """A fixed random linear network with a bias per player, scaled so that
  its policies are far from uniform."""
  rng = np.random.RandomState(seed)
  weights = rng.normal(0, 2, (num_inputs, num_actions))
  biases = rng.normal(0, 1, (2, num_actions))

  def logits_fn(tensors, players):
    return tensors.reshape(len(tensors), -1) @ weights + biases[players]

  return logits_fn


def test_network_policy_agrees_with_openspiel_and_the_tree_engine():
  game = pyspiel.load_game("kuhn_poker")
  logits_fn = random_network(11, 2, seed=0)
  network_policy = network_policies.NetworkPolicy(game, logits_fn)
  state = game.new_initial_state()
  state.apply_action(0)
  state.apply_action(1)
  probabilities = network_policy.action_probabilities(state)
  logits = logits_fn(np.asarray([state.information_state_tensor()]),
                     np.asarray([0]))[0]
  expected = np.exp(logits) / np.exp(logits).sum()
  np.testing.assert_allclose([probabilities[a] for a in (0, 1)], expected)
  tree = game_tree.build_tree(game)
  exact = sweeps.TreeSweeps(tree).exploitability(
      network_policies.tabulate(tree, logits_fn))
  assert exact == pytest.approx(
      openspiel_exploitability.exploitability(game, network_policy), abs=1e-9)
  assert exact > 0.05  # A random policy is far from a Nash equilibrium.


def test_illegal_actions_get_no_probability():
  game = pyspiel.load_game("leduc_poker")
  tree = game_tree.build_tree(game)
  policy = network_policies.tabulate(tree, random_network(30, 3, seed=1))
  assert (policy[~tree.legal] == 0).all()
  np.testing.assert_allclose(policy.sum(-1), 1)


@pytest.mark.parametrize("clones", [
    2,
    # A 6.4-million-history tree: 10 s and a few GB of memory.
    pytest.param(3, marks=pytest.mark.slow),
])
def test_collapsing_clones_keeps_the_exact_exploitability(clones):
  logits_fn = random_network(30, 3 * clones, seed=clones)
  game = pyspiel.load_game(f"xdo_clone_leduc(clones={clones})")
  tree = game_tree.build_tree(game)
  full = sweeps.TreeSweeps(tree).exploitability(
      network_policies.tabulate(tree, logits_fn))
  base, copies = registry.clones_of(game)
  assert (str(base), copies) == ("leduc_poker()", clones)
  collapsed = network_policies.CloneEvaluator(base).exploitability(
      logits_fn, copies)
  assert collapsed == pytest.approx(full, abs=1e-9)
  assert full > 0.05


def test_twenty_clones_are_evaluated_exactly_on_leducs_tree():
  evaluator = network_policies.CloneEvaluator(LEDUC)
  # Clone c of each base action gets its own logit: the collapsed policy is
  # the softmax summed per base action.
  logits_fn = random_network(30, 60, seed=20)
  policy = evaluator.collapsed_policy(logits_fn, 20)
  legal = evaluator.sweeps.tree.legal
  np.testing.assert_allclose(policy.sum(-1), 1)
  assert (policy[~legal] == 0).all()
  assert 0 < evaluator.exploitability(logits_fn, 20) < 10


def test_bad_inputs_are_named():
  with pytest.raises(ValueError, match="information-state tensors"):
    network_policies.NetworkPolicy(pyspiel.load_game("tic_tac_toe"),
                                   random_network(27, 9, 0))
  tree = game_tree.build_tree(pyspiel.load_game("kuhn_poker"))
  with pytest.raises(ValueError, match=r"logits of shape \(12, 3\)"):
    network_policies.tabulate(tree, random_network(11, 3, 0))
  with pytest.raises(ValueError, match="clones=0"):
    network_policies.CloneEvaluator(LEDUC).exploitability(
        random_network(30, 3, 0), 0)
