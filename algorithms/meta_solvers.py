"""Meta-solvers for two-player zero-sum normal-form (meta-)games.

Each takes player 0's payoff matrix [rows, columns] and returns a mixed
strategy per player. `lp` is exact (scipy's linprog, HiGHS); `fictitious_play`
and `projected_replicator_dynamics` (OpenSpiel's) approximate.
"""

from typing import Callable

import numpy as np
from scipy import optimize

from open_spiel.python.algorithms import projected_replicator_dynamics

MetaSolver = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def _maximin(matrix: np.ndarray) -> np.ndarray:
  """The row player's maximin strategy: max v s.t. x^T A >= v, x in simplex."""
  rows, columns = matrix.shape
  objective = np.zeros(rows + 1)
  objective[-1] = -1.0  # Maximise v.
  # v - x^T A[:, j] <= 0 for every column j.
  inequalities = np.hstack([-matrix.T, np.ones((columns, 1))])
  equality = np.hstack([np.ones((1, rows)), np.zeros((1, 1))])
  result = optimize.linprog(
      objective, A_ub=inequalities, b_ub=np.zeros(columns), A_eq=equality,
      b_eq=[1.0], bounds=[(0, None)] * rows + [(None, None)], method="highs")
  if not result.success:
    raise ValueError(f"linprog failed on a {matrix.shape} game: "
                     f"{result.message}")
  strategy = np.maximum(result.x[:rows], 0.0)
  return strategy / strategy.sum()


def lp(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
  """An exact Nash equilibrium of the zero-sum game, by linear programming."""
  matrix = np.asarray(matrix, np.float64)
  return _maximin(matrix), _maximin(-matrix.T)


def fictitious_play(matrix: np.ndarray,
                    iterations: int = 10000) -> tuple[np.ndarray, np.ndarray]:
  """Simultaneous fictitious play; returns the empirical average strategies."""
  matrix = np.asarray(matrix, np.float64)
  counts = [np.zeros(matrix.shape[0]), np.zeros(matrix.shape[1])]
  counts[0][0] = counts[1][0] = 1.0
  for _ in range(iterations):
    row_best = np.argmax(matrix @ counts[1])
    column_best = np.argmin(counts[0] @ matrix)
    counts[0][row_best] += 1
    counts[1][column_best] += 1
  return counts[0] / counts[0].sum(), counts[1] / counts[1].sum()


def projected_replicator_dynamics_solver(
    matrix: np.ndarray, iterations: int = 100000
) -> tuple[np.ndarray, np.ndarray]:
  """OpenSpiel's projected replicator dynamics on the meta-game."""
  matrix = np.asarray(matrix, np.float64)
  strategies = projected_replicator_dynamics.projected_replicator_dynamics(
      [matrix, -matrix], prd_iterations=iterations)
  return tuple(np.asarray(s) / np.sum(s) for s in strategies)


def redrawn_tables(payoffs: np.ndarray, standard_errors: np.ndarray,
                   samples: int, seed: int = 0) -> np.ndarray:
  """What a symmetric zero-sum table of sampled entries might have read had
  its games been played again: `samples` tables [samples, n, n], each entry
  above the diagonal drawn from a normal around it with its standard error,
  the one below its negation, the diagonal 0. Solving them shows how much a
  meta-Nash depends on the entries' sampling error.

  Raises:
    ValueError: the tables are not square and of one shape, an error is
      negative, or `samples` < 1.
  """
  payoffs = np.asarray(payoffs, np.float64)
  standard_errors = np.asarray(standard_errors, np.float64)
  if (payoffs.ndim != 2 or payoffs.shape[0] != payoffs.shape[1] or
      standard_errors.shape != payoffs.shape):
    raise ValueError(f"payoffs {payoffs.shape} and standard_errors "
                     f"{standard_errors.shape} must be one square shape")
  if np.any(standard_errors < 0):
    raise ValueError(f"standard errors must be >= 0, got "
                     f"{standard_errors.min()}")
  if samples < 1:
    raise ValueError(f"samples must be >= 1, got samples={samples}")
  noise = np.random.default_rng(seed).normal(
      size=(samples,) + payoffs.shape) * standard_errors
  upper = np.triu(payoffs + noise, k=1)
  return upper - np.swapaxes(upper, 1, 2)


META_SOLVERS: dict[str, MetaSolver] = {
    "lp": lp,
    "fictitious_play": fictitious_play,
    "prd": projected_replicator_dynamics_solver,
}
