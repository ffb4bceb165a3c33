"""What a P2SRO run tells afterwards, on payoff tables whose meta-Nash is
known (p2sro/analysis.py)."""

import numpy as np
import pytest

from open_spiel_ext.algorithms import p2sro

# Each member beats the one before it: member k's best response.
CHAIN = np.array([[0.0, -1.0, 0.5], [1.0, 0.0, -1.0], [-0.5, 1.0, 0.0]])
EXACT = p2sro.Config(meta_solver="lp")


def test_each_new_policy_is_scored_against_the_meta_nash_it_beat():
  # Member 1 against member 0; member 2 against the meta-Nash of {0, 1},
  # which plays member 1 only.
  assert p2sro.best_response_payoffs(CHAIN, EXACT) == pytest.approx(
      [1.0, 1.0])
  # With one anchor heading the table, the first trained member is 2.
  anchored = p2sro.Config(meta_solver="lp", anchors=("bot",))
  assert p2sro.first_trained(anchored) == 2
  assert p2sro.best_response_payoffs(CHAIN, anchored) == pytest.approx([1.0])


def test_the_networks_part_of_a_meta_nash_over_anchors_and_networks():
  np.testing.assert_allclose(p2sro.networks_part(np.array([0.5, 0.1, 0.4]),
                                                 1), [0.2, 0.8])
  # A meta-Nash that plays only anchors: the newest network alone.
  np.testing.assert_array_equal(
      p2sro.networks_part(np.array([1.0, 0.0, 0.0]), 1), [0.0, 1.0])


def test_the_fixings_table_has_a_row_per_population_measured():
  evaluations = [
      {"population": 2, "hours": 0.5, "episodes": 1_000,
       "meta_nash": [0.0, 1.0], "random": {"rate": 0.75}},
      {"population": 3, "hours": 1.25, "episodes": 12_345,
       "meta_nash": [0.3, 0.7, 0.0], "random": {"rate": 0.5}}]
  table = p2sro.fixings_table(evaluations, CHAIN, EXACT, ["random"])
  header, _, first, second = table.splitlines()
  assert header == ("| population | hours | episodes | new policy's payoff "
                    "| random | meta-Nash |")
  assert first == "| 2 | 0.50 | 1,000 | +1.00 | 0.750 | policy 1 |"
  assert second == ("| 3 | 1.25 | 12,345 | +1.00 | 0.500 | 0.30 on 0, "
                    "0.70 on 1 |")
