"""Batch weighted A*: optimal as A*, valid paths as BWAS, on three engines."""

import numpy as np
import pytest

from open_spiel_ext.algorithms.puzzle_solvers import batch_astar
from open_spiel_ext.algorithms.puzzle_solvers import cube_solvers
from open_spiel_ext.algorithms.puzzle_solvers import sliding_solvers
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
