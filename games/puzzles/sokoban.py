"""Sokoban: push-only box puzzles in the Boxoban format, game and batched engine.

A state is one int8 per cell of a rows×cols board (10×10 by default), a sum
of the bits WALL, GOAL, BOX and PLAYER, so that one array carries the level
(walls, goals) and the position (boxes, player) and a batch may mix levels.
Actions move the player up, down, left or right (U D L R) onto a free cell,
or push a box one cell on when the cell behind it is free; boxes are never
pulled, so deadlocks exist. Solved when every box is on a goal. Off the
board counts as wall.

`moves` (forward) and `pulls` (reverse play: the player steps back, or steps
back pulling the box it faced) are written once for numpy or jax.numpy; the
pyspiel game, the batched engine and the level generator all use them.

Notation: Boxoban's characters (`#` wall, ` ` floor, `.` goal, `$` box,
`*` box on goal, `@` player, `+` player on goal), rows joined by `/`.

Game: `sokoban(level=0, state="", max_length=...)`: `level` numbers a level
in the file shipped with the package (`data/sokoban_levels.txt`, written by
`examples/generate_sokoban_levels.py`), `state` gives one instead. The
observation tensor is 4 planes (wall, goal, box, player) of rows×cols.
"""

import functools
import importlib.resources
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.games import validation
from open_spiel_ext.games.puzzles import single_player

_SHORT_NAME = "sokoban"
WALL, GOAL, BOX, PLAYER = 1, 2, 4, 8
PLANES = (WALL, GOAL, BOX, PLAYER)
MOVE_NAMES = ("U", "D", "L", "R")
_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))
_OPPOSITE = (1, 0, 3, 2)
NUM_MOVES = len(MOVE_NAMES)
SYMBOLS = {"#": WALL, " ": 0, ".": GOAL, "$": BOX, "*": BOX | GOAL,
           "@": PLAYER, "+": PLAYER | GOAL}
_CHARACTERS = {code: symbol for symbol, code in SYMBOLS.items()}
LEVEL_FILE = "sokoban_levels.txt"


@functools.lru_cache(maxsize=None)
def neighbours(rows: int, cols: int) -> np.ndarray:
  """[cells + 1, 4]: the cell one step away per direction; `cells` = outside.

  The extra last row keeps the outside outside, so two steps are two lookups.
  """
  cells = rows * cols
  table = np.full((cells + 1, NUM_MOVES), cells, np.int64)
  for cell in range(cells):
    row, col = divmod(cell, cols)
    for action, (d_row, d_col) in enumerate(_STEPS):
      if 0 <= row + d_row < rows and 0 <= col + d_col < cols:
        table[cell, action] = (row + d_row) * cols + col + d_col
  return table


def _surroundings(xp: Any, states: Any, cols: int):
  """The player's cell, the board padded with an outside wall, neighbours."""
  rows = states.shape[1] // cols
  padded = xp.concatenate(
      [states, xp.full((states.shape[0], 1), WALL, states.dtype)], axis=1)
  player = xp.argmax((states & PLAYER) != 0, axis=1)
  return player, padded, xp.asarray(neighbours(rows, cols))


def _is_free(cell_codes: Any) -> Any:
  return (cell_codes & (WALL | BOX)) == 0


def _relocate(xp, states, player, target, box_from, box_to, legal):
  """Children [N, A, cells]: the player to `target`, a box from/to (or -1)."""
  cells = xp.arange(states.shape[1])[None, None, :]
  moved = states[:, None, :]
  moved = xp.where(cells == player[:, None, None], moved & ~PLAYER, moved)
  moved = xp.where(cells == box_from[:, :, None], moved & ~BOX, moved)
  moved = xp.where(cells == box_to[:, :, None], moved | BOX, moved)
  moved = xp.where(cells == target[:, :, None], moved | PLAYER, moved)
  return xp.where(legal[:, :, None], moved, states[:, None, :]).astype(
      states.dtype)


