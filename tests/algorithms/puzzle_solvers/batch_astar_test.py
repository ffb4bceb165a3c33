"""Batch weighted A*: optimal as A*, valid paths as BWAS, on three engines."""

import numpy as np
import pytest

from open_spiel_ext.algorithms.puzzle_solvers import batch_astar
from open_spiel_ext.experiments.puzzle_references import cube_solvers
from open_spiel_ext.experiments.puzzle_references import sliding_solvers
from open_spiel_ext.games.puzzles import rubiks_cube
from open_spiel_ext.games.puzzles import sliding_puzzle


def _follow(puzzle, state, actions):
  for action in actions:
    assert action in puzzle.legal_actions(state)
    state = puzzle.next_state(state, action)
  return state


def test_astar_is_optimal_on_the_eight_puzzle():
  engine = sliding_puzzle.BatchedSlidingPuzzle(3)
  puzzle = sliding_puzzle.SlidingPuzzle(3)
  heuristic = sliding_solvers.ManhattanLinearConflict(3)
  for seed in range(8):
    board = puzzle.scramble(500, seed)
    optimal = len(sliding_solvers.solve(board, 3).actions)
    result = batch_astar.batch_weighted_astar(
        board, batch_astar.engine_expander(engine), heuristic,
        lambda boards: np.asarray(engine.is_goal(boards)))
    assert len(result.actions) == optimal
    assert puzzle.is_goal(_follow(puzzle, board, result.actions))
    assert result.nodes_generated > 0 and result.expansions > 0


@pytest.mark.parametrize("weight,batch_size", [(0.5, 1), (0.7, 64), (0.8, 256)])
def test_weighted_and_batched_search_finds_valid_paths(weight, batch_size):
  engine = sliding_puzzle.BatchedSlidingPuzzle(4)
  puzzle = sliding_puzzle.SlidingPuzzle(4)
  board = puzzle.scramble(1000, seed=4)
  result = batch_astar.batch_weighted_astar(
      board, batch_astar.engine_expander(engine),
      sliding_solvers.ManhattanLinearConflict(4),
      lambda boards: np.asarray(engine.is_goal(boards)), weight=weight,
      batch_size=batch_size, max_nodes=2_000_000)
  assert result.actions is not None
  assert puzzle.is_goal(_follow(puzzle, board, result.actions))
  assert result.steps <= result.expansions


def test_an_exact_heuristic_walks_straight_to_the_goal():
  engine = rubiks_cube.BatchedCube(2)
  cube = rubiks_cube.RubiksCube(2)
  state = cube.scramble(40, seed=2)
  distance = len(cube_solvers.solve_two_by_two(state))
  result = batch_astar.batch_weighted_astar(
      state, batch_astar.engine_expander(engine),
      lambda states: cube_solvers.corner_distance(states).astype(float),
      lambda states: np.asarray(engine.is_goal(states)))
  assert len(result.actions) == distance
  assert result.expansions == distance  # Only the path is expanded.
  assert cube.is_goal(_follow(cube, state, result.actions))


@pytest.mark.parametrize("bad,named", [({"weight": 1.5}, "weight=1.5"),
                                       ({"batch_size": 0}, "batch_size=0")])
def test_bad_settings_are_named(bad, named):
  engine = rubiks_cube.BatchedCube(2)
  with pytest.raises(ValueError, match=named):
    batch_astar.batch_weighted_astar(
        rubiks_cube.solved(2), batch_astar.engine_expander(engine),
        lambda s: np.zeros(len(s)), lambda s: np.asarray(engine.is_goal(s)),
        **bad)


def _blind_search(**settings) -> batch_astar.AStarResult:
  """A search of the 15-puzzle with no heuristic, too big to finish."""
  engine = sliding_puzzle.BatchedSlidingPuzzle(4)
  board = sliding_puzzle.SlidingPuzzle(4).scramble(1000, seed=5)
  return batch_astar.batch_weighted_astar(
      board, batch_astar.engine_expander(engine),
      lambda boards: np.zeros(len(boards)),
      lambda boards: np.asarray(engine.is_goal(boards)), batch_size=256,
      **settings)


def test_a_search_stops_at_its_memory_budget():
  budget = 64 * 2**20
  before = batch_astar.resident_bytes()
  result = _blind_search(memory_limit=budget)
  assert result.actions is None
  assert result.stop_reason == batch_astar.MEMORY_BUDGET
  # It stops within a step of the budget (the test process may have grown
  # for other reasons before, which only makes it stop sooner).
  assert batch_astar.resident_bytes() - before < 2 * budget
  assert result.nodes_generated > 10_000


def test_a_search_stops_at_its_node_budget_and_says_so():
  result = _blind_search(max_nodes=5_000)
  assert result.actions is None
  assert result.stop_reason == batch_astar.NODE_BUDGET
  assert 5_000 <= result.nodes_generated < 5_000 + 256 * 4


def test_a_search_with_nothing_left_to_open_says_so():
  engine = rubiks_cube.BatchedCube(2)
  result = batch_astar.batch_weighted_astar(
      rubiks_cube.RubiksCube(2).scramble(5, seed=1),
      lambda states: (np.asarray(engine.next_states(states)),
                      np.zeros((len(states), 12), bool)),  # No moves at all.
      lambda states: np.zeros(len(states)),
      lambda states: np.asarray(engine.is_goal(states)))
  assert result.stop_reason == batch_astar.EXHAUSTED
  assert result.expansions == 1


def test_progress_reports_the_search_as_it_goes():
  reports = []
  _blind_search(max_nodes=20_000, progress=reports.append,
                progress_seconds=0.0)
  assert len(reports) > 5
  nodes = [report.nodes_generated for report in reports]
  assert nodes == sorted(nodes) and nodes[-1] > 0
  last = reports[-1]
  assert last.open_size > 0 and last.best_f >= 0 and last.best_h == 0
  assert last.memory_limit > 0 and last.nodes_per_second > 0
