"""The tree engine against OpenSpiel: exploitability, best responses, CFR."""

import re

import numpy as np
import pytest

from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr as python_cfr
from open_spiel.python.algorithms import discounted_cfr
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
from open_spiel_ext.algorithms.tree import cfr
from open_spiel_ext.algorithms.tree import game_tree
from open_spiel_ext.algorithms.tree import policies
from open_spiel_ext.algorithms.tree import sweeps
import pyspiel

# Games OpenSpiel's Python exploitability walks quickly; the others are checked
# on OpenSpiel's C++ cached_tree of the same game.
PYTHON_CHECKED = ["kuhn_poker", "leduc_poker", "k_gmp"]
CACHED_TREE_CHECKED = [
    "xdo_oshi_zumo(coins=3,size=1,horizon=4,min_bid=1)",
    "xdo_clone_leduc(clones=1)",
    # 20 s and a minute: OpenSpiel's cached_tree walks their 91,809 and
    # 468,517 histories through Python states.
    pytest.param("xdo_oshi_zumo", marks=pytest.mark.slow),
    pytest.param("xdo_clone_leduc(clones=2)", marks=pytest.mark.slow),
]


def _tree_and_sweeps(game_string: str):
  tree = game_tree.build_tree(pyspiel.load_game(game_string))
  return tree, sweeps.TreeSweeps(tree)


def _policies(tree: game_tree.GameTree) -> dict[str, np.ndarray]:
  rng = np.random.RandomState(7)
  return {
      "uniform": policies.uniform(tree.legal),
      "random": policies.normalized(rng.exponential(size=tree.legal.shape),
                                    tree.legal),
  }


def _openspiel_best_response_values(game, tabular) -> list[float]:
  cpp_policy = policy_lib.python_policy_to_pyspiel_policy(tabular)
  root = game.new_initial_state().history_str()
  return [
      pyspiel.TabularBestResponse(game, player, cpp_policy).value(root)
      for player in (0, 1)
  ]


@pytest.mark.parametrize("game_string", PYTHON_CHECKED)
def test_matches_openspiel_python_exploitability(game_string):
  tree, tree_sweeps = _tree_and_sweeps(game_string)
  for policy in _policies(tree).values():
    tabular = policies.to_tabular(tree, policy)
    assert tree_sweeps.exploitability(policy) == pytest.approx(
        exploitability.exploitability(tree.game, tabular), abs=1e-9)
    assert tree_sweeps.best_response_values(policy) == pytest.approx(
        _openspiel_best_response_values(tree.game, tabular), abs=1e-9)


@pytest.mark.parametrize("game_string", CACHED_TREE_CHECKED)
def test_matches_openspiel_cpp_on_cached_tree(game_string):
  tree, tree_sweeps = _tree_and_sweeps(game_string)
  cached = pyspiel.load_game(f"cached_tree(game={tree.game})")
  for policy in _policies(tree).values():
    tabular = policies.to_tabular(tree, policy)
    cpp_policy = policy_lib.python_policy_to_pyspiel_policy(tabular)
    assert tree_sweeps.exploitability(policy) == pytest.approx(
        pyspiel.exploitability(cached, cpp_policy), abs=1e-9)
    assert tree_sweeps.best_response_values(policy) == pytest.approx(
        _openspiel_best_response_values(cached, tabular), abs=1e-9)


def test_expected_value_and_best_response_actions():
  tree, tree_sweeps = _tree_and_sweeps("kuhn_poker")
  policy = _policies(tree)["random"]
  tabular = policies.to_tabular(tree, policy)
  expected = expected_game_score.policy_value(tree.game.new_initial_state(),
                                              [tabular, tabular])
  assert tree_sweeps.expected_value(policy) == pytest.approx(expected[0],
                                                             abs=1e-12)
  for player in (0, 1):
    value, actions = tree_sweeps.best_response(policy, player)
    pure_response = np.where((tree.infoset_player == player)[:, None],
                             policies.pure(actions, tree.num_actions), policy)
    on_policy = tree_sweeps.expected_value(pure_response)
    assert (1 - 2 * player) * on_policy == pytest.approx(value, abs=1e-12)


def test_policy_round_trip_through_tabular_policy():
  tree, _ = _tree_and_sweeps("leduc_poker")
  policy = _policies(tree)["random"]
  tabular = policies.to_tabular(tree, policy)
  assert len(tabular.state_lookup) == tree.num_infosets
  np.testing.assert_allclose(policies.from_tabular(tree, tabular), policy)


def _cpp_average(game, tree, solver_class, iterations):
  solver = solver_class(game)
  for _ in range(iterations):
    solver.evaluate_and_update_policy()
  table = solver.tabular_average_policy().policy_table()
  average = np.zeros(tree.legal.shape)
  for row, key in enumerate(tree.infoset_keys):
    for action, prob in table[key]:
      average[row, action] = prob
  return average


@pytest.mark.parametrize("game_string,iterations", [("kuhn_poker", 100),
                                                    ("leduc_poker", 30)])
@pytest.mark.parametrize("variant,cpp_solver", [("cfr+", pyspiel.CFRPlusSolver),
                                                ("cfr", pyspiel.CFRSolver)])
