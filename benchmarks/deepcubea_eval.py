"""The shipped DeepCubeA models with BWAS on seeded test sets.

For each model and each (λ, N) setting: % solved, mean solution length,
the mean optimal length of the same instances and % optimal (from the exact
solvers of `open_spiel_ext/experiments/puzzle_references/instances.py`: 15-puzzle IDA* with
pattern databases, the 2×2×2 distance table, Lights Out over GF(2); none
for the 3×3×3 cube, which gets a classical comparison instead: the mean
quarter-turn length of Kociemba's two-phase solutions, `kociemba` package of
the benchmarks extra), nodes generated, seconds and nodes per second per
instance. Test sets are the ones `examples/puzzle_test_set.py` writes
(15-puzzle 1,000-10,000 random moves, cubes 100 random quarter turns,
Lights Out uniformly random boards).

Prints the table, writes deepcubea_eval.json (every instance) and
deepcubea_eval.png (solution length against optimal length). Each instance
is recorded as it finishes (deepcubea_eval_runs.jsonl): the same command
resumes an interrupted evaluation (hours for 100 cubes on a CPU) where it
stopped, as long as the models' files are the same.

  python benchmarks/deepcubea_eval.py --output_dir=/tmp/deepcubea_eval
  python benchmarks/deepcubea_eval.py --models=rubiks_cube_3 --count=10 \
      --settings=0.6:10000 --max_nodes=3000000
"""

import dataclasses
import hashlib
import json
import os
import time
from typing import Callable, Optional, Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.algorithms.deepcubea import bwas
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.experiments import puzzle_recipes
from open_spiel_ext.experiments.puzzle_references import cube_solvers
from open_spiel_ext.experiments.puzzle_references import instances
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_NAMES = [puzzles.model_name(*key) for key in puzzle_recipes.DAVI_SHIPPED]
_MODELS = flags.DEFINE_list("models", _NAMES, "Shipped models evaluated.")
_COUNT = flags.DEFINE_integer("count", 100, "Test instances per model.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the test sets.")
_SETTINGS = flags.DEFINE_list(
    "settings", [], "λ:N pairs searched with (default: each model's own "
    "and one more, see _SETTINGS_BY_MODEL).")
_MAX_NODES = flags.DEFINE_integer("max_nodes", 5_000_000,
                                  "Give up on an instance after this many.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the JSON and PNG go.")

RUNS_FILE = "deepcubea_eval_runs.jsonl"
# Besides each model's own (λ, N): a more greedy or a more careful search.
_SETTINGS_BY_MODEL = {
    "sliding_puzzle_4": [(0.8, 1000), (0.6, 1000)],
    "lights_out_7": [(0.2, 1000), (0.6, 1000)],
    "rubiks_cube_2": [(0.6, 1000), (1.0, 1000)],
    "rubiks_cube_3": [(0.6, 10000)],
}


@dataclasses.dataclass
class Run:
  """One instance searched with one setting."""
  model: str
  weight: float
  batch_size: int
  length: Optional[int]
  optimal_length: Optional[int]
  two_phase_length: Optional[int]  # 3×3×3 only, in quarter turns.
  start_estimate: float
  nodes: int
  seconds: float


def _settings(name: str) -> list[tuple[float, int]]:
  if _SETTINGS.value:
    return [(float(w), int(n)) for w, n in
            (pair.split(":") for pair in _SETTINGS.value)]
  return _SETTINGS_BY_MODEL[name]


def evaluate(name: str, done: dict[tuple[str, float, int, int], Run],
             on_run: Callable[[int, Run], None]) -> list[Run]:
  """Every instance of the model's test set under each setting: those in
  `done`, keyed by (model, λ, N, index), as they were, the others searched
  and passed to `on_run` with their index as they finish."""
  puzzle_name, size = name.rsplit("_", 1)
  size = int(size)
  model = bwas.shipped_model(puzzle_name, size)
  puzzle = instances.make_puzzle(puzzle_name, size)
  test_set = list(instances.generate(puzzle_name, size, _COUNT.value,
                                     _SEED.value))
  two_phase = [len(cube_solvers.solve_two_phase(puzzle.parse(i.state)))
               if name == "rubiks_cube_3" else None for i in test_set]
  runs = []
  for weight, batch in _settings(name):
    model(puzzle.parse(test_set[0].state)[None])  # Compiles before timing.
    for index, instance in enumerate(test_set):
      if (name, weight, batch, index) in done:
        runs.append(done[name, weight, batch, index])
        continue
      start = puzzle.parse(instance.state)
      solution = bwas.solve(model, start, weight, batch, _MAX_NODES.value)
      runs.append(Run(name, weight, batch, None if solution.actions is None
                      else len(solution.actions), instance.optimal_length,
                      two_phase[index], float(model(start[None])[0]),
                      solution.nodes_generated,
                      solution.seconds))
      on_run(index, runs[-1])
      print(f"{name} λ={weight} N={batch} #{index}: length {runs[-1].length} "
            f"(optimal {instance.optimal_length}), {solution.nodes_generated:,}"
            f" nodes, {solution.seconds:.2f} s", flush=True)
  return runs


