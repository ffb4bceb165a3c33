"""Sliding n-puzzles (8, 15, 24, 35, 48): move tables, the pyspiel game, the batched engine.

A size×size tray with tiles 1..size²−1 and a blank (0). A state is the tile
on each cell in reading order; the goal is 1..size²−1 in reading order with
the blank last. Actions move the blank up, down, left or right (U D L R),
sliding the neighbouring tile into the hole; a move off the tray is not a
legal action. `blank_targets(size)[cell, action]` is the one move table: the
cell the blank moves to, or −1. U and D, L and R undo each other.

Notation: rows of space-separated numbers joined by `/`, blank 0
("1 2 3/4 5 6/7 8 0" is the solved 8-puzzle). Only solvable arrangements are
accepted (the parity of the permutation, and on even widths the blank's row,
must match the goal's).

Game: `sliding_puzzle(size=4, scramble_moves=20, seed=0, state="",
max_length=...)`; the observation tensor is DeepCubeA's one-hot encoding,
[size², size²]: row c is the tile on cell c.
"""

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.games import validation
from open_spiel_ext.games.puzzles import single_player

_SHORT_NAME = "sliding_puzzle"
MOVE_NAMES = ("U", "D", "L", "R")
_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))
NUM_MOVES = len(MOVE_NAMES)
INVERSE_MOVES = np.array([1, 0, 3, 2])


@functools.lru_cache(maxsize=None)
def blank_targets(size: int) -> np.ndarray:
  """[size², 4] int: where the blank goes from each cell per move, or −1."""
  table = np.full((size * size, NUM_MOVES), -1, np.int64)
  for cell in range(size * size):
    row, col = divmod(cell, size)
    for action, (d_row, d_col) in enumerate(_STEPS):
      if 0 <= row + d_row < size and 0 <= col + d_col < size:
        table[cell, action] = (row + d_row) * size + col + d_col
  return table


@functools.lru_cache(maxsize=None)
def solved(size: int) -> np.ndarray:
  return np.roll(np.arange(size * size, dtype=np.int8), -1)


def is_solvable(tiles: np.ndarray, size: int) -> bool:
  """Whether the arrangement can reach the goal (a parity invariant)."""
  order = [t for t in tiles if t]
  inversions = sum(a > b for i, a in enumerate(order) for b in order[i + 1:])
  if size % 2:
    return inversions % 2 == 0
  blank_row_from_bottom = size - int(np.flatnonzero(tiles == 0)[0]) // size
  return (inversions + blank_row_from_bottom) % 2 == 1


def children(xp: Any, boards: Any, size: int) -> tuple[Any, Any]:
  """[N, size²] boards -> children [N, 4, size²] and legality [N, 4].

  An illegal move leaves the board unchanged. `xp` is numpy or jax.numpy:
  the batched engine and the numpy solvers share this one function.
  """
  cells = xp.arange(size * size)
  blank = xp.argmin(boards, axis=1)
  targets = xp.asarray(blank_targets(size))[blank]  # [N, 4]
  legal = targets >= 0
  targets = xp.where(legal, targets, blank[:, None])
  moved_tile = xp.take_along_axis(boards, targets, axis=1)  # [N, 4]
  at_blank = cells[None, None, :] == blank[:, None, None]
  at_target = cells[None, None, :] == targets[:, :, None]
  moved = xp.where(at_target, 0,
                   xp.where(at_blank, moved_tile[:, :, None],
                            boards[:, None, :]))
  return moved.astype(boards.dtype), legal


