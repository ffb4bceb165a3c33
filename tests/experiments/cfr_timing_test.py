"""Timed CFR runs: ours and OpenSpiel's C++ CFR+ side by side."""

import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.experiments import cfr_timing
import pyspiel


@pytest.mark.parametrize("setup", [
    lambda game: cfr_timing.ours(game, "cfr+"),
    cfr_timing.openspiel_cpp_cfr_plus])
def test_timed_runs_evaluate_every_few_iterations_until_told(setup):
  game = pyspiel.load_game("kuhn_poker")
  points = list(cfr_timing.timed_runs(setup(game), 10, iterations=50))
  assert [iteration for _, iteration, _ in points] == [10, 20, 30, 40, 50]
  seconds = [s for s, _, _ in points]
  assert seconds == sorted(seconds) and seconds[0] > 0
  assert points[-1][2] < points[0][2] < 0.1


def test_timed_runs_stop_at_the_target():
  game = pyspiel.load_game("kuhn_poker")
  points = list(cfr_timing.timed_runs(cfr_timing.ours(game, "cfr+"), 10,
                                      iterations=1_000, target=0.01))
  assert points[-1][2] <= 0.01 < points[-2][2]
  assert points[-1][1] < 1_000
