"""Exact Lights Out: the fewest presses, by linear algebra over GF(2).

Pressing a set of lights x turns board b off when T x = b over GF(2), T the
toggle table. Gaussian elimination gives one solution and a basis of the
null space (presses that change nothing); the fewest presses is the lightest
solution over that affine space. On 7×7 T is invertible, so the solution is
unique; on sizes with a null space (4×4, 5×5, ...) every null combination is
tried, which is cheap for the small null spaces these boards have.
"""

import functools
import itertools
from typing import NamedTuple

import numpy as np

from open_spiel_ext.games.puzzles import lights_out

MAX_NULL_DIMENSION = 20  # 2^20 combinations at most.


def _row_reduce(matrix: np.ndarray,
                pivot_columns: int) -> tuple[np.ndarray, list[int]]:
  """Reduced row echelon form over GF(2), pivoting in the first
  `pivot_columns` columns, and the pivot columns."""
  reduced = matrix.copy() % 2
  pivots = []
  row = 0
  for col in range(pivot_columns):
    candidates = np.flatnonzero(reduced[row:, col]) + row
    if candidates.size == 0:
      continue
    reduced[[row, candidates[0]]] = reduced[[candidates[0], row]]
    others = np.flatnonzero(reduced[:, col])
    reduced[others[others != row]] ^= reduced[row]
    pivots.append(col)
    row += 1
    if row == reduced.shape[0]:
      break
  return reduced, pivots


def solve(board: np.ndarray, size: int) -> np.ndarray:
  """The fewest presses (0/1 per square) that turn every light of `board` off.

  Raises:
    ValueError: if no set of presses turns the board off.
  """
  board = np.asarray(board, np.int8).ravel()
  squares = size * size
  if board.shape != (squares,) or not np.isin(board, (0, 1)).all():
    raise ValueError(f"board must be {squares} values 0/1, got {board}")
  toggles = lights_out.toggle_table(size)
  augmented = np.concatenate([toggles.T, board[:, None]], axis=1)
  reduced, pivots = _row_reduce(augmented, squares)
  rank = len(pivots)
  if reduced[rank:, -1].any():
    raise ValueError(f"this {size}x{size} board cannot be turned off")
  solution = np.zeros(squares, np.int8)
  solution[pivots] = reduced[:rank, -1]
  free = [col for col in range(squares) if col not in pivots]
  if len(free) > MAX_NULL_DIMENSION:
    raise ValueError(f"null space of dimension {len(free)} is too large")
  null_basis = []
  for col in free:
    vector = np.zeros(squares, np.int8)
    vector[col] = 1
    vector[pivots] = reduced[:rank, col]
    null_basis.append(vector)
  best = solution
  for mask in itertools.product((0, 1), repeat=len(null_basis)):
    candidate = solution.copy()
    for use, vector in zip(mask, null_basis):
      if use:
        candidate ^= vector
    if candidate.sum() < best.sum():
      best = candidate
  return best


class _Tables(NamedTuple):
  """A size's solution as linear maps over GF(2), for many boards at once."""
  particular: np.ndarray  # [squares, squares]: board -> one solution.
  consistency: np.ndarray  # [squares - rank, squares]: 0 on solvable boards.
  null_combinations: np.ndarray  # [2^nullity, squares]: presses that do
  # nothing.


@functools.lru_cache(maxsize=8)
def _tables(size: int) -> _Tables:
  squares = size * size
  reduced, pivots = _row_reduce(np.concatenate(
      [lights_out.toggle_table(size).T, np.eye(squares, dtype=np.int8)],
      axis=1), squares)
  rank = len(pivots)
  free = [col for col in range(squares) if col not in pivots]
  if len(free) > MAX_NULL_DIMENSION:
    raise ValueError(f"null space of dimension {len(free)} is too large")
  elimination = reduced[:, squares:]  # E: E T^T = the reduced form.
  particular = np.zeros((squares, squares), np.int8)
  particular[pivots] = elimination[:rank]
  basis = np.zeros((len(free), squares), np.int8)
  for index, col in enumerate(free):
    basis[index, col] = 1
    basis[index, pivots] = reduced[:rank, col]
  # [2^k, k]; one empty combination, [1, 0], where there is no null space.
  masks = np.array(list(itertools.product((0, 1), repeat=len(free))),
                   np.int8)
  return _Tables(particular, elimination[rank:], masks @ basis % 2)


def fewest_presses(boards: np.ndarray, size: int) -> np.ndarray:
  """[B] the fewest presses that turn each of [B, size²] boards off (the
  exact cost-to-go, what `solve` gives one board at a time), at once.

  Raises:
    ValueError: a board is not size² values 0/1, or cannot be turned off.
  """
  squares = size * size
  boards = np.asarray(boards, np.int64)
  if (boards.ndim != 2 or boards.shape[1] != squares or
      not np.isin(boards, (0, 1)).all()):
    raise ValueError(f"boards must be [B, {squares}] values 0/1, got shape "
                     f"{boards.shape}")
  tables = _tables(size)
  unsolvable = np.flatnonzero((boards @ tables.consistency.T % 2).any(axis=1))
  if unsolvable.size:
    raise ValueError(f"board {unsolvable[0]} of this {size}x{size} batch "
                     f"cannot be turned off")
  solutions = boards @ tables.particular.T % 2
  return (solutions[:, None, :] ^ tables.null_combinations[None]).sum(
      axis=2).min(axis=1)


def random_reachable_boards(size: int, count: int, seed: int) -> np.ndarray:
  """[count, size²] boards drawn uniformly among those that can be solved."""
  rng = np.random.RandomState(seed)
  presses = rng.randint(0, 2, (count, size * size))
  return (presses @ lights_out.toggle_table(size) % 2).astype(np.int8)
