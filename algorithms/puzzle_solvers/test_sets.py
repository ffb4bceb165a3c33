"""Seeded puzzle test sets and their optimal solution lengths from the exact solvers.

Instances follow DeepCubeA's test sets: sliding puzzles scrambled by 1,000
to 10,000 random moves, cubes by 100 random quarter turns, Lights Out boards
uniformly random among the solvable ones. Optimal lengths come from the
exact solvers where one is within reach: IDA* for the 8-puzzle (Manhattan +
linear conflicts) and the 15-puzzle (6-6-3 pattern databases), the 2×2×2
distance table, GF(2) for Lights Out. The 3×3×3 cube and larger sliding
puzzles get instances without optimal lengths (None).
"""

import dataclasses
import functools
from typing import Iterator, Optional

import numpy as np

from open_spiel_ext.algorithms.puzzle_solvers import cube_solvers
from open_spiel_ext.algorithms.puzzle_solvers import lights_out_gf2
from open_spiel_ext.algorithms.puzzle_solvers import sliding_solvers
from open_spiel_ext.games.puzzles import single_player
import pyspiel

PUZZLES = ("sliding_puzzle", "rubiks_cube", "lights_out")


@dataclasses.dataclass
class Instance:
  state: str  # In the game's notation: `pyspiel.load_game(name(state=...))`.
  optimal_length: Optional[int]
  solution: Optional[list[str]]


def make_puzzle(name: str, size: int) -> single_player.Puzzle:
  """The rules of a puzzle, by game name; ValueError for a size it lacks."""
  if name not in PUZZLES:
    raise ValueError(f"puzzle must be one of {PUZZLES}, got {name!r}")
  return pyspiel.load_game(name, {"size": size, "scramble_moves": 0}).puzzle


def scrambled_states(name: str, size: int, count: int,
                     seed: int) -> list[np.ndarray]:
  """`count` seeded instances drawn as DeepCubeA's test sets are."""
  if name == "lights_out":
    return list(lights_out_gf2.random_reachable_boards(size, count, seed))
  puzzle = make_puzzle(name, size)
  rng = np.random.RandomState(seed)
  if name == "rubiks_cube":
    return [puzzle.scramble(100, rng.randint(2**31)) for _ in range(count)]
  return [puzzle.scramble(rng.randint(1000, 10001), rng.randint(2**31))
          for _ in range(count)]


def optimal_solution(name: str, size: int,
                     state: np.ndarray) -> Optional[list[int]]:
  """An optimal move sequence, or None where no exact solver is in reach."""
  if name == "lights_out":
    return [int(a) for a in np.flatnonzero(lights_out_gf2.solve(state, size))]
  if name == "rubiks_cube":
    return cube_solvers.solve_two_by_two(state) if size == 2 else None
  if size == 3:
    return sliding_solvers.solve(state, 3).actions
  if size == 4:
    return sliding_solvers.solve(state, 4, _fifteen_puzzle_heuristic()).actions
  return None


@functools.lru_cache(maxsize=1)
def _fifteen_puzzle_heuristic() -> sliding_solvers.AdditivePatternDatabase:
  """The 6-6-3 tables, loaded (or built) once for a whole test set."""
  return sliding_solvers.AdditivePatternDatabase(
      4, sliding_solvers.FIFTEEN_PUZZLE_PARTITION)


def test_set(name: str, size: int, count: int, seed: int,
             solve: bool = True) -> Iterator[Instance]:
  """Instances with their optimal lengths and solutions (if `solve`)."""
  puzzle = make_puzzle(name, size)
  for state in scrambled_states(name, size, count, seed):
    actions = optimal_solution(name, size, state) if solve else None
    yield Instance(
        state=puzzle.to_string(state),
        optimal_length=None if actions is None else len(actions),
        solution=None if actions is None else
        [puzzle.action_name(a) for a in actions])