def moves(xp: Any, states: Any, cols: int) -> tuple[Any, Any]:
  """[N, cells] -> children [N, 4, cells] and legality [N, 4] (pushes too)."""
  player, padded, table = _surroundings(xp, states, cols)
  one = table[player]  # [N, 4]
  two = table[one, xp.arange(NUM_MOVES)[None, :]]
  first = xp.take_along_axis(padded, one, axis=1)
  second = xp.take_along_axis(padded, two, axis=1)
  push = ((first & BOX) != 0) & _is_free(second)
  legal = _is_free(first) | push
  nowhere = xp.full_like(one, -1)
  children = _relocate(xp, states, player, one, xp.where(push, one, nowhere),
                       xp.where(push, two, nowhere), legal)
  return children, legal


def pulls(xp: Any, states: Any, cols: int) -> tuple[Any, Any]:
  """Reverse moves: [N, cells] -> [N, 8, cells] and legality [N, 8].

  Action d < 4 steps the player in direction d; action 4 + d steps the same
  way pulling the box that was behind the player. Forward move
  `_OPPOSITE[d]` undoes either.
  """
  player, padded, table = _surroundings(xp, states, cols)
  ahead = table[player]  # [N, 4]
  behind = table[player][:, np.array(_OPPOSITE)]
  free = _is_free(xp.take_along_axis(padded, ahead, axis=1))
  pull = free & ((xp.take_along_axis(padded, behind, axis=1) & BOX) != 0)
  nowhere = xp.full_like(ahead, -1)
  steps = _relocate(xp, states, player, ahead, nowhere, nowhere, free)
  pulled = _relocate(xp, states, player, ahead, xp.where(pull, behind, nowhere),
                     xp.where(pull, player[:, None], nowhere), pull)
  return (xp.concatenate([steps, pulled], axis=1),
          xp.concatenate([free, pull], axis=1))


def is_solved(xp: Any, states: Any) -> Any:
  """[N] whether every box is on a goal."""
  return ~xp.any((states & (BOX | GOAL)) == BOX, axis=1)


def encode(xp: Any, states: Any, rows: int) -> Any:
  """[N, cells] -> [N, 4, rows, cols] float32 planes: wall, goal, box, player."""
  planes = (states[:, None, :] & xp.asarray(PLANES, states.dtype)[None, :,
                                                                    None]) != 0
  return planes.astype(xp.float32).reshape(states.shape[0], 4, rows, -1)


def parse_level(text: str) -> np.ndarray:
  """[rows, cols] int8 cell codes of a level; ValueError naming the fault."""
  rows = text.strip("\n").replace("\n", "/").split("/")
  if len({len(row) for row in rows}) != 1 or not rows[0]:
    raise ValueError(f"{_SHORT_NAME}: state={text!r} rows differ in length")
  unknown = set("".join(rows)) - set(SYMBOLS)
  if unknown:
    raise ValueError(f"{_SHORT_NAME}: state={text!r} has characters "
                     f"{sorted(unknown)}, not Boxoban's {''.join(SYMBOLS)}")
  board = np.array([[SYMBOLS[c] for c in row] for row in rows], np.int8)
  players = int(((board & PLAYER) != 0).sum())
  boxes, goals = int(((board & BOX) != 0).sum()), int(
      ((board & GOAL) != 0).sum())
  if players != 1 or boxes != goals or not boxes:
    raise ValueError(
        f"{_SHORT_NAME}: state={text!r} has {players} players, {boxes} boxes "
        f"and {goals} goals; a level has 1 player and as many boxes as goals")
  return board


def level_string(board: np.ndarray) -> str:
  """A [rows, cols] board in the notation, rows joined by `/`."""
  return "/".join("".join(_CHARACTERS[int(c)] for c in row) for row in board)


@functools.lru_cache(maxsize=None)
def shipped_levels() -> tuple[str, ...]:
  """The levels in the file shipped with the package, in Boxoban format."""
  text = importlib.resources.files("open_spiel_ext.games.puzzles").joinpath(
      "data", LEVEL_FILE).read_text()
  return read_levels(text)


