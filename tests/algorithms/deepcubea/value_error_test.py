"""Value error by true distance, against the GF(2) solver on small Lights
Out boards."""

import numpy as np

from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.algorithms.deepcubea import value_error
from open_spiel_ext.experiments.puzzle_references import instances
from open_spiel_ext.experiments.puzzle_references import lights_out_gf2

SIZE = 4  # A null space of dimension 4: the fewest presses is a minimum.
ENGINE = puzzles.make_engine("lights_out", SIZE)
BOARDS = lights_out_gf2.random_reachable_boards(SIZE, 300, seed=1)


def _exact(states):
  return instances.exact_distances("lights_out", SIZE, states)


def test_the_exact_cost_to_go_has_no_error_and_always_descends():
  rows = value_error.by_distance(_exact, ENGINE, BOARDS, _exact)
  solved = [lights_out_gf2.solve(board, SIZE).sum() for board in BOARDS]
  assert [row.distance for row in rows] == sorted(set(solved) - {0})
  assert [row.states for row in rows] == [
      solved.count(row.distance) for row in rows]
  for row in rows:
    assert row.mean_estimate == row.distance == row.mean_target
    assert row.rmse == 0.0 and row.descent == 1.0
    assert 0.0 < row.random_descent <= 1.0
  # Next to the goal few of the 16 presses descend (far from it, most do).
  assert rows[0].random_descent < 0.5 < rows[-1].random_descent
  assert value_error.saturation(rows) is None


def test_a_flat_estimate_errs_by_the_distance_and_saturates_at_once():
  flat = lambda states: np.full(len(states), 1.5)
  rows = value_error.by_distance(flat, ENGINE, BOARDS, _exact)
  for row in rows:
    assert np.isclose(row.mean_error, 1.5 - row.distance)
    assert np.isclose(row.rmse, abs(1.5 - row.distance))
    assert np.isclose(row.mean_target, 2.5)  # Bellman would lift it.
  assert value_error.saturation(rows) == 3  # 1.5 short of 3 by more than 1.


def test_the_ranking_score_is_one_for_the_exact_order_and_negative_reversed():
  exact = value_error.by_distance(_exact, ENGINE, BOARDS, _exact)
  reversed_order = value_error.by_distance(
      lambda states: -_exact(states).astype(float), ENGINE, BOARDS, _exact)
  assert value_error.ranking_score(exact, min_states=1) == 1.0
  assert value_error.ranking_score(reversed_order, min_states=1) < 0.0
  assert np.isnan(value_error.ranking_score(exact, random_below=0.0))


def test_bellman_targets_of_the_exact_cost_to_go_are_the_distances():
  distances = _exact(BOARDS)
  targets = value_error.bellman_targets(_exact, ENGINE, BOARDS)
  away = distances > 0  # At the goal the target is 1 + 1: no child is 0.
  np.testing.assert_array_equal(targets[away], distances[away])
