"""Seeded puzzle instances and their optimal solution lengths from the
exact solvers.

Instances follow DeepCubeA's test sets: sliding puzzles scrambled by 1,000
to 10,000 random moves, cubes by 100 random quarter turns, Lights Out boards
uniformly random among the solvable ones. Optimal lengths come from the
exact solvers where one is within reach: IDA* for the 8-puzzle (Manhattan +
linear conflicts) and the 15-puzzle (6-6-3 pattern databases), the 2×2×2
distance table, GF(2) for Lights Out. The 3×3×3 cube and larger sliding
puzzles get instances without optimal lengths (None). Each puzzle's way of
drawing and solving instances is one entry of a table keyed by its game
name.
"""

import dataclasses
import functools
from typing import Callable, Iterator, NamedTuple, Optional

import numpy as np

from open_spiel_ext.experiments.puzzle_references import cube_solvers
from open_spiel_ext.experiments.puzzle_references import lights_out_gf2
from open_spiel_ext.experiments.puzzle_references import sliding_solvers
from open_spiel_ext.games.puzzles import single_player


@dataclasses.dataclass
class Instance:
  state: str  # In the game's notation: `pyspiel.load_game(name(state=...))`.
  optimal_length: Optional[int]
  solution: Optional[list[str]]


class _Kind(NamedTuple):
  """How a puzzle's instances are drawn and solved."""
  # (size, count, seed) -> `count` seeded states.
  draw: Callable[[int, int, int], list[np.ndarray]]
  # (size, state) -> an optimal move sequence, or None out of reach.
  solve: Callable[[int, np.ndarray], Optional[list[int]]]
  # (size, [B, D] states) -> [B] optimal lengths, or None where no solver
  # does many states at once.
  distances: Callable[[int, np.ndarray], Optional[np.ndarray]]


def make_puzzle(name: str, size: int) -> single_player.Puzzle:
  """The rules of a puzzle, by game name; ValueError for a size it lacks."""
  _kind(name)
  return single_player.rules(name, size)


def _draw_sliding_puzzle(size: int, count: int,
                         seed: int) -> list[np.ndarray]:
  puzzle = make_puzzle("sliding_puzzle", size)
  rng = np.random.RandomState(seed)
  return [puzzle.scramble(rng.randint(1000, 10001), rng.randint(2**31))
          for _ in range(count)]


def _draw_rubiks_cube(size: int, count: int, seed: int) -> list[np.ndarray]:
  puzzle = make_puzzle("rubiks_cube", size)
  rng = np.random.RandomState(seed)
  return [puzzle.scramble(100, rng.randint(2**31)) for _ in range(count)]


def _draw_lights_out(size: int, count: int, seed: int) -> list[np.ndarray]:
  return list(lights_out_gf2.random_reachable_boards(size, count, seed))


@functools.lru_cache(maxsize=1)
def _fifteen_puzzle_heuristic() -> sliding_solvers.AdditivePatternDatabase:
  """The 6-6-3 tables, loaded (or built) once for a whole set."""
  return sliding_solvers.AdditivePatternDatabase(
      4, sliding_solvers.FIFTEEN_PUZZLE_PARTITION)


def _solve_sliding_puzzle(size: int,
                          state: np.ndarray) -> Optional[list[int]]:
  if size == 3:
    return sliding_solvers.solve(state, 3).actions
  if size == 4:
    return sliding_solvers.solve(state, 4, _fifteen_puzzle_heuristic()).actions
  return None


def _solve_rubiks_cube(size: int, state: np.ndarray) -> Optional[list[int]]:
  return cube_solvers.solve_two_by_two(state) if size == 2 else None


def _solve_lights_out(size: int, state: np.ndarray) -> list[int]:
  return [int(a) for a in np.flatnonzero(lights_out_gf2.solve(state, size))]


def _rubiks_cube_distances(size: int,
                           states: np.ndarray) -> Optional[np.ndarray]:
  return cube_solvers.corner_distance(states) if size == 2 else None


_KINDS = {
    "sliding_puzzle": _Kind(_draw_sliding_puzzle, _solve_sliding_puzzle,
                            lambda size, states: None),
    "rubiks_cube": _Kind(_draw_rubiks_cube, _solve_rubiks_cube,
                         _rubiks_cube_distances),
    "lights_out": _Kind(_draw_lights_out, _solve_lights_out,
                        lambda size, states: lights_out_gf2.fewest_presses(
                            states, size)),
}
PUZZLES = tuple(_KINDS)


def _kind(name: str) -> _Kind:
  if name not in _KINDS:
    raise ValueError(f"puzzle must be one of {PUZZLES}, got {name!r}")
  return _KINDS[name]


def scrambled_states(name: str, size: int, count: int,
                     seed: int) -> list[np.ndarray]:
  """`count` seeded instances drawn as DeepCubeA's test sets are."""
  return _kind(name).draw(size, count, seed)


def optimal_solution(name: str, size: int,
                     state: np.ndarray) -> Optional[list[int]]:
  """An optimal move sequence, or None where no exact solver is in reach."""
  return _kind(name).solve(size, state)


def exact_distances(name: str, size: int,
                    states: np.ndarray) -> Optional[np.ndarray]:
  """[B] optimal lengths of [B, D] states at once (Lights Out over GF(2),
  the 2×2×2 cube from its table), or None where no exact solver does many
  states at once."""
  return _kind(name).distances(size, np.asarray(states))


def generate(name: str, size: int, count: int, seed: int,
             solve: bool = True, start: int = 0) -> Iterator[Instance]:
  """Instances with their optimal lengths and solutions (if `solve`), from
  the `start`-th of the `count` on (those before are neither made nor
  solved: a resumed run)."""
  puzzle = make_puzzle(name, size)
  for state in scrambled_states(name, size, count, seed)[start:]:
    actions = optimal_solution(name, size, state) if solve else None
    yield Instance(
        state=puzzle.to_string(state),
        optimal_length=None if actions is None else len(actions),
        solution=None if actions is None else
        [puzzle.action_name(a) for a in actions])
