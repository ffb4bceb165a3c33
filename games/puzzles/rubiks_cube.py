"""Rubik's cube (3×3×3 and 2×2×2): sticker tables, the pyspiel game, the batched engine.

A state is the colour of every sticker: 6·size² values in 0..5, faces in the
order U R F D L B and each face's stickers in reading order as seen from
outside in the usual net (U with B above it, D with F above it, the side faces
upright). Colour k is the colour of face k when solved.

Moves are the 12 quarter turns U U' D D' L L' R R' B B' F F' (action 2k is a
clockwise turn of a face seen from outside, action 2k+1 its inverse); half
turns are two moves (the quarter-turn metric). Every move is a sticker
permutation, `state[move_permutations(size)[a]]`, computed once from the
stickers' 3-D positions; both engines use that table.

Goal: on 3×3×3 the solved cube in the standard orientation (centres never
move). The 2×2×2 has no centres, so its orientation is not a property of a
position: it is solved when every face shows one colour, in any of the 24
whole-cube orientations.

Notation: the six faces' colours as letters URFDLB, faces joined by `/` in
the order U R F D L B ("UUUUUUUUU/RRRRRRRRR/..." is solved).

Game: `rubiks_cube(size=3, scramble_moves=20, seed=0, state="",
max_length=...)`; the observation tensor is DeepCubeA's one-hot encoding,
[6·size², 6].
"""

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.games import validation
from open_spiel_ext.games.puzzles import single_player

_SHORT_NAME = "rubiks_cube"
FACES = "URFDLB"
MOVE_NAMES = ("U", "U'", "D", "D'", "L", "L'", "R", "R'", "B", "B'", "F",
              "F'")
TURNED_FACES = "UDLRBF"  # Face of actions 2k and 2k+1.
NUM_MOVES = len(MOVE_NAMES)
NUM_COLOURS = 6

_AXES = {"x": np.array([1, 0, 0]), "y": np.array([0, 1, 0]),
         "z": np.array([0, 0, 1])}
# Outward normal, and the directions of "up" and "right" on the net.
_FACE_FRAMES = {
    "U": (_AXES["y"], -_AXES["z"], _AXES["x"]),
    "R": (_AXES["x"], _AXES["y"], -_AXES["z"]),
    "F": (_AXES["z"], _AXES["y"], _AXES["x"]),
    "D": (-_AXES["y"], _AXES["z"], _AXES["x"]),
    "L": (-_AXES["x"], _AXES["y"], _AXES["z"]),
    "B": (-_AXES["z"], _AXES["y"], -_AXES["x"]),
}


def inverse_move(action: int) -> int:
  """The move that undoes `action` (U <-> U', ...)."""
  return action ^ 1


@functools.lru_cache(maxsize=None)
def sticker_positions(size: int) -> np.ndarray:
  """[6·size², 3] int: each sticker's position, faces at ±size.

  Cubie centres sit at odd (size 2) or even (size 3) coordinates in
  [-(size-1), size-1]; a sticker lies one unit beyond its cubie.
  """
  positions = []
  for face in FACES:
    normal, up, right = _FACE_FRAMES[face]
    for row in range(size):
      for col in range(size):
        positions.append(size * normal + (2 * col - (size - 1)) * right -
                         (2 * row - (size - 1)) * up)
  return np.array(positions)


def _rotation(axis: np.ndarray, quarter_turns: int) -> np.ndarray:
  """The 3×3 integer matrix turning `quarter_turns`·90° about `axis`."""
  cross = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]],
                    [-axis[1], axis[0], 0]])
  matrix = np.eye(3, dtype=int)
  quarter = np.outer(axis, axis) + cross  # Counter-clockwise seen from +axis.
  for _ in range(quarter_turns % 4):
    matrix = quarter @ matrix
  return matrix


def _permutation(size: int, matrix: np.ndarray,
                 moved: np.ndarray) -> np.ndarray:
  """Sticker permutation p with new = old[p] for the stickers in `moved`."""
  positions = sticker_positions(size)
  index = {tuple(p): i for i, p in enumerate(positions)}
  inverse = matrix.T  # Rotations are orthogonal.
  permutation = np.arange(len(positions))
  for target in np.flatnonzero(moved):
    permutation[target] = index[tuple(inverse @ positions[target])]
  return permutation


