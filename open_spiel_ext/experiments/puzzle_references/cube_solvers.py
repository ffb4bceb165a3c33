"""Rubik's cube solvers: the exact 2×2×2 distance table and 3×3×3 IDA*.

Corners. Each of the 8 corner slots holds three stickers, listed with the
U/D-facing sticker first and the other two in a fixed handedness, so that a
corner's orientation (which of its three stickers shows its U/D colour) sums
to 0 mod 3 over the cube. A corner state is indexed by the Lehmer rank of
the corner permutation times 3^7 plus the first 7 orientations:
8!·3^7 = 88,179,840 indices.

2×2×2 table. A 2×2×2 position is the same position in any of its 24
whole-cube orientations, so the table is built by breadth-first search from
the solved cube with the moves of U, R and F only, which never move the DBL
corner; every position, rotated so that its DBL corner is home, is reached,
and its distance is the optimal solution length with all 12 moves (a D turn
is a U turn and a rotation). 7!·3^6 = 3,674,160 positions, a few seconds.

3×3×3. IDA* (`ida_star.py`) with the 2×2×2 table of the cube's corners as
its heuristic: any 3×3×3 solution also solves its corners, so it is
admissible. It is a corner pattern database modulo orientation, weaker than
Korf's fixed-orientation corner database and without his edge databases, so
it optimally solves scrambles of up to about 14 quarter turns on this
machine (`benchmarks/puzzle_solvers.py` measures where the time goes).
Any 3×3×3 position, not optimally: Kociemba's two-phase algorithm through
the `kociemba` package (in the `benchmarks` extra), which finds solutions of
at most about 22 face turns (half turns count once) in milliseconds;
`solve_two_phase` returns them as quarter turns (a half turn is two).
"""

import functools
import math
import sys
from typing import Optional

import numpy as np

from open_spiel_ext.algorithms.puzzle_solvers import ida_star
from open_spiel_ext.games.puzzles import rubiks_cube

NUM_CORNER_STATES = math.factorial(8) * 3**7
UNSEEN = 255
_BATCH = 1 << 16  # States indexed at once; keeps temporaries in cache.


def corner_stickers(size: int) -> np.ndarray:
  """Indices of a cube's corner stickers, in the 2×2×2 sticker order."""
  if size == 2:
    return np.arange(24)
  corners_of_face = np.array([0, size - 1, size * (size - 1), size * size - 1])
  return (np.arange(6)[:, None] * size * size + corners_of_face).ravel()


