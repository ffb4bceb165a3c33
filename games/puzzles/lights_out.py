"""Lights Out: the rules table, the pyspiel game and the batched engine.

A size×size board of lights. Pressing light i toggles it and its orthogonal
neighbours; the goal is every light off. A state is `size²` values 0/1 in
reading order; pressing is XOR with row i of `toggle_table(size)`, the one
table both engines use. Presses commute and each is its own inverse, so
`prev_states` equals `next_states`.

Notation: rows of `0`/`1` joined by `/`, top row first ("010/111/010").
Actions are the squares pressed, named by row and column (`r2c3`, 1-based).

Game: `lights_out(size=7, scramble_moves=20, seed=0, state="",
max_length=...)`; the observation tensor is the size² lights (DeepCubeA's
encoding).
"""

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.games import validation
from open_spiel_ext.games.puzzles import single_player

_SHORT_NAME = "lights_out"


@functools.lru_cache(maxsize=None)
def toggle_table(size: int) -> np.ndarray:
  """[size², size²] int8: row i is the lights that pressing i toggles."""
  squares = size * size
  table = np.zeros((squares, squares), np.int8)
  for square in range(squares):
    row, col = divmod(square, size)
    table[square, square] = 1
    for r, c in ((row - 1, col), (row + 1, col), (row, col - 1),
                 (row, col + 1)):
      if 0 <= r < size and 0 <= c < size:
        table[square, r * size + c] = 1
  return table


class LightsOut(single_player.Puzzle):
  """The rules of Lights Out on a size×size board."""

  def __init__(self, size: int):
    self.name = _SHORT_NAME
    self.size = size
    self.num_actions = size * size
    self.goal = np.zeros(size * size, np.int8)
    self.tensor_shape = (size * size,)
    self._toggles = toggle_table(size)

  def next_state(self, state: np.ndarray, action: int) -> np.ndarray:
    return state ^ self._toggles[action]

  def action_name(self, action: int) -> str:
    row, col = divmod(action, self.size)
    return f"r{row + 1}c{col + 1}"

  def encode(self, state: np.ndarray) -> np.ndarray:
    return state.astype(np.float32)

  def to_string(self, state: np.ndarray) -> str:
    return "/".join("".join(str(v) for v in state[row * self.size:
                                                  (row + 1) * self.size])
                    for row in range(self.size))

  def parse(self, text: str) -> np.ndarray:
    rows = text.strip().split("/")
    if len(rows) != self.size or any(len(r) != self.size for r in rows) or (
        set("".join(rows)) - {"0", "1"}):
      raise ValueError(
          f"{_SHORT_NAME}: state={text!r} is not {self.size} rows of "
          f"{self.size} characters 0/1 joined by '/'")
    return np.array([int(v) for v in "".join(rows)], np.int8)


class LightsOutGame(single_player.PuzzleGame):
  """Lights Out as a one-player pyspiel game."""

  GAME_TYPE = single_player.puzzle_game_type(_SHORT_NAME, "Lights Out",
                                             {"size": 7}, max_length=1000)

  def make_puzzle(self, params: dict[str, Any]) -> LightsOut:
    validation.require_in_range(_SHORT_NAME, "size", params["size"], 2, 20)
    return LightsOut(params["size"])


single_player.register(LightsOutGame)


class BatchedLightsOut(single_player.BatchedPuzzle):
  """Jitted functions over a batch of [size²] int8 boards."""

  def __init__(self, size: int = 7):
    self.size = size
    self.num_actions = size * size
    self.goal = jnp.zeros(size * size, jnp.int8)
    self._toggles = jnp.asarray(toggle_table(size))
    self.next_states = jax.jit(self._next_states)
    self.step = jax.jit(lambda states, actions: states ^ self._toggles[actions])
    self.prev_states = self.next_states  # Every press is its own inverse.
    self.is_goal = jax.jit(lambda states: ~jnp.any(states, axis=-1))
    self.encode = jax.jit(lambda states: states.astype(jnp.float32))
    self.random_scrambles = jax.jit(self._random_scrambles,
                                    static_argnums=(1, 2))

  def check_states(self, states: np.ndarray) -> None:
    """Raises ValueError unless `states` is a batch of 0/1 boards."""
    states = np.asarray(states)
    if (states.ndim != 2 or states.shape[1] != self.num_actions or
        not np.isin(states, (0, 1)).all()):
      raise ValueError(f"{self.size}x{self.size} boards are [N, "
                       f"{self.num_actions}] arrays of 0/1, got shape "
                       f"{states.shape}")

  def _next_states(self, states: jax.Array) -> jax.Array:
    """[batch, size²] -> [batch, actions, size²]: every press of every board."""
    return states[:, None, :] ^ self._toggles[None]

  def _random_scrambles(self, key: jax.Array, batch: int,
                        moves: int) -> jax.Array:
    """`batch` goal boards each pressed `moves` times at random."""
    presses = jax.random.randint(key, (batch, moves), 0, self.num_actions)
    counts = jax.nn.one_hot(presses, self.num_actions,
                            dtype=jnp.int32).sum(axis=1) % 2
    return (counts @ self._toggles.astype(jnp.int32) % 2).astype(jnp.int8)


single_player.register_sized_engine(_SHORT_NAME, BatchedLightsOut)
