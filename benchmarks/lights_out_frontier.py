"""What limits the learned Lights Out solver: the pressed-set model's frontier.

A 7×7 (or 3×3) Lights Out board has exactly one set of presses that clears
it (its toggle matrix has full rank over GF(2)), so the pressed-set model
(`free_labels.py`, target "pressed") is right when its most likely button
is in that set, and greedy search solves a board when it is right at every
step down from the board's solution size. Each output bit is the parity of
14 to 23 lights, which a network learns from small solution sizes up: this
benchmark measures how far that frontier has come in each of the
campaign's snapshots (`runs/free_label_campaign/snapshots/`, one per stage
of training minutes).

For every snapshot it measures: the top-1 precision (is the highest-scored
button in the solution?) on --samples boards of each solution size k =
1..49 (all the buttons; k distinct buttons drawn uniformly, seed --seed); greedy search on
the benchmark's --count uniformly random boards (seed 0,
`instances.scrambled_states`, the boards of `learned_puzzle_solvers.py`);
and beam search of each --beam_widths on the first --beam_count of them.
Prints the table (markdown), writes lights_out_frontier.json and .png
(precision against k per snapshot; solve rate against training minutes).

  python benchmarks/lights_out_frontier.py --output_dir=/tmp/frontier
"""

import glob
import json
import os
import re
import time
from typing import Any, Sequence

from absl import app
from absl import flags
import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.deepcubea import beam
from open_spiel_ext.algorithms.deepcubea import free_labels
from open_spiel_ext.experiments.puzzle_references import instances
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_SNAPSHOTS = flags.DEFINE_string(
    "snapshots",
    "runs/free_label_campaign/snapshots/lights_out_7_pressed_*min.npz",
    "Glob of the pressed-set models measured (their file names end in "
    "_<minutes>min.npz).")
_SAMPLES = flags.DEFINE_integer("samples", 2000,
                                "Boards per solution size.", lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the sampled solutions.",
                             lower_bound=0)
_COUNT = flags.DEFINE_integer("count", 100, "Random boards searched greedily.",
                              lower_bound=1)
_BEAM_WIDTHS = flags.DEFINE_list("beam_widths", ["64", "1024"],
                                 "Beam widths.")
_BEAM_COUNT = flags.DEFINE_integer("beam_count", 20,
                                   "Random boards searched by beam search.",
                                   lower_bound=0)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "lights_out_frontier",
                                  "Where the JSON and PNG go.")

BENCHMARK_SEED = 0  # learned_puzzle_solvers.py's boards.
_BANDS = ((1, 8), (9, 15), (16, 22), (23, 28), (29, 35), (36, 49))


def _minutes(path: str) -> float:
  found = re.search(r"_([0-9.]+)min\.npz$", path)
  if not found:
    raise ValueError(f"{path} does not end in _<minutes>min.npz")
  return float(found.group(1))


def toggle_matrix(model: free_labels.Model) -> np.ndarray:
  """[buttons, lights]: the lights each press toggles, from the engine."""
  goal = np.asarray(model.engine.goal)
  children = np.asarray(model.engine.next_states(jnp.asarray(goal)[None]))[0]
  return (children != goal[None]).astype(np.int64)


def solution_samples(toggles: np.ndarray, samples: int, seed: int
                     ) -> tuple[np.ndarray, np.ndarray]:
  """For k = 1..buttons, `samples` sets of k distinct buttons [K, S, B]
  (multi-hot) and their boards [K, S, B] (lights on)."""
  buttons = toggles.shape[0]
  rng = np.random.default_rng(seed)
  ranks = rng.random((buttons, samples, buttons)).argsort(-1).argsort(-1)
  pressed = ranks < np.arange(1, buttons + 1)[:, None, None]
  return pressed, (pressed.astype(np.int64) @ toggles) % 2


def top1_precision(model: free_labels.Model, pressed: np.ndarray,
                   boards: np.ndarray) -> np.ndarray:
  """[K]: how often the highest-scored button is in the solution."""
  outputs = jax.jit(model.scorer(model.params, model.net_state).outputs)
  goal = np.asarray(model.engine.goal)
  precision = []
  for solutions, lights in zip(pressed, boards):
    states = np.where(lights > 0, 1 - goal, goal).astype(np.int8)
    best = np.asarray(jnp.argmax(outputs(jnp.asarray(states)), axis=1))
    precision.append(solutions[np.arange(len(best)), best].mean())
  return np.asarray(precision)


def solve_rates(model: free_labels.Model, widths: Sequence[int]
                ) -> dict[str, Any]:
  """Greedy search on the benchmark's boards of the model's size; beam search
  on the first --beam_count of them."""
  boards = instances.scrambled_states("lights_out", model.config.size,
                                      _COUNT.value, BENCHMARK_SEED)
  buttons = model.engine.num_actions
  began = time.perf_counter()
  greedy = [beam.greedy(model, board).actions is not None for board in boards]
  rates = {"greedy": float(np.mean(greedy)),
           "greedy_seconds": (time.perf_counter() - began) / len(boards)}
  for width in widths:
    began = time.perf_counter()
    solved = [beam.beam_search(model, board, width, max_depth=buttons).actions
              is not None for board in boards[:_BEAM_COUNT.value]]
    rates[f"beam {width}"] = float(np.mean(solved)) if solved else None
    rates[f"beam {width} seconds"] = (
        (time.perf_counter() - began) / len(solved) if solved else None)
  return rates


