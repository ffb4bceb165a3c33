"""Tabular PSRO / double oracle and the meta-solvers."""

import numpy as np
import pytest

from open_spiel.python.algorithms import exploitability
from open_spiel_ext.algorithms import meta_solvers
from open_spiel_ext.algorithms import psro
from open_spiel_ext.algorithms.tree import sweeps

RPS = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=np.float64)


def _psro(game_string: str, **settings) -> psro.PSRO:
  return psro.PSRO(sweeps.for_game(game_string), psro.Config(**settings))


def test_lp_solves_known_games():
  x, y = meta_solvers.lp(RPS)
  np.testing.assert_allclose(x, [1 / 3] * 3, atol=1e-9)
  np.testing.assert_allclose(y, [1 / 3] * 3, atol=1e-9)
  # Matching pennies paying 3 on (0, 0): each player mixes 1/3, 2/3 to make
  # the other indifferent.
  x, y = meta_solvers.lp(np.array([[3.0, -1.0], [-1.0, 1.0]]))
  np.testing.assert_allclose(x, [1 / 3, 2 / 3], atol=1e-9)
  np.testing.assert_allclose(y, [1 / 3, 2 / 3], atol=1e-9)


@pytest.mark.parametrize("name", ["fictitious_play", "prd"])
def test_approximate_meta_solvers_approach_the_lp(name):
  matrix = np.random.RandomState(3).normal(size=(5, 4))
  x, y = meta_solvers.META_SOLVERS[name](matrix)
  lp_row, lp_column = meta_solvers.lp(matrix)
  value = lp_row @ matrix @ lp_column
  assert x.sum() == pytest.approx(1) and y.sum() == pytest.approx(1)
  # Each approximate strategy guarantees nearly the game's value.
  assert (x @ matrix).min() == pytest.approx(value, abs=0.05)
  assert (matrix @ y).max() == pytest.approx(value, abs=0.05)


def test_double_oracle_solves_rps_choice():
  solver = _psro("rps_choice(games=3)")
  log = list(solver.run(max_iterations=100))
  assert log[-1].exploitability < 1e-9
  # Player 1's pure strategies: one move per pick of player 0.
  assert log[-1].population_sizes[1] <= 3**3


def test_logged_exploitability_is_openspiels_of_the_meta_policy():
  solver = _psro("kuhn_poker")
  log = list(solver.run(max_iterations=5))
  assert log[-1].exploitability == pytest.approx(
      exploitability.exploitability(solver.tree.game, solver.tabular_policy()),
      abs=1e-9)


def test_meta_policy_mixes_pure_policies_by_reach():
  solver = _psro("kuhn_poker")
  for _ in solver.run(max_iterations=3):
    pass
  x, y = solver.meta_strategies  # Of the populations before the last BRs.
  value = solver.sweeps.expected_value(solver.meta_policy())
  assert value == pytest.approx(x @ solver.payoffs[:len(x), :len(y)] @ y,
                                abs=1e-9)


def test_sampled_payoffs_approach_exact_ones():
  exact = _psro("leduc_poker")
  sampled = _psro("leduc_poker", payoff_samples=4000, seed=1)
  np.testing.assert_allclose(sampled.payoffs, exact.payoffs, atol=0.3)


@pytest.mark.parametrize("kwargs,named", [
    ({"meta_solver": "nash"}, "meta_solver='nash'"),
    ({"payoff_samples": 0}, "payoff_samples=0")])
def test_bad_arguments(kwargs, named):
  with pytest.raises(ValueError, match=named):
    _psro("kuhn_poker", **kwargs)