def test_cfr_average_policy_matches_openspiel_cpp(game_string, iterations,
                                                  variant, cpp_solver):
  tree, tree_sweeps = _tree_and_sweeps(game_string)
  solver = cfr.CFRSolver(tree_sweeps, variant)
  solver.run(iterations)
  np.testing.assert_allclose(
      solver.average_policy(),
      _cpp_average(tree.game, tree, cpp_solver, iterations), atol=1e-6)


def test_linear_cfr_matches_openspiels_dcfr_with_unit_exponents():
  tree, tree_sweeps = _tree_and_sweeps("kuhn_poker")
  solver = cfr.CFRSolver(tree_sweeps, "linear")
  solver.run(50)
  reference = discounted_cfr.DCFRSolver(tree.game, alpha=1, beta=1, gamma=1)
  for _ in range(50):
    reference.evaluate_and_update_policy()
  np.testing.assert_allclose(
      solver.average_policy(),
      policies.from_tabular(tree, reference.average_policy()), atol=1e-6)


def test_masked_cfr_stays_in_the_restricted_game():
  tree, tree_sweeps = _tree_and_sweeps("leduc_poker")
  mask = tree.legal.copy()
  first_legal = tree.legal.argmax(axis=1)
  mask[tree.infoset_player == 1] = False
  mask[tree.infoset_player == 1, first_legal[tree.infoset_player == 1]] = True
  solver = cfr.CFRSolver(tree_sweeps, "cfr+", mask)
  solver.run(200)
  average = solver.average_policy()
  assert np.all(average[~mask] == 0)
  assert tree_sweeps.exploitability(average, mask) < 1e-2
  # Player 1 is stuck with one pure policy: far from an equilibrium overall.
  assert tree_sweeps.exploitability(average) > 0.5


def test_reachable_histories_of_a_restricted_game():
  tree, _ = _tree_and_sweeps("kuhn_poker")
  pass_only = np.zeros_like(tree.legal)
  pass_only[:, 0] = True
  reachable = tree.reachable(pass_only)
  # Root, 3 deals, 6 deals, then pass, pass: 1 + 3 + 6 + 6 + 6.
  assert reachable.sum() == 22
  assert np.all(reachable[tree.parent[reachable][1:]])


def test_wrapped_game_tree_equals_its_inner_game_tree():
  wrapped_tree, _ = _tree_and_sweeps("xdo_clone_leduc(clones=1)")
  leduc_tree, _ = _tree_and_sweeps("leduc_poker")
  for field in ("player", "infoset", "parent", "action", "chance_prob",
                "utility", "level_starts", "legal"):
    np.testing.assert_array_equal(getattr(wrapped_tree, field),
                                  getattr(leduc_tree, field), err_msg=field)
  assert wrapped_tree.infoset_keys == leduc_tree.infoset_keys


def test_sizes_of_two_clone_leduc():
  tree, _ = _tree_and_sweeps("xdo_clone_leduc(clones=2)")
  assert game_tree.tree_sizes(tree) == {
      "histories": 468517, "decision": 101430, "terminal": 365880,
      "chance": 1207, "information_states": 936}
  # Histories reconstructed from the arrays are real game states.
  for node in (1000, 200000, tree.num_nodes - 1):
    state = tree.state(node)
    assert state.is_terminal() == (tree.player[node] == game_tree.TERMINAL)


def test_sampled_utilities_average_to_the_expected_value():
  tree, tree_sweeps = _tree_and_sweeps("leduc_poker")
  policy = _policies(tree)["random"]
  samples = game_tree.sample_utilities(tree, policy, 20000,
                                       np.random.RandomState(0))
  error = samples.std() / np.sqrt(len(samples))
  assert abs(samples.mean() - tree_sweeps.expected_value(policy)) < 4 * error


@pytest.mark.parametrize("game_string,named", [
    ("tiny_hanabi_a", "zero-sum"), ("matrix_rps", "sequential"),
    ("kuhn_poker(players=3)", "2-player")])
def test_refuses_games_it_cannot_solve(game_string, named):
  with pytest.raises(ValueError, match=named):
    game_tree.build_tree(pyspiel.load_game(game_string))


def test_bad_cfr_arguments():
  tree, tree_sweeps = _tree_and_sweeps("kuhn_poker")
  with pytest.raises(ValueError, match=re.escape("variant='cfr++'")):
    cfr.CFRSolver(tree_sweeps, "cfr++")
  empty_row = tree.legal.copy()
  empty_row[0] = False
  with pytest.raises(ValueError, match="at least one action"):
    cfr.CFRSolver(tree_sweeps, "cfr+", empty_row)


def test_python_cfr_plus_agrees_too():
  tree, tree_sweeps = _tree_and_sweeps("kuhn_poker")
  solver = cfr.CFRSolver(tree_sweeps, "cfr+")
  solver.run(20)
  reference = python_cfr.CFRPlusSolver(tree.game)
  for _ in range(20):
    reference.evaluate_and_update_policy()
  np.testing.assert_allclose(
      solver.average_policy(),
      policies.from_tabular(tree, reference.average_policy()), atol=1e-9)