def measure(path: str, widths: Sequence[int]) -> dict[str, Any]:
  model = free_labels.Model.load(path)
  if model.config.target != free_labels.PRESSED or (
      model.config.puzzle != "lights_out"):
    raise ValueError(f"{path} is not a Lights Out pressed-set model (its "
                     f"config: {model.config.puzzle}, {model.config.target})")
  toggles = toggle_matrix(model)
  pressed, boards = solution_samples(toggles, _SAMPLES.value, _SEED.value)
  return {"model": path, "minutes": _minutes(path), "size": model.config.size,
          "examples": model.info.get("examples"),
          "precision": top1_precision(model, pressed, boards).tolist(),
          **solve_rates(model, widths)}


def _band_precision(precision: Sequence[float], low: int, high: int) -> float:
  return float(np.mean(precision[low - 1:high]))


def report(rows: list[dict[str, Any]], widths: Sequence[int]) -> str:
  buttons = len(rows[0]["precision"])
  bands = [(low, min(high, buttons)) for low, high in _BANDS if low <= buttons]
  header = (["minutes", "states (M)"] +
            [f"top-1, k {low}-{high}" for low, high in bands] +
            [f"greedy ({_COUNT.value})"] +
            [f"beam {w} ({_BEAM_COUNT.value})" for w in widths])
  table = [[f"{r['minutes']:g}", f"{(r['examples'] or 0) / 1e6:.0f}"] +
           [f"{_band_precision(r['precision'], *band):.2f}"
            for band in bands] +
           [f"{100 * r['greedy']:.0f}%"] +
           [("-" if r[f"beam {w}"] is None else f"{100 * r[f'beam {w}']:.0f}%")
            for w in widths] for r in rows]
  return reporting.markdown_table(header, table)


def plot(rows: list[dict[str, Any]], widths: Sequence[int], path: str) -> None:
  plt = reporting.plt
  fig, axes = plt.subplots(1, 2, figsize=(13, 4.5))
  colours = plt.cm.viridis(np.linspace(0, 0.9, len(rows)))
  for colour, row in zip(colours, rows):
    axes[0].plot(np.arange(1, len(row["precision"]) + 1), row["precision"],
                 color=colour, label=f"{row['minutes']:g} min")
  # A uniformly random board's solution presses each button with
  # probability 1/2 (the toggle matrix is invertible): Binomial(n, 1/2).
  buttons = len(rows[0]["precision"])
  spread = np.sqrt(buttons) / 2
  axes[0].axvspan(buttons / 2 - 2 * spread, buttons / 2 + 2 * spread,
                  color="grey", alpha=0.15,
                  label="random boards' sizes (±2σ)")
  axes[0].set_xlabel("solution size k (buttons to press)")
  axes[0].set_ylabel("top-1 precision")
  axes[0].legend(fontsize=8)
  minutes = [row["minutes"] for row in rows]
  axes[1].plot(minutes, [100 * r["greedy"] for r in rows], marker=".",
               label=f"greedy, {_COUNT.value} boards")
  for width in widths:
    axes[1].plot(minutes, [100 * (r[f"beam {width}"] or 0) for r in rows],
                 marker=".", label=f"beam {width}, {_BEAM_COUNT.value} boards")
  axes[1].set_xscale("log")
  axes[1].set_xlabel("training minutes (one core)")
  axes[1].set_ylabel("% of random boards solved")
  axes[1].set_ylim(-2, 102)
  axes[1].legend(fontsize=8)
  for axis in axes:
    axis.grid(True, alpha=0.3)
  size = rows[0]["size"]
  fig.suptitle(f"{size}×{size} Lights Out, pressed-set model: the frontier by "
               "training minutes")
  reporting.save_figure(fig, path)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input("beam_widths"):
    widths = [int(w) for w in _BEAM_WIDTHS.value]
    if any(w < 1 for w in widths):
      raise ValueError(f"beam widths must be >= 1, got {widths}")
  paths = sorted(glob.glob(_SNAPSHOTS.value), key=_minutes)
  if not paths:
    raise ValueError(f"no model matches --snapshots={_SNAPSHOTS.value!r}")
  rows = []
  for path in paths:
    rows.append(measure(path, widths))
    if rows[-1]["size"] != rows[0]["size"]:
      raise ValueError(f"--snapshots={_SNAPSHOTS.value!r} mixes board sizes: "
                       f"{paths[0]} and {path}")
    print(f"measured {path}", flush=True)
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  with open(os.path.join(_OUTPUT_DIR.value, "lights_out_frontier.json"), "w",
            encoding="utf-8") as f:
    json.dump(rows, f, indent=1)
  plot(rows, widths, os.path.join(_OUTPUT_DIR.value, "lights_out_frontier.png"))
  print(report(rows, widths))


if __name__ == "__main__":
  cli.run(main)