def run_settings() -> dict[str, object]:
  """What the instances' results depend on: a resumed evaluation must
  match (a model file replaced in place, as a campaign ships a better
  model, makes another evaluation)."""
  digests = {}
  for name in _MODELS.value:
    puzzle_name, size = name.rsplit("_", 1)
    with open(bwas.shipped_model_path(puzzle_name, int(size)), "rb") as f:
      digests[name] = hashlib.file_digest(f, "sha256").hexdigest()[:16]
  return {"models": digests, "count": _COUNT.value, "seed": _SEED.value,
          "settings": {name: [f"{w}:{n}" for w, n in _settings(name)]
                       for name in _MODELS.value},
          "max_nodes": _MAX_NODES.value}


def finished_runs() -> dict[tuple[str, float, int, int], Run]:
  """The instances an earlier run of these settings finished, by (model,
  λ, N, index); a file cut short by an interruption is mended."""
  with cli.user_input("output_dir"):
    records = reporting.finished_records(
        _OUTPUT_DIR.value, run_settings(), RUNS_FILE)
  reporting.keep_json_lines(os.path.join(_OUTPUT_DIR.value, RUNS_FILE),
                            lambda record: True)
  done = {}
  for record in records:
    index = record.pop("index")
    run = Run(**record)
    done[run.model, run.weight, run.batch_size, index] = run
  return done


def summary_rows(runs: list[Run]) -> list[dict[str, object]]:
  """One row per (model, λ, N)."""
  rows = []
  keys = sorted({(r.model, r.weight, r.batch_size) for r in runs},
                key=lambda k: (_NAMES.index(k[0]), -k[1], k[2]))
  for model, weight, batch in keys:
    group = [r for r in runs if (r.model, r.weight, r.batch_size) ==
             (model, weight, batch)]
    solved = [r for r in group if r.length is not None]
    known = [r for r in solved if r.optimal_length is not None]
    classical = [r.two_phase_length for r in group
                 if r.two_phase_length is not None]
    seconds = sum(r.seconds for r in group)
    rows.append({
        "model": model, "λ": weight, "N": batch, "instances": len(group),
        "% solved": 100 * len(solved) / len(group),
        "mean length": np.mean([r.length for r in solved]) if solved else None,
        "mean optimal": (np.mean([r.optimal_length for r in known])
                         if known else None),
        "% optimal": (100 * np.mean([r.length == r.optimal_length
                                     for r in known]) if known else None),
        "mean two-phase": np.mean(classical) if classical else None,
        "nodes": np.mean([r.nodes for r in group]),
        "seconds": seconds / len(group),
        "nodes/s": sum(r.nodes for r in group) / seconds,
    })
  return rows


def _cell(value: object) -> str:
  if value is None:
    return "–"
  if isinstance(value, float):
    return f"{value:,.2f}" if value < 1000 else f"{value:,.0f}"
  return str(value)


def print_table(rows: list[dict[str, object]]) -> None:
  header = list(rows[0])
  print(reporting.markdown_table(
      header, ([_cell(row[h]) for h in header] for row in rows)))


def plot(runs: list[Run], path: str) -> None:
  """Per model: length found against optimal length (or the start's J)."""
  names = [n for n in _NAMES if any(r.model == n for r in runs)]
  fig, axes = reporting.plt.subplots(
      1, len(names), figsize=(5 * len(names), 4.5), squeeze=False)
  for axis, name in zip(axes[0], names):
    group = [r for r in runs if r.model == name and r.length is not None]
    exact = all(r.optimal_length is not None for r in group)
    for setting in sorted({(r.weight, r.batch_size) for r in group}):
      chosen = [r for r in group if (r.weight, r.batch_size) == setting]
      xs = [r.optimal_length if exact else r.start_estimate for r in chosen]
      axis.scatter(xs, [r.length for r in chosen], s=12, alpha=0.6,
                   label=f"λ={setting[0]} N={setting[1]}")
    if group:
      low = min(r.length for r in group)
      high = max(r.length for r in group)
      axis.plot([low, high], [low, high], "k--", lw=0.8, label="y = x")
      axis.legend(fontsize=8)
    else:
      axis.text(0.5, 0.5, "nothing solved", ha="center",
                transform=axis.transAxes)
    axis.set_xlabel("optimal length" if exact else
                    "cost-to-go estimate of the start")
    axis.set_ylabel("BWAS solution length")
    axis.set_title(name)
    axis.grid(True, alpha=0.3)
  reporting.save_figure(fig, path)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  unknown = set(_MODELS.value) - set(_NAMES)
  if unknown:
    raise app.UsageError(f"--models must be among {_NAMES}, got "
                         f"{sorted(unknown)}")
  done = finished_runs()
  if done:
    print(f"resuming: {len(done)} instances already searched", flush=True)
  began = time.perf_counter()
  writer = reporting.JsonLinesWriter(
      os.path.join(_OUTPUT_DIR.value, RUNS_FILE), append=True)

  def on_run(index: int, run: Run) -> None:
    writer.write({"index": index, **dataclasses.asdict(run)})

  runs = [run for name in _MODELS.value
          for run in evaluate(name, done, on_run)]
  writer.close()
  rows = summary_rows(runs)
  print_table(rows)
  with open(os.path.join(_OUTPUT_DIR.value, "deepcubea_eval.json"), "w",
            encoding="utf-8") as f:
    json.dump({"runs": [dataclasses.asdict(r) for r in runs],
               "summary": [{k: _cell(v) for k, v in row.items()}
                           for row in rows]}, f, indent=1)
  plot(runs, os.path.join(_OUTPUT_DIR.value, "deepcubea_eval.png"))
  print(f"wrote deepcubea_eval.json and deepcubea_eval.png to "
        f"{_OUTPUT_DIR.value} ({time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
  cli.run(main)