def read_levels(text: str) -> tuple[str, ...]:
  """Levels of a Boxoban file ("; n" lines, then the rows), rows joined by /."""
  levels, rows = [], []
  for line in text.splitlines() + [";"]:
    if line.startswith(";") or not line.strip():
      if rows:
        levels.append("/".join(rows))
      rows = []
    else:
      rows.append(line)
  return tuple(levels)


class Sokoban(single_player.Puzzle):
  """The rules of Sokoban on one rows×cols board."""

  def __init__(self, rows: int, cols: int):
    self.name = _SHORT_NAME
    self.rows, self.cols = rows, cols
    self.num_actions = NUM_MOVES
    self.goal = None  # Each level has its own.
    self.tensor_shape = (4, rows, cols)

  def legal_actions(self, state: np.ndarray) -> list[int]:
    return list(np.flatnonzero(moves(np, state[None], self.cols)[1][0]))

  def next_state(self, state: np.ndarray, action: int) -> np.ndarray:
    return moves(np, state[None], self.cols)[0][0, action]

  def is_goal(self, state: np.ndarray) -> bool:
    return bool(is_solved(np, state[None])[0])

  def action_name(self, action: int) -> str:
    return MOVE_NAMES[action]

  def encode(self, state: np.ndarray) -> np.ndarray:
    return encode(np, state[None], self.rows)[0]

  def to_string(self, state: np.ndarray) -> str:
    return level_string(state.reshape(self.rows, self.cols))

  def parse(self, text: str) -> np.ndarray:
    return parse_level(text).ravel()


class SokobanGame(single_player.PuzzleGame):
  """Sokoban as a one-player pyspiel game."""

  GAME_TYPE = single_player.puzzle_game_type(_SHORT_NAME, "Sokoban",
                                             {"level": 0}, max_length=500,
                                             scrambled=False)

  def make_puzzle(self, params: dict[str, Any]) -> Sokoban:
    if params["state"]:
      rows, cols = parse_level(params["state"]).shape
    else:
      validation.require_in_range(_SHORT_NAME, "level", params["level"], 0,
                                  len(shipped_levels()) - 1)
      rows, cols = parse_level(shipped_levels()[params["level"]]).shape
    return Sokoban(rows, cols)

  def default_initial(self, params: dict[str, Any]) -> np.ndarray:
    return self.puzzle.parse(shipped_levels()[params["level"]])


single_player.register(SokobanGame)


class BatchedSokoban(single_player.BatchedPuzzle):
  """Jitted functions over a batch of [rows·cols] int8 boards (any levels).

  `next_states` [B, 4, cells] and `prev_states` [B, 8, cells] (steps, then
  pulls) leave a board unchanged where the move is illegal; `legal_mask` and
  `prev_legal_mask` say which are legal.
  """

  def __init__(self, rows: int = 10, cols: int = 10):
    self.rows, self.cols = rows, cols
    self.num_actions = NUM_MOVES
    self.goal = None  # Each level has its own.
    self.next_states = jax.jit(lambda states: moves(jnp, states, cols)[0])
    self.legal_mask = jax.jit(lambda states: moves(jnp, states, cols)[1])
    self.prev_states = jax.jit(lambda states: pulls(jnp, states, cols)[0])
    self.prev_legal_mask = jax.jit(lambda states: pulls(jnp, states, cols)[1])
    self.step = jax.jit(self._step)
    self.is_goal = jax.jit(lambda states: is_solved(jnp, states))
    self.encode = jax.jit(lambda states: encode(jnp, states, rows))
    self.random_scrambles = jax.jit(self._random_scrambles,
                                    static_argnums=(2,))

  def _step(self, states: jax.Array, actions: jax.Array) -> jax.Array:
    return single_player.chosen_children(moves(jnp, states, self.cols)[0],
                                         actions)

  def _random_scrambles(self, key: jax.Array, solved: jax.Array,
                        steps: int) -> jax.Array:
    """Reverse play: `steps` random legal steps or pulls from solved boards.

    Every result can be solved in at most `steps` moves.
    """

    return single_player.random_walk(
        key, solved, steps, lambda states: pulls(jnp, states, self.cols))