class SlidingPuzzle(single_player.Puzzle):
  """The rules of the size×size sliding puzzle."""

  def __init__(self, size: int):
    self.name = _SHORT_NAME
    self.size = size
    self.num_actions = NUM_MOVES
    self.goal = solved(size)
    self.tensor_shape = (size * size, size * size)
    self._targets = blank_targets(size)

  def legal_actions(self, state: np.ndarray) -> list[int]:
    blank = int(np.flatnonzero(state == 0)[0])
    return [a for a in range(NUM_MOVES) if self._targets[blank, a] >= 0]

  def next_state(self, state: np.ndarray, action: int) -> np.ndarray:
    blank = int(np.flatnonzero(state == 0)[0])
    target = self._targets[blank, action]
    child = state.copy()
    child[blank], child[target] = state[target], 0
    return child

  def action_name(self, action: int) -> str:
    return MOVE_NAMES[action]

  def encode(self, state: np.ndarray) -> np.ndarray:
    return np.eye(self.size * self.size, dtype=np.float32)[state]

  def to_string(self, state: np.ndarray) -> str:
    rows = state.reshape(self.size, self.size)
    return "/".join(" ".join(str(t) for t in row) for row in rows)

  def parse(self, text: str) -> np.ndarray:
    cells = self.size * self.size
    try:
      rows = [[int(t) for t in row.split()] for row in text.strip().split("/")]
    except ValueError:
      rows = []
    if len(rows) != self.size or any(len(r) != self.size for r in rows) or (
        sorted(sum(rows, [])) != list(range(cells))):
      raise ValueError(
          f"{_SHORT_NAME}: state={text!r} is not {self.size} rows of "
          f"{self.size} numbers joined by '/', holding 0..{cells - 1} once")
    tiles = np.array(sum(rows, []), np.int8)
    if not is_solvable(tiles, self.size):
      raise ValueError(f"{_SHORT_NAME}: state={text!r} cannot reach the goal "
                       "(wrong permutation parity)")
    return tiles


class SlidingPuzzleGame(single_player.PuzzleGame):
  """The sliding n-puzzle as a one-player pyspiel game."""

  GAME_TYPE = single_player.puzzle_game_type(_SHORT_NAME, "Sliding Puzzle",
                                             {"size": 4}, max_length=1000)

  def make_puzzle(self, params: dict[str, Any]) -> SlidingPuzzle:
    validation.require_in_range(_SHORT_NAME, "size", params["size"], 3, 7)
    return SlidingPuzzle(params["size"])


single_player.register(SlidingPuzzleGame)


class BatchedSlidingPuzzle(single_player.BatchedPuzzle):
  """Jitted functions over a batch of [size²] int8 boards.

  `next_states` and `prev_states` leave a board unchanged under an illegal
  move; `legal_mask` says which moves are legal.
  """

  def __init__(self, size: int = 4):
    self.size = size
    self.num_actions = NUM_MOVES
    self.goal = jnp.asarray(solved(size))
    self._next_states = lambda states: children(jnp, states, size)[0]
    self.next_states = jax.jit(self._next_states)
    self.prev_states = jax.jit(
        lambda states: self._next_states(states)[:, INVERSE_MOVES])
    self.legal_mask = jax.jit(lambda states: children(jnp, states, size)[1])
    self.step = jax.jit(self._step)
    self.is_goal = jax.jit(lambda states: jnp.all(states == self.goal, axis=1))
    size_squared = size * size
    self.encode = jax.jit(lambda states: jax.nn.one_hot(
        states, size_squared, dtype=jnp.float32))
    self.random_scrambles = jax.jit(self._random_scrambles,
                                    static_argnums=(1, 2))

  def check_states(self, states: np.ndarray) -> None:
    """Raises ValueError unless every row is a board that can reach the goal."""
    states = np.asarray(states)
    cells = self.size * self.size
    if states.ndim != 2 or states.shape[1] != cells:
      raise ValueError(f"{self.size}x{self.size} boards have shape [N, {cells}]"
                       f", got {states.shape}")
    for row, tiles in enumerate(states):
      if sorted(tiles.tolist()) != list(range(cells)):
        raise ValueError(f"board {row} {tiles.tolist()} does not hold "
                         f"0..{cells - 1} once each")
      if not is_solvable(tiles, self.size):
        raise ValueError(f"board {row} {tiles.tolist()} cannot reach the goal "
                         "(wrong permutation parity)")

  def _step(self, states: jax.Array, actions: jax.Array) -> jax.Array:
    return single_player.chosen_children(self._next_states(states), actions)

  def _random_scrambles(self, key: jax.Array, batch: int,
                        moves: int) -> jax.Array:
    """`batch` goals each moved by `moves` uniformly random legal moves."""
    start = jnp.broadcast_to(self.goal, (batch, self.goal.shape[0]))
    return single_player.random_walk(
        key, start, moves, lambda states: children(jnp, states, self.size))


single_player.register_sized_engine(_SHORT_NAME, BatchedSlidingPuzzle)