@functools.lru_cache(maxsize=None)
def move_permutations(size: int) -> np.ndarray:
  """[12, 6·size²] int: action a maps state s to s[table[a]]."""
  positions = sticker_positions(size)
  table = []
  for face in TURNED_FACES:
    normal = _FACE_FRAMES[face][0]
    layer = positions @ normal >= size - 1
    for quarter_turns in (-1, 1):  # Clockwise seen from outside, then back.
      table.append(_permutation(size, _rotation(normal, quarter_turns),
                                layer))
  return np.array(table)


@functools.lru_cache(maxsize=None)
def rotation_permutations(size: int) -> np.ndarray:
  """[24, 6·size²] int: the whole-cube rotations as sticker permutations."""
  everything = np.ones(6 * size * size, bool)
  matrices = {}
  for axis in _AXES.values():
    for other in _AXES.values():
      for turns in range(4):
        for other_turns in range(4):
          matrix = _rotation(axis, turns) @ _rotation(other, other_turns)
          matrices[matrix.tobytes()] = matrix
  assert len(matrices) == 24
  return np.array([_permutation(size, m, everything)
                   for m in matrices.values()])


@functools.lru_cache(maxsize=None)
def solved(size: int) -> np.ndarray:
  """[6·size²] int8: the solved cube in the standard orientation."""
  return np.repeat(np.arange(NUM_COLOURS, dtype=np.int8), size * size)


NO_CUBIE = 255  # What `decode_cubies` gives a slot whose colours no cubie has.
_UD_AXIS, _FB_AXIS = 1, 2  # y runs D to U, z runs B to F (see _FACE_FRAMES).


@functools.lru_cache(maxsize=None)
def cubie_slots(size: int) -> tuple[np.ndarray, np.ndarray]:
  """The stickers of each corner slot [8, 3] and edge slot [12 or 0, 2].

  A corner lists its U/D-facing sticker first and the other two in one
  handedness, so that its twist (the place, 0-2, of the cubie's U/D colour)
  sums to 0 mod 3 on every real cube. An edge lists first its sticker on U or
  D if it touches one, else its sticker on F or B; its flip (0 when that
  sticker shows the cubie's U/D colour, or its F/B colour if it has none)
  sums to an even number on every real cube. The 2×2×2 has no edges.
  """
  positions = sticker_positions(size)
  normals = (np.abs(positions) == size) * np.sign(positions)
  stickers_of = {}
  for sticker, cubie in enumerate(map(tuple, positions - normals)):
    stickers_of.setdefault(cubie, []).append(sticker)
  corners, edges = [], []
  for cubie in sorted(stickers_of):
    members = stickers_of[cubie]
    if len(members) == 3:
      members.sort(key=lambda i: -abs(normals[i][_UD_AXIS]))
      if np.linalg.det(normals[members]) < 0:
        members[1], members[2] = members[2], members[1]
      corners.append(members)
    elif len(members) == 2:
      axis = _UD_AXIS if normals[members][:, _UD_AXIS].any() else _FB_AXIS
      members.sort(key=lambda i: -abs(normals[i][axis]))
      edges.append(members)
  return np.array(corners), np.array(edges, np.int64).reshape(-1, 2)


def _colour_codes(colours: np.ndarray) -> np.ndarray:
  """[..., k] colours -> [...] one integer per colour sequence."""
  codes = np.zeros(colours.shape[:-1], np.int64)
  for place in range(colours.shape[-1]):
    codes = codes * NUM_COLOURS + colours[..., place]
  return codes


@functools.lru_cache(maxsize=None)
def _slot_decoder(size: int, edges: bool) -> tuple[np.ndarray, np.ndarray]:
  """Colour code of a slot's stickers -> (cubie, orientation), or NO_CUBIE."""
  slots = cubie_slots(size)[int(edges)]
  width = slots.shape[1]
  cubie = np.full(NUM_COLOURS**width, NO_CUBIE, np.uint8)
  orientation = np.full(NUM_COLOURS**width, NO_CUBIE, np.uint8)
  for index, colours in enumerate(solved(size)[slots]):
    for turn in range(width):
      code = _colour_codes(np.roll(colours, turn))  # First colour at `turn`.
      cubie[code], orientation[code] = index, turn
  return cubie, orientation