def decode_corners(stickers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
  """[N, 24] 2×2×2 stickers -> cubie in each slot [N, 8], orientation [N, 8]."""
  return rubiks_cube.decode_cubies(stickers, 2)


_FACTORIALS = np.array([math.factorial(7 - i) for i in range(8)], np.int64)
_TWIST_WEIGHTS = 3**np.arange(7, dtype=np.int64)


def corner_index(stickers: np.ndarray) -> np.ndarray:
  """[N, 24] 2×2×2 stickers -> [N] indices in [0, 8!·3^7)."""
  cubies, twists = decode_corners(stickers)
  if (cubies == rubiks_cube.NO_CUBIE).any():
    bad = np.flatnonzero((cubies == rubiks_cube.NO_CUBIE).any(axis=1))[0]
    raise ValueError(f"state {stickers[bad].tolist()} has a corner whose "
                     f"colours no cube corner has")
  by_slot = np.ascontiguousarray(cubies.T)  # [8, N]: fast row compares.
  rank = np.zeros(len(cubies), np.int64)
  for slot in range(7):  # Lehmer code: later cubies smaller than this one.
    later_smaller = (by_slot[slot + 1:] < by_slot[slot]).sum(0)
    rank += later_smaller * _FACTORIALS[slot]
  return rank * 3**7 + twists[:, :7].astype(np.int64) @ _TWIST_WEIGHTS


@functools.lru_cache(maxsize=None)
def _canonical_rotations() -> np.ndarray:
  """[8, 3, 24]: the rotation bringing a DBL corner at (slot, twist) home."""
  rotations = rubiks_cube.rotation_permutations(2)
  dbl = _home_slot_of_dbl()
  table = np.zeros((8, 3, 24), np.int64)
  for rotation in rotations:
    cubies, twists = decode_corners(rubiks_cube.solved(2)[rotation][None])
    slot = int(np.flatnonzero(cubies[0] == dbl)[0])
    inverse = np.argsort(rotation)
    table[slot, twists[0, slot]] = inverse
  return table


def _home_slot_of_dbl() -> int:
  slots = rubiks_cube.cubie_slots(2)[0]
  positions = rubiks_cube.sticker_positions(2)
  return int(next(i for i, slot in enumerate(slots)
                  if (np.sign(positions[slot[0]]) == -1).all()))


def canonical_corners(stickers: np.ndarray) -> np.ndarray:
  """[N, 24] 2×2×2 stickers turned as a whole so the DBL corner is home."""
  cubies, twists = decode_corners(stickers)
  rows = np.arange(len(stickers))
  slot = np.argmax(cubies == _home_slot_of_dbl(), axis=1)
  rotation = _canonical_rotations()[slot, twists[rows, slot]]
  return np.take_along_axis(stickers, rotation, axis=1)


def _half_turns(moves: np.ndarray) -> np.ndarray:
  return np.array([move[move] for move in moves])


def dbl_fixed_moves(metric: str) -> np.ndarray:
  """2×2×2 generators U, R, F (and their inverses, and half turns for HTM)."""
  if metric not in ("quarter", "half"):
    raise ValueError(f"metric must be 'quarter' or 'half', got {metric!r}")
  moves = rubiks_cube.move_permutations(2)
  names = rubiks_cube.MOVE_NAMES
  quarter = moves[[names.index(n) for n in ("U", "U'", "R", "R'", "F", "F'")]]
  return quarter if metric == "quarter" else np.concatenate(
      [quarter, _half_turns(quarter[::2])])


def breadth_first_distances(moves: np.ndarray,
                            start: np.ndarray,
                            verbose: bool = True) -> np.ndarray:
  """Distances from `start` over corner states: [8!·3^7] uint8, 255 unseen."""
  distances = np.full(NUM_CORNER_STATES, UNSEEN, np.uint8)
  frontier = start[None]
  distances[corner_index(frontier)] = 0
  depth = 0
  while len(frontier):
    if verbose:
      print(f"  depth {depth:2d}: {len(frontier):>9,} states", file=sys.stderr,
            flush=True)
    children = frontier[:, moves].reshape(-1, frontier.shape[1])
    indices = np.concatenate([
        corner_index(children[low:low + _BATCH])
        for low in range(0, len(children), _BATCH)
    ])
    indices, first = np.unique(indices, return_index=True)
    new = distances[indices] == UNSEEN
    depth += 1
    distances[indices[new]] = depth
    frontier = children[first[new]]
  return distances


@functools.lru_cache(maxsize=None)
def two_by_two_table(metric: str = "quarter") -> np.ndarray:
  """Optimal solution lengths of every 2×2×2 position (DBL corner home)."""
  return breadth_first_distances(dbl_fixed_moves(metric),
                                 rubiks_cube.solved(2))


def distance_distribution(table: np.ndarray) -> dict[int, int]:
  """Number of positions at each distance."""
  counts = np.bincount(table[table != UNSEEN])
  return {depth: int(count) for depth, count in enumerate(counts)}


def corner_distance(stickers: np.ndarray, metric: str = "quarter") -> np.ndarray:
  """[N, 24] corner stickers (any orientation) -> [N] optimal 2×2×2 lengths."""
  return two_by_two_table(metric)[corner_index(canonical_corners(stickers))]


def solve_two_by_two(state: np.ndarray) -> list[int]:
  """An optimal quarter-turn solution (12-move actions) of a 2×2×2 state."""
  moves = rubiks_cube.move_permutations(2)
  state = np.asarray(state)
  rubiks_cube.check_real_cube(state, 2)
  distance = int(corner_distance(state[None])[0])
  actions = []
  while distance:
    children = state[moves]
    action = int(np.argmin(corner_distance(children)))
    state, distance = children[action], distance - 1
    actions.append(action)
  return actions


def facelets(state: np.ndarray) -> str:
  """A 3×3×3 state as the 54-letter facelet string of Kociemba's solvers:
  faces U R F D L B, each in reading order on the usual net, which is the
  order of this package's stickers."""
  rubiks_cube.check_real_cube(state, 3)
  return "".join(rubiks_cube.FACES[colour] for colour in np.asarray(state))


def quarter_turns(solution: str) -> list[int]:
  """Face turns in Singmaster notation ("R U' F2 ...") as quarter-turn
  actions: X is the clockwise action of face X, X' its inverse, X2 two
  clockwise actions."""
  actions = []
  for turn in solution.split():
    face, suffix = turn[0], turn[1:]
    if face not in rubiks_cube.FACES or suffix not in ("", "'", "2"):
      raise ValueError(f"not a face turn: {turn!r} in {solution!r}")
    clockwise = 2 * rubiks_cube.TURNED_FACES.index(face)
    actions += {"": [clockwise], "'": [clockwise + 1],
                "2": [clockwise, clockwise]}[suffix]
  return actions


def solve_two_phase(state: np.ndarray) -> list[int]:
  """A (short, not optimal) quarter-turn solution of a 3×3×3 state by
  Kociemba's two-phase algorithm (the `kociemba` package)."""
  try:
    import kociemba  # pylint: disable=g-import-not-at-top
  except ImportError as error:
    raise ImportError("the two-phase solver needs the kociemba package: pip "
                      "install 'open_spiel_ext[benchmarks]'") from error
  return quarter_turns(kociemba.solve(facelets(state)))


def solve_three_by_three(state: np.ndarray,
                         max_nodes: Optional[int] = None,
                         chunk_size: int = 32768) -> ida_star.SearchResult:
  """An optimal quarter-turn solution of a 3×3×3 state, by IDA*."""
  rubiks_cube.check_real_cube(state, 3)
  moves = rubiks_cube.move_permutations(3)
  corners = corner_stickers(3)
  goal = rubiks_cube.solved(3)
  inverses = np.array([rubiks_cube.inverse_move(a)
                       for a in range(rubiks_cube.NUM_MOVES)])
  return ida_star.ida_star(
      start=np.asarray(state, np.int8),
      expand=lambda states: (states[:, moves],
                             np.ones((len(states), len(moves)), bool)),
      heuristic=lambda states: corner_distance(states[:, corners]).astype(
          np.int64),
      is_goal=lambda states: (states == goal).all(axis=1),
      inverse_actions=inverses,
      chunk_size=chunk_size,
      max_nodes=max_nodes)
