"""Puzzle engine throughput: batched JAX next states against the pyspiel games.

For each puzzle, children generated per second (parents × actions) by the
batched engine's jitted `next_states` at batch sizes 1, 1,024 and 65,536,
side by side with the pyspiel game (clone and apply every legal action of
one state at a time). Inputs are random scrambles (Sokoban: shipped levels);
compilation is timed apart. Prints a table and writes a bar chart.

  python benchmarks/puzzle_engines.py --output_dir=/tmp/puzzle_engines
"""

import os
import time
from typing import Any, Callable, Sequence

from absl import app
from absl import flags
import jax
import jax.numpy as jnp
import numpy as np

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.games.puzzles import lights_out
from open_spiel_ext.games.puzzles import rubiks_cube
from open_spiel_ext.games.puzzles import sliding_puzzle
from open_spiel_ext.games.puzzles import sokoban
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting
import pyspiel


_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the PNG is written.")
_SECONDS = flags.DEFINE_float("seconds", 1.0,
                              "Least time each measurement runs for.")

BATCH_SIZES = (1, 1024, 65536)


def _sokoban_boards(batch: int) -> jax.Array:
  levels = sokoban.shipped_levels()
  boards = np.array([sokoban.parse_level(levels[i % len(levels)]).ravel()
                     for i in range(min(batch, len(levels)))])
  return jnp.asarray(np.resize(boards, (batch, boards.shape[1])))


def _engines() -> dict[str, tuple[Any, Callable[[int], jax.Array], str]]:
  """Name -> (engine, batch of start states, pyspiel game string)."""
  key = jax.random.PRNGKey(0)
  engines = {}
  for size in (3, 2):
    cube = rubiks_cube.BatchedCube(size)
    engines[f"rubiks_cube {size}x{size}x{size}"] = (
        cube, lambda b, c=cube: c.random_scrambles(key, b, 30),
        f"rubiks_cube(size={size})")
  for size in (4, 5):
    tray = sliding_puzzle.BatchedSlidingPuzzle(size)
    engines[f"sliding_puzzle {size * size - 1}"] = (
        tray, lambda b, t=tray: t.random_scrambles(key, b, 100),
        f"sliding_puzzle(size={size},scramble_moves=100)")
  board = lights_out.BatchedLightsOut(7)
  engines["lights_out 7x7"] = (
      board, lambda b: board.random_scrambles(key, b, 30), "lights_out")
  engines["sokoban 10x10"] = (sokoban.BatchedSokoban(), _sokoban_boards,
                              "sokoban")
  return engines


def batched_rate(engine: Any, states: jax.Array,
                 seconds: float) -> tuple[float, float]:
  """(children per second, compile seconds) of `engine.next_states`."""
  began = time.perf_counter()
  children = engine.next_states(states).block_until_ready()
  compile_seconds = time.perf_counter() - began
  calls = 0
  began = time.perf_counter()
  while time.perf_counter() - began < seconds:
    engine.next_states(states).block_until_ready()
    calls += 1
  rate = calls * children.shape[0] * children.shape[1] / (
      time.perf_counter() - began)
  return rate, compile_seconds


def pyspiel_rate(game_string: str, seconds: float) -> float:
  """Children per second through clone + apply_action, one state at a time."""
  state = pyspiel.load_game(game_string).new_initial_state()
  children = 0
  began = time.perf_counter()
  while time.perf_counter() - began < seconds:
    for action in state.legal_actions():
      child = state.clone()
      child.apply_action(action)
      children += 1
  return children / (time.perf_counter() - began)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  print(f"JAX {jax.__version__} on {jax.devices()[0].platform}; children "
        "generated per second")
  header = ["puzzle", "pyspiel"] + [f"batch {b:,}" for b in BATCH_SIZES] + [
      f"x pyspiel at {BATCH_SIZES[-1]:,}", "compile s"]
  print(" | ".join(header))
  results = {}
  for name, (engine, make_states, game_string) in _engines().items():
    rates, compiles = [], []
    for batch in BATCH_SIZES:
      rate, compile_seconds = batched_rate(engine, make_states(batch),
                                           _SECONDS.value)
      rates.append(rate)
      compiles.append(compile_seconds)
    reference = pyspiel_rate(game_string, _SECONDS.value)
    results[name] = (reference, rates)
    print(" | ".join([name, f"{reference:,.0f}"] +
                     [f"{rate:,.0f}" for rate in rates] +
                     [f"{rates[-1] / reference:,.0f}", f"{max(compiles):.2f}"]),
          flush=True)
  _plot(results)


def _plot(results: dict[str, tuple[float, list[float]]]) -> None:
  figure, axes = reporting.plt.subplots(figsize=(10, 4.5))
  labels = ["pyspiel"] + [f"batch {b:,}" for b in BATCH_SIZES]
  width = 0.8 / len(labels)
  for column, label in enumerate(labels):
    values = [reference if column == 0 else rates[column - 1]
              for reference, rates in results.values()]
    axes.bar(np.arange(len(results)) + column * width, values, width,
             label=label)
  axes.set_xticks(np.arange(len(results)) + 0.4 - width / 2)
  axes.set_xticklabels(list(results), rotation=15)
  axes.set_yscale("log")
  axes.set_ylabel("children generated per second")
  axes.set_title("Puzzle engines: batched JAX next_states vs pyspiel")
  axes.legend()
  path = os.path.join(_OUTPUT_DIR.value, "puzzle_engines.png")
  reporting.save_figure(figure, path, dpi=120)
  print(f"wrote {path}")


if __name__ == "__main__":
  cli.run(main)