def decode_cubies(states: np.ndarray, size: int,
                  edges: bool = False) -> tuple[np.ndarray, np.ndarray]:
  """[N, stickers] -> the cubie in each corner (or edge) slot and its twist
  (or flip), [N, slots] uint8 each; NO_CUBIE where no cubie has the colours.

  Cubie i is the one whose home is slot i of `cubie_slots(size)`.
  """
  slots = cubie_slots(size)[int(edges)]
  cubie, orientation = _slot_decoder(size, edges)
  codes = _colour_codes(np.asarray(states)[:, slots])
  return cubie[codes], orientation[codes]


def slot_name(stickers: np.ndarray, size: int) -> str:
  """A slot named by the faces of its stickers, e.g. UFR."""
  return "".join(FACES[sticker // (size * size)] for sticker in stickers)


def _is_odd(permutation: np.ndarray) -> bool:
  """Whether a permutation of 0..n-1 has odd parity (by its cycles)."""
  seen = np.zeros(len(permutation), bool)
  cycles = 0
  for start in range(len(permutation)):
    if not seen[start]:
      cycles += 1
      while not seen[start]:
        seen[start] = True
        start = permutation[start]
  return (len(permutation) - cycles) % 2 == 1


def check_real_cube(state: np.ndarray, size: int) -> None:
  """Raises ValueError, naming the condition that fails, unless turns can
  reach `state` from the solved cube (in some whole-cube orientation).

  The conditions: 6·size² colours in 0..5; on 3×3×3 the centres in the
  standard orientation (they never move); every corner (and edge) slot shows
  the colours of a real cubie; every cubie appears once; corner twists sum to
  0 mod 3, edge flips to an even number; and on 3×3×3 the corner and edge
  permutations have the same parity (a quarter turn is a 4-cycle of each).
  """
  state = np.asarray(state)
  if state.shape != solved(size).shape or not np.isin(
      state, np.arange(NUM_COLOURS)).all():
    raise ValueError(f"a {size}x{size}x{size} cube is {solved(size).size} "
                     f"colours in 0..{NUM_COLOURS - 1}, got {state.tolist()}")
  if size == 3 and (state.reshape(6, 9)[:, 4] != np.arange(6)).any():
    raise ValueError(
        f"the centres are {''.join(FACES[c] for c in state.reshape(6, 9)[:, 4])}"
        f", not {FACES} (the standard orientation; centres never move)")
  kinds = [("corner", False), ("edge", True)][:2 if size == 3 else 1]
  odd = []
  for kind, edges in kinds:
    slots = cubie_slots(size)[int(edges)]
    cubies, turns = (values[0] for values in decode_cubies(state[None], size,
                                                           edges))
    for slot, cubie in zip(slots, cubies):
      if cubie == NO_CUBIE:
        colours = "".join(FACES[c] for c in state[slot])
        raise ValueError(f"the {kind} at {slot_name(slot, size)} shows "
                         f"{colours}, which no {kind} of a cube has")
    counts = np.bincount(cubies, minlength=len(slots))
    if (counts != 1).any():
      twice, missing = (slot_name(slots[np.flatnonzero(test)[0]], size)
                        for test in (counts > 1, counts == 0))
      raise ValueError(f"the {kind} {twice} appears {counts.max()} times and "
                       f"the {kind} {missing} not at all")
    if kind == "corner" and turns.sum() % 3:
      raise ValueError(f"the corner twists sum to {turns.sum() % 3} mod 3, "
                       "not 0: a corner is twisted in place")
    if kind == "edge" and turns.sum() % 2:
      raise ValueError("the edge flips sum to an odd number: an edge is "
                       "flipped in place")
    odd.append(_is_odd(cubies))
  if len(odd) == 2 and odd[0] != odd[1]:
    parity = {True: "odd", False: "even"}
    raise ValueError(f"the corner permutation is {parity[odd[0]]} and the "
                     f"edge permutation {parity[odd[1]]}: two pieces are "
                     "swapped")


class RubiksCube(single_player.Puzzle):
  """The rules of the size×size×size cube."""

  def __init__(self, size: int):
    self.name = _SHORT_NAME
    self.size = size
    self.num_actions = NUM_MOVES
    self.goal = solved(size)
    self.tensor_shape = (6 * size * size, NUM_COLOURS)
    self._moves = move_permutations(size)

  def next_state(self, state: np.ndarray, action: int) -> np.ndarray:
    return state[self._moves[action]]

  def is_goal(self, state: np.ndarray) -> bool:
    faces = state.reshape(NUM_COLOURS, -1)
    return bool((faces == faces[:, :1]).all())  # Centres fix 3×3×3's frame.

  def action_name(self, action: int) -> str:
    return MOVE_NAMES[action]

  def encode(self, state: np.ndarray) -> np.ndarray:
    return np.eye(NUM_COLOURS, dtype=np.float32)[state]

  def to_string(self, state: np.ndarray) -> str:
    letters = np.array(list(FACES))[state].reshape(NUM_COLOURS, -1)
    return "/".join("".join(face) for face in letters)

  def parse(self, text: str) -> np.ndarray:
    stickers = self.size * self.size
    faces = text.strip().split("/")
    if len(faces) != NUM_COLOURS or any(
        len(face) != stickers or set(face) - set(FACES) for face in faces):
      raise ValueError(
          f"{_SHORT_NAME}: state={text!r} is not 6 faces of {stickers} "
          f"letters from {FACES} joined by '/'")
    state = np.array([FACES.index(c) for c in "".join(faces)], np.int8)
    counts = np.bincount(state, minlength=NUM_COLOURS)
    if (counts != stickers).any():
      raise ValueError(f"{_SHORT_NAME}: state={text!r} has colour counts "
                       f"{dict(zip(FACES, counts))}, not {stickers} each")
    try:
      check_real_cube(state, self.size)
    except ValueError as error:
      raise ValueError(f"{_SHORT_NAME}: state={text!r} is not a position of a "
                       f"real cube: {error}") from None
    return state


class RubiksCubeGame(single_player.PuzzleGame):
  """The Rubik's cube as a one-player pyspiel game."""

  GAME_TYPE = single_player.puzzle_game_type(_SHORT_NAME, "Rubik's Cube",
                                             {"size": 3}, max_length=1000)

  def make_puzzle(self, params: dict[str, Any]) -> RubiksCube:
    validation.require_in_range(_SHORT_NAME, "size", params["size"], 2, 3)
    return RubiksCube(params["size"])


single_player.register(RubiksCubeGame)


class BatchedCube(single_player.BatchedPuzzle):
  """Jitted functions over a batch of [6·size²] int8 sticker states."""

  def __init__(self, size: int = 3):
    self.size = size
    self.num_actions = NUM_MOVES
    self.goal = jnp.asarray(solved(size))
    self._moves = jnp.asarray(move_permutations(size))
    self._undo = self._moves[jnp.asarray(
        [inverse_move(a) for a in range(NUM_MOVES)])]
    self.next_states = jax.jit(lambda states: states[:, self._moves])
    self.prev_states = jax.jit(lambda states: states[:, self._undo])
    self.step = jax.jit(self._step)
    self.is_goal = jax.jit(self._is_goal)
    self.encode = jax.jit(
        lambda states: jax.nn.one_hot(states, NUM_COLOURS, dtype=jnp.float32))
    self.random_scrambles = jax.jit(self._random_scrambles,
                                    static_argnums=(1, 2))

  def check_states(self, states: np.ndarray) -> None:
    """Raises ValueError unless every row is a real cube of this size."""
    states = np.asarray(states)
    if states.ndim != 2 or states.shape[1] != self.goal.shape[0]:
      raise ValueError(f"{self.size}x{self.size}x{self.size} cube states have "
                       f"shape [N, {self.goal.shape[0]}], got {states.shape}")
    for row, state in enumerate(states):
      try:
        check_real_cube(state, self.size)
      except ValueError as error:
        raise ValueError(f"state {row} ({RubiksCube(self.size).to_string(state)}"
                         f") is not a position of a real cube: {error}") from None

  def _step(self, states: jax.Array, actions: jax.Array) -> jax.Array:
    """[batch, stickers], [batch] -> the states after one move each."""
    return jnp.take_along_axis(states, self._moves[actions], axis=1)

  def _is_goal(self, states: jax.Array) -> jax.Array:
    faces = states.reshape(states.shape[0], NUM_COLOURS, -1)
    return jnp.all(faces == faces[:, :, :1], axis=(1, 2))

  def _random_scrambles(self, key: jax.Array, batch: int,
                        moves: int) -> jax.Array:
    """`batch` solved cubes each turned by `moves` uniformly random moves."""
    actions = jax.random.randint(key, (moves, batch), 0, NUM_MOVES)
    start = jnp.broadcast_to(self.goal, (batch, self.goal.shape[0]))
    return jax.lax.fori_loop(0, moves,
                             lambda i, s: self._step(s, actions[i]), start)


single_player.register_sized_engine(_SHORT_NAME, BatchedCube)
