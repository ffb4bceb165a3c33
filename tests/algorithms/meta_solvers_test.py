"""The meta-solvers' helpers: tables redrawn within their entries' errors."""

import numpy as np
import pytest

from open_spiel_ext.algorithms import meta_solvers

# Rock, paper, scissors with the one entry measured less precisely.
PAYOFFS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
ERRORS = np.array([[0.0, 0.1, 0.4], [0.1, 0.0, 0.1], [0.4, 0.1, 0.0]])


def test_exact_entries_are_redrawn_as_they_are():
  tables = meta_solvers.redrawn_tables(PAYOFFS, np.zeros((3, 3)), 5)
  np.testing.assert_array_equal(tables, np.broadcast_to(PAYOFFS, (5, 3, 3)))


def test_redrawn_tables_are_zero_sum_and_spread_by_each_entrys_error():
  tables = meta_solvers.redrawn_tables(PAYOFFS, ERRORS, 20_000, seed=3)
  np.testing.assert_array_equal(tables, -np.swapaxes(tables, 1, 2))
  # 20,000 draws: the spread's relative error is about 0.5%.
  np.testing.assert_allclose(tables.std(axis=0), ERRORS, rtol=0.03)
  np.testing.assert_allclose(tables.mean(axis=0), PAYOFFS, atol=0.02)


@pytest.mark.parametrize("payoffs, errors, samples, message", [
    (PAYOFFS, ERRORS[:2], 1, "one square shape"),
    (PAYOFFS, -ERRORS, 1, "must be >= 0"),
    (PAYOFFS, ERRORS, 0, "samples=0"),
])
def test_bad_tables_are_refused(payoffs, errors, samples, message):
  with pytest.raises(ValueError, match=message):
    meta_solvers.redrawn_tables(payoffs, errors, samples)
