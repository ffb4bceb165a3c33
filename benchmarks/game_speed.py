"""What wrapping costs: plugin games against the OpenSpiel C++ games they wrap.

Wrapped games keep a C++ state inside a Python pyspiel state, so every move
crosses from C++ to Python and back. This measures, side by side in one run,
full game-tree walks (histories per second) and seeded random playouts (games
per second) of each wrapped game and of its C++ original, prints a table and
writes a bar chart of the slowdowns.

  python benchmarks/game_speed.py --output_dir=/tmp/game_speed
"""

import os
import time
from typing import Callable, Sequence

from absl import app
from absl import flags
import numpy as np

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.games import random_play
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting
import pyspiel

_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the PNG is written.")
_PLAYOUTS = flags.DEFINE_integer("playouts", 2000,
                                 "Random games played per measurement.")
_REPEATS = flags.DEFINE_integer(
    "repeats", 3, "Measurements per figure; the fastest one is reported.")

# (plugin game, the OpenSpiel game with the same rules).
PAIRS = (
    ("xdo_clone_leduc(clones=1)", "leduc_poker"),
    ("xdo_oshi_zumo", "turn_based_simultaneous_game(game=oshi_zumo("
     "coins=4,horizon=6,min_bid=0,size=3))"),
    ("tiny_hanabi_e", "tiny_hanabi"),
)


def count_histories(state: pyspiel.State) -> int:
  """Number of histories in the subtree below `state`, itself included."""
  if state.is_terminal():
    return 1
  actions = ([a for a, _ in state.chance_outcomes()]
             if state.is_chance_node() else state.legal_actions())
  return 1 + sum(count_histories(state.child(a)) for a in actions)


def play_randomly(game: pyspiel.Game, playouts: int, seed: int) -> int:
  """Plays `playouts` uniformly random games; returns the moves made."""
  rng = np.random.RandomState(seed)
  moves = 0
  for _ in range(playouts):
    state = game.new_initial_state()
    while not state.is_terminal():
      state.apply_action(random_play.sample_action(state, rng))
      moves += 1
  return moves


def best_rate(work: Callable[[], int], repeats: int) -> float:
  """Units of `work` per second, for the fastest of `repeats` runs."""
  rates = []
  for _ in range(repeats):
    start = time.perf_counter()
    units = work()
    rates.append(units / (time.perf_counter() - start))
  return max(rates)


def measure(game_string: str, playouts: int, repeats: int) -> dict[str, float]:
  game = pyspiel.load_game(game_string)
  return {
      "walk": best_rate(lambda: count_histories(game.new_initial_state()),
                        repeats),
      "playout": best_rate(lambda: play_randomly(game, playouts, seed=0),
                           repeats),
  }


def plot(rows: list[tuple[str, dict, dict]], path: str) -> None:
  """Bar chart of the slowdown (C++ rate / plugin rate) per game and task."""
  labels = [plugin for plugin, _, _ in rows]
  x = np.arange(len(rows))
  fig, ax = reporting.plt.subplots(figsize=(8, 4))
  for offset, task in ((-0.2, "walk"), (0.2, "playout")):
    ax.bar(x + offset, [cpp[task] / ours[task] for _, ours, cpp in rows],
           width=0.4, label=f"{task} (C++ rate / plugin rate)")
  ax.set_xticks(x, labels, fontsize=8)
  ax.axhline(1.0, color="gray", linewidth=0.8)
  ax.set_ylabel("slowdown of the Python wrapper (x)")
  ax.set_title("Plugin games vs the OpenSpiel C++ games they wrap")
  ax.legend()
  reporting.save_figure(fig, path, dpi=120)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  rows = []
  print(f"{'game':28s} {'task':8s} {'plugin /s':>12s} {'C++ /s':>12s} "
        f"{'slowdown':>9s}")
  for plugin, original in PAIRS:
    ours = measure(plugin, _PLAYOUTS.value, _REPEATS.value)
    cpp = measure(original, _PLAYOUTS.value, _REPEATS.value)
    rows.append((plugin, ours, cpp))
    for task, unit in (("walk", "histories"), ("playout", "moves")):
      print(f"{plugin:28s} {task:8s} {ours[task]:12,.0f} {cpp[task]:12,.0f} "
            f"{cpp[task] / ours[task]:8.1f}x   ({unit} per second)")
  path = os.path.join(_OUTPUT_DIR.value, "game_speed.png")
  plot(rows, path)
  print(f"wrote {path}")


if __name__ == "__main__":
  cli.run(main)
