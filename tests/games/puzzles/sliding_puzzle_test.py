"""Sliding puzzles: rules, the batched engine's scrambles, optimal solvers
(`puzzle_conformance_test.py` checks the engine against the game,
`bad_input_test.py` the refusal of bad parameters)."""

import collections

import jax
import numpy as np
import pytest

from open_spiel_ext.experiments.puzzle_references import sliding_solvers
from open_spiel_ext.games.puzzles import sliding_puzzle
import pyspiel


@pytest.fixture(autouse=True)
def pattern_tables_in_a_temporary_cache(monkeypatch, tmp_path):
  monkeypatch.setenv("OPEN_SPIEL_EXT_CACHE", str(tmp_path))


@pytest.fixture(scope="module")
def eight_puzzle_distances() -> tuple[np.ndarray, np.ndarray]:
  """Every reachable 8-puzzle board and its distance, by breadth-first search."""
  puzzle = sliding_puzzle.SlidingPuzzle(3)
  distances = {puzzle.goal.tobytes(): 0}
  frontier = collections.deque([puzzle.goal])
  while frontier:
    board = frontier.popleft()
    for action in puzzle.legal_actions(board):
      child = puzzle.next_state(board, action)
      if child.tobytes() not in distances:
        distances[child.tobytes()] = distances[board.tobytes()] + 1
        frontier.append(child)
  boards = np.array([np.frombuffer(k, np.int8) for k in distances])
  return boards, np.array(list(distances.values()))


def test_the_blank_moves_and_never_leaves_the_tray():
  state = pyspiel.load_game(
      "sliding_puzzle(size=3,state=1 2 3/4 5 6/7 0 8)").new_initial_state()
  assert [state.action_to_string(0, a) for a in state.legal_actions()] == [
      "U", "L", "R"]
  state.apply_action(3)  # The blank moves right: 8 slides left.
  assert str(state) == "1 2 3/4 5 6/7 8 0"
  assert state.is_terminal() and state.returns() == [-1.0]
  corner = pyspiel.load_game("sliding_puzzle(size=4,state=0 1 2 3/4 5 6 7/"
                             "8 9 10 11/12 13 15 14)").new_initial_state()
  assert corner.legal_actions() == [1, 3]  # Down and right only.
  with pytest.raises(pyspiel.SpielError, match="action 0 is not legal"):
    corner.apply_action(0)


def test_solvability_is_the_parity_of_reachable_boards(eight_puzzle_distances):
  boards, distances = eight_puzzle_distances
  assert len(boards) == 181_440 and distances.max() == 31
  puzzle = sliding_puzzle.SlidingPuzzle(3)
  swapped = puzzle.goal.copy()
  swapped[[0, 1]] = swapped[[1, 0]]
  assert not sliding_puzzle.is_solvable(swapped, 3)
  assert all(sliding_puzzle.is_solvable(b, 3) for b in boards[::1000])
  fifteen = sliding_puzzle.SlidingPuzzle(4)
  for seed in range(20):
    board = fifteen.scramble(200, seed)
    assert sliding_puzzle.is_solvable(board, 4)
    tiles = np.flatnonzero(board)[:2]
    board[tiles] = board[tiles[::-1]]  # Swapping two tiles flips the parity.
    assert not sliding_puzzle.is_solvable(board, 4)


def test_batched_scrambles_are_solvable_boards():
  engine = sliding_puzzle.BatchedSlidingPuzzle(4)
  boards = engine.random_scrambles(jax.random.PRNGKey(2), 256, 60)
  assert all(sliding_puzzle.is_solvable(b, 4) for b in np.asarray(boards))


def test_heuristics_are_admissible_and_pattern_tables_exact(
    eight_puzzle_distances):
  boards, distances = eight_puzzle_distances
  manhattan = sliding_solvers.ManhattanLinearConflict(3)(boards)
  assert (manhattan <= distances).all() and manhattan.mean() > 15
  halves = sliding_solvers.AdditivePatternDatabase(
      3, [(1, 2, 3, 4), (5, 6, 7, 8)], verbose=False)(boards)
  assert (halves <= distances).all() and halves.mean() > manhattan.mean()
  whole = sliding_solvers.AdditivePatternDatabase(
      3, [tuple(range(1, 9))], verbose=False)(boards)
  np.testing.assert_array_equal(whole, distances)


def test_linear_conflicts_count_tiles_to_remove_not_pairs():
  heuristic = sliding_solvers.ManhattanLinearConflict(3)
  # 3 2 1 in the top row: two tiles must leave the row, not three pairs.
  board = np.array([[3, 2, 1, 4, 5, 6, 7, 8, 0]], np.int8)
  assert heuristic(board)[0] == 4 + 2 * 2


def test_ida_star_is_optimal(eight_puzzle_distances):
  boards, distances = eight_puzzle_distances
  rng = np.random.RandomState(0)
  for index in rng.choice(len(boards), 25, replace=False):
    result = sliding_solvers.solve(boards[index], 3)
    assert len(result.actions) == distances[index]
    board = boards[index]
    puzzle = sliding_puzzle.SlidingPuzzle(3)
    for action in result.actions:
      board = puzzle.next_state(board, action)
    assert puzzle.is_goal(board)
  hardest = boards[distances == 31][0]
  assert len(sliding_solvers.solve(hardest, 3).actions) == 31


def test_fifteen_puzzle_with_manhattan_and_small_patterns_agree(tmp_path):
  puzzle = sliding_puzzle.SlidingPuzzle(4)
  board = puzzle.scramble(60, seed=5)
  plain = sliding_solvers.solve(board, 4)
  patterns = sliding_solvers.AdditivePatternDatabase(
      4, [(1, 2, 3), (4, 5, 6), (7, 8, 9), (10, 11, 12), (13, 14, 15)],
      verbose=False)
  with_patterns = sliding_solvers.solve(board, 4, heuristic=patterns)
  assert len(plain.actions) == len(with_patterns.actions)
  assert len(list(tmp_path.glob("open_spiel_ext/sliding_pdb_4_*.npy"))) == 5
