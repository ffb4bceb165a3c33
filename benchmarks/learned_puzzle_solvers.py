"""Learned puzzle solvers side by side: DAVI with BWAS, free-label models with
beam search, warm-started DAVI, and CayleyPy, on the same instances.

Instances: --count seeded 3×3×3 cubes scrambled by 100 random quarter turns
and 7×7 Lights Out boards drawn uniformly (`instances.generate`, seed
--seed: the test sets of `deepcubea_eval.py`). Reference lengths: Kociemba's
two-phase solutions in quarter turns for the cube (`kociemba`, benchmarks
extra), the exact fewest presses over GF(2) for Lights Out.

Solvers, each on every instance of its puzzle:
- `--davi_models` (default: the shipped DAVI models) with BWAS at the
  puzzle's λ and N (or --bwas_batch), giving up after --bwas_nodes
  children generated; the runs of an earlier `deepcubea_eval.py` of the
  same model file, instances and settings (`--davi_runs`) are taken instead
  of searching again;
- `--free_label_models` (default: the shipped ones) with beam search at
  each of --beam_widths, giving up after --max_expanded states expanded
  (a "pressed" model also greedily); a "distance" model also with BWAS
  when listed in --davi_models;
- `--cayleypy_models` (cube only; `benchmarks/cayleypy_baseline.py`): its
  own beam search at each of --beam_widths.

Columns: % solved, mean length and the mean reference length of the solved
instances, % optimal (Lights Out), states expanded, children evaluated,
seconds an instance (one core), and the model's training (minutes, where).
Every solution is replayed in the pyspiel game by the search that found
it. Each instance is recorded as it ends (runs.jsonl, with its model
file's digest): the same command resumes where it stopped, and a command
with more solvers (or a model file replaced) searches only what is new, as
long as the instances and budgets are the same. Parts of one table can run
at once on separate cores, each in its own output directory (say, one
puzzle or one model each); `--merge_runs_from` names those directories and
takes their runs into this one's runs.jsonl instead of searching again.
Prints the table (markdown), writes learned_puzzle_solvers.json and .png
(solve rate and length against beam width).

  python benchmarks/learned_puzzle_solvers.py --output_dir=/tmp/solvers \\
      --davi_runs=runs/deepcubea_eval/rubiks_cube_3/deepcubea_eval_runs.jsonl
"""

import dataclasses
import functools
import hashlib
import json
import os
import time
from typing import Any, Callable, Optional, Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.algorithms.deepcubea import beam
from open_spiel_ext.algorithms.deepcubea import bwas
from open_spiel_ext.algorithms.deepcubea import davi
from open_spiel_ext.algorithms.deepcubea import free_labels
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.experiments import puzzle_recipes
from open_spiel_ext.experiments.puzzle_references import cube_solvers
from open_spiel_ext.experiments.puzzle_references import instances
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_PUZZLES = flags.DEFINE_list("puzzles", ["rubiks_cube:3", "lights_out:7"],
                             "puzzle:size of each test set.")
_COUNT = flags.DEFINE_integer("count", 100, "Instances per puzzle.",
                              lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the instances.",
                             lower_bound=0)
_DAVI_MODELS = flags.DEFINE_list(
    "davi_models", None, "Cost-to-go models searched with BWAS (default: "
    "the shipped DAVI model of each puzzle).")
_DAVI_RUNS = flags.DEFINE_list(
    "davi_runs", [], "deepcubea_eval.py runs files whose matching runs are "
    "taken instead of searching again.")
_FREE_LABEL_MODELS = flags.DEFINE_list(
    "free_label_models", None, "Free-label models searched with beam "
    "search (default: the shipped ones).")
_CAYLEYPY_MODELS = flags.DEFINE_list(
    "cayleypy_models", [], "CayleyPy cube models (cayleypy_baseline.py).")
_BEAM_WIDTHS = flags.DEFINE_list(
    "beam_widths", [str(2**k) for k in range(8, 15)], "Beam widths.")
_BWAS_BATCH = flags.DEFINE_integer(
    "bwas_batch", None, "BWAS's N, states expanded a step (default: each "
    "puzzle's; deepcubea_eval.py's runs use 1,000).", lower_bound=1)
_BWAS_NODES = flags.DEFINE_integer(
    "bwas_nodes", 1_000_000, "BWAS gives up after this many children.",
    lower_bound=1)
_MAX_EXPANDED = flags.DEFINE_integer(
    "max_expanded", 1_000_000, "Beam search gives up after expanding this "
    "many states.", lower_bound=1)
_MERGE_RUNS_FROM = flags.DEFINE_list(
    "merge_runs_from", [], "Output directories of other parts of this "
    "table (same instances and budgets) whose runs are taken as done.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir",
                                  "benchmark_results/learned_puzzle_solvers",
                                  "Where the runs, JSON and PNG go.")

RUNS_FILE = "runs.jsonl"


@dataclasses.dataclass
class Run:
  """One instance searched by one solver."""
  puzzle: str
  method: str
  search: str
  width: int  # Beam width, BWAS batch N, 1 for greedy.
  index: int
  length: Optional[int]
  reference_length: Optional[int]
  optimal: Optional[bool]
  expanded: Optional[int]  # None where an imported run did not count it.
  children: int
  seconds: float
  model: str  # The digest of the model file searched.


@dataclasses.dataclass
class Solver:
  """A model and one way of searching with it."""
  puzzle: str
  method: str  # A label: the kind of model and its file.
  search: str  # "bwas", "beam" or "greedy".
  width: int
  training: str
  path: str  # The model file.
  run: Callable[[np.ndarray], tuple[Optional[list[int]], int, int]]
  # Compiles what `run` calls, so that no instance's time counts it.
  warm_up: Callable[[np.ndarray], Any]

  @functools.cached_property
  def digest(self) -> str:
    return _digest(self.path)


def _digest(path: str) -> str:
  with open(path, "rb") as f:
    return hashlib.file_digest(f, "sha256").hexdigest()[:16]


def _training(info: dict[str, Any]) -> str:
  """The training behind a model: minutes (those of the model it started
  from included) and hardware."""
  seconds = info.get("training_seconds")
  if seconds is None:
    return "–"
  where = info.get("hardware", "?")
  before = info.get("started_from_seconds", 0.0)
  if not before:
    return f"{seconds / 60:.0f} min, {where}"
  return (f"{(before + seconds) / 60:.0f} min ({before / 60:.0f} of them "
          f"{info['started_from']}), {where}")


def _label(kind: str, path: str) -> str:
  """The method's name: its kind and model file (with the file's folder
  when the file has a trainer's generic name)."""
  name = os.path.basename(path)
  if name in (davi.MODEL, free_labels.MODEL):
    name = os.path.join(os.path.basename(os.path.dirname(path)), name)
  return f"{kind} ({name})"


def _bwas_solver(key: tuple[str, int], path: str) -> Solver:
  model = free_labels.load_model(path)
  settings = puzzle_recipes.davi_settings(*key)
  batch = _BWAS_BATCH.value or settings.search_batch
  if not isinstance(model, davi.CostToGo):
    kind = f"free-label {model.config.target}"
  elif model.info.get("started_from"):
    kind = "warm-started DAVI"
  else:
    kind = "DAVI"

  def run(start):
    result = bwas.solve(model, start, settings.weight, batch,
                        _BWAS_NODES.value)
    return result.actions, result.expansions, result.nodes_generated

  return Solver(puzzles.model_name(*key), _label(kind, path),
                f"bwas λ={settings.weight}", batch,
                _training(model.info), path, run,
                lambda start: model(start[None]))


def _beam_solvers(path: str) -> list[Solver]:
  model = free_labels.Model.load(path)
  name = puzzles.model_name(model.config.puzzle, model.config.size)
  label = _label(f"free-label {model.config.target}", path)
  solvers = []
  if model.config.target == free_labels.PRESSED:

    def greedy(start):
      result = beam.greedy(model, start)
      return result.actions, result.nodes_expanded, result.children

    solvers.append(Solver(name, label, "greedy", 1, _training(model.info),
                          path, greedy, greedy))
  for width in _widths():

    def run(start, width=width):
      result = beam.beam_search(model, start, width,
                                max_nodes=_MAX_EXPANDED.value)
      return result.actions, result.nodes_expanded, result.children

    solvers.append(Solver(
        name, label, "beam", width, _training(model.info), path, run,
        lambda start, width=width: beam.beam_search(model, start, width,
                                                    max_depth=1)))
  return solvers


def _cayleypy_solvers(path: str) -> list[Solver]:
  import cayleypy_solver  # pylint: disable=g-import-not-at-top
  solver = cayleypy_solver.load(path)
  with open(path.removesuffix(".pt") + ".json", encoding="utf-8") as f:
    record = json.load(f)
  training = f"{record.get('training_seconds', 0) / 60:.0f} min, cpu"
  solvers = []
  for width in _widths():

    def run(start, width=width):
      result = cayleypy_solver.solve(solver, start, width)
      return (result["actions"], result["nodes_expanded"],
              result["children"])

    solvers.append(Solver("rubiks_cube_3", _label("CayleyPy", path), "beam",
                          width, training, path, run,
                          lambda start, width=width: cayleypy_solver.solve(
                              solver, start, width, max_steps=1)))
  return solvers


def _widths() -> list[int]:
  with cli.user_input("beam_widths"):
    widths = [int(w) for w in _BEAM_WIDTHS.value]
    if min(widths, default=1) < 1:
      raise ValueError(f"beam widths must be >= 1, got {widths}")
  return widths


def _puzzle_keys() -> list[tuple[str, int]]:
  keys = []
  for text in _PUZZLES.value:
    with cli.user_input("puzzles"):
      puzzle, size = text.split(":")
      puzzles.make_engine(puzzle, int(size))
    keys.append((puzzle, int(size)))
  return keys


def solvers(keys: list[tuple[str, int]]) -> list[Solver]:
  """Every solver the flags ask for, of the puzzles in `keys`."""
  names = {puzzles.model_name(*key): key for key in keys}
  davi_paths = _DAVI_MODELS.value
  if davi_paths is None:
    davi_paths = [bwas.shipped_model_path(*key) for key in keys]
  free_paths = _FREE_LABEL_MODELS.value
  if free_paths is None:
    free_paths = [path for path in (free_labels.find_shipped(*key)
                                    for key in keys) if path]
  found = []
  for path in davi_paths:
    with cli.user_input("davi_models"):
      config = free_labels.load_model(path).config
    found.append(_bwas_solver((config.puzzle, config.size), path))
  for path in free_paths:
    with cli.user_input("free_label_models"):
      found.extend(_beam_solvers(path))
  for path in _CAYLEYPY_MODELS.value:
    with cli.user_input("cayleypy_models"):
      found.extend(_cayleypy_solvers(path))
  paths = {}
  for solver in found:  # Runs are kept by method: one name, one file.
    if paths.setdefault(solver.method, solver.path) != solver.path:
      raise app.UsageError(
          f"two models would both be named {solver.method!r} in the table: "
          f"{paths[solver.method]} and {solver.path}; rename one")
  return [s for s in found if s.puzzle in names]


def run_settings() -> dict[str, Any]:
  """What every result depends on (a resumed benchmark must match); each
  run also records its model file's digest."""
  return {"count": _COUNT.value, "seed": _SEED.value,
          "bwas_nodes": _BWAS_NODES.value,
          "max_expanded": _MAX_EXPANDED.value}


def _imported_davi_runs(solver: Solver, path: str) -> dict[int, Run]:
  """The runs of `deepcubea_eval.py` files (--davi_runs) of this solver's
  model file, instances and settings, by instance index."""
  taken = {}
  for runs_file in _DAVI_RUNS.value:
    folder = os.path.dirname(runs_file)
    with open(os.path.join(folder, "run.json"), encoding="utf-8") as f:
      settings = json.load(f)
    if (settings["count"] != _COUNT.value or settings["seed"] != _SEED.value
        or settings["max_nodes"] != _BWAS_NODES.value or
        settings["models"].get(solver.puzzle) != _digest(path) or
        f"{float(solver.search.split('=')[1])}:{solver.width}" not in
        [f"{float(s.split(':')[0])}:{s.split(':')[1]}" for s in
         settings["settings"][solver.puzzle]]):
      continue
    for record in reporting.read_json_lines(runs_file):
      if (record["model"] == solver.puzzle and record["batch_size"] ==
          solver.width):
        taken[record["index"]] = record
  return taken


def evaluate(solver: Solver, puzzle: Any,
             test_set: list[instances.Instance],
             references: list[Optional[int]], exact: bool,
             done: dict[tuple[str, str, int, int], Run],
             on_run: Callable[[Run], None]) -> list[Run]:
  """Every instance searched by `solver` (those in `done` as they were)."""
  imported = (_imported_davi_runs(solver, solver.path)
              if solver.search.startswith("bwas") else {})
  runs = []
  if any((solver.method, solver.search, solver.width, index) not in done
         and index not in imported for index in range(len(test_set))):
    solver.warm_up(puzzle.parse(test_set[0].state))
  for index, instance in enumerate(test_set):
    key = (solver.method, solver.search, solver.width, index)
    if key in done:
      runs.append(done[key])
      continue
    reference = references[index]
    if index in imported:
      record = imported[index]
      # deepcubea_eval counted children generated, not expansions.
      length, expanded, children, seconds = (
          record["length"], None, record["nodes"], record["seconds"])
    else:
      began = time.perf_counter()
      actions, expanded, children = solver.run(puzzle.parse(instance.state))
      seconds = time.perf_counter() - began
      length = None if actions is None else len(actions)
    run = Run(solver.puzzle, solver.method, solver.search, solver.width,
              index, length, reference,
              None if not exact or length is None else length == reference,
              expanded, children, seconds, solver.digest)
    runs.append(run)
    on_run(run)
    print(f"{solver.puzzle} {solver.method} {solver.search} "
          f"{solver.width} #{index}: length {length} (reference "
          f"{reference}), {expanded if expanded is None else f'{expanded:,}'} "
          f"expanded, {children:,} children, "
          f"{seconds:.2f} s{' (deepcubea_eval run)' if index in imported else ''}",
          flush=True)
  return runs


def references(key: tuple[str, int], test_set: list[instances.Instance]
              ) -> tuple[list[Optional[int]], bool]:
  """The reference lengths and whether they are optimal."""
  if key == ("rubiks_cube", 3):
    puzzle = instances.make_puzzle(*key)
    return [len(cube_solvers.solve_two_phase(puzzle.parse(i.state)))
            for i in test_set], False
  return [i.optimal_length for i in test_set], True


def summary_rows(runs: list[Run], training: dict[str, str]
                ) -> list[dict[str, Any]]:
  """One row per (puzzle, method, search, width)."""
  rows = []
  keys = sorted({(r.puzzle, r.method, r.search, r.width) for r in runs})
  for puzzle, method, search, width in keys:
    group = [r for r in runs if (r.puzzle, r.method, r.search, r.width) ==
             (puzzle, method, search, width)]
    solved = [r for r in group if r.length is not None]
    exact = [r for r in solved if r.optimal is not None]
    rows.append({
        "puzzle": puzzle, "method": method,
        "search": f"{search} N={width}" if search.startswith("bwas") else
                  (search if search == "greedy" else f"beam {width}"),
        "training": training[method],
        "% solved": 100 * len(solved) / len(group),
        "mean length": np.mean([r.length for r in solved]) if solved else None,
        "mean reference": (np.mean([r.reference_length for r in solved])
                           if solved else None),
        "% optimal": (100 * np.mean([r.optimal for r in exact])
                      if exact else None),
        "expanded": (None if any(r.expanded is None for r in group) else
                     np.mean([r.expanded for r in group])),
        "children": np.mean([r.children for r in group]),
        "s / instance": np.mean([r.seconds for r in group])})
  return rows


def _cell(value: Any) -> str:
  if value is None:
    return "–"
  if isinstance(value, (float, np.floating)):
    return f"{value:,.2f}" if value < 1000 else f"{value:,.0f}"
  return str(value)


def plot(runs: list[Run], path: str) -> None:
  """Per puzzle: % solved and mean length against beam width (beam
  solvers as lines, BWAS and greedy as horizontal lines)."""
  puzzle_names = sorted({r.puzzle for r in runs})
  fig, axes = reporting.plt.subplots(2, len(puzzle_names), squeeze=False,
                                     figsize=(6.5 * len(puzzle_names), 8))
  for column, name in enumerate(puzzle_names):
    rate_axis, length_axis = axes[0][column], axes[1][column]
    mine = [r for r in runs if r.puzzle == name]
    for colour, (method, search) in enumerate(sorted(
        {(r.method, r.search) for r in mine})):
      group = [r for r in mine if (r.method, r.search) == (method, search)]
      widths = sorted({r.width for r in group})
      rates = [100 * np.mean([r.length is not None for r in group
                              if r.width == w]) for w in widths]
      lengths = [np.mean([r.length for r in group if r.width == w and
                          r.length is not None] or [np.nan]) for w in widths]
      label = f"{method} {search}"
      if search == "beam":
        rate_axis.plot(widths, rates, marker="o", color=f"C{colour}",
                       label=label)
        length_axis.plot(widths, lengths, marker="o", color=f"C{colour}")
      else:
        rate_axis.axhline(rates[0], ls="--", color=f"C{colour}", label=label)
        length_axis.axhline(lengths[0], ls="--", color=f"C{colour}")
    references_ = [r.reference_length for r in mine
                   if r.reference_length is not None]
    if references_:
      length_axis.axhline(np.mean(references_), color="k", lw=0.8,
                          label="two-phase" if "cube" in name else "optimal")
      length_axis.legend(fontsize=7)
    for axis in (rate_axis, length_axis):
      axis.set_xscale("log", base=2)
      axis.set_xlabel("beam width")
      axis.grid(True, alpha=0.3)
    rate_axis.set_ylabel("% solved")
    length_axis.set_ylabel("mean solution length (solved)")
    rate_axis.set_title(name)
    rate_axis.legend(fontsize=7)
  reporting.save_figure(fig, path)


def _merge_parts(digests: dict[str, str],
                 done: dict[tuple[str, str, int, int], Run],
                 writer: reporting.JsonLinesWriter) -> int:
  """Adds to `done`, and writes, the runs of the --merge_runs_from
  directories that this table's models made and `done` lacks; their count."""
  merged = 0
  for folder in _MERGE_RUNS_FROM.value:
    with cli.user_input("merge_runs_from"):
      if not os.path.exists(os.path.join(folder, "run.json")):
        raise ValueError(f"{folder} holds no run of this benchmark")
      records = reporting.finished_records(folder, run_settings(), RUNS_FILE)
    for record in records:
      key = (record["method"], record["search"], record["width"],
             record["index"])
      if digests.get(record["method"]) == record["model"] and key not in done:
        done[key] = Run(**record)
        writer.write(record)
        merged += 1
  return merged


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  keys = _puzzle_keys()
  found = solvers(keys)
  if not found:
    raise app.UsageError(f"no model given for {','.join(_PUZZLES.value)} "
                         "(--davi_models, --free_label_models, "
                         "--cayleypy_models)")
  digests = {s.method: s.digest for s in found}
  with cli.user_input("output_dir"):
    records = reporting.finished_records(_OUTPUT_DIR.value, run_settings(),
                                         RUNS_FILE)
  reporting.keep_json_lines(os.path.join(_OUTPUT_DIR.value, RUNS_FILE),
                            lambda record: True)
  # Runs of a model file since replaced stay in the file, unused.
  done = {(r["method"], r["search"], r["width"], r["index"]): Run(**r)
          for r in records if digests.get(r["method"]) == r["model"]}
  if done:
    print(f"resuming: {len(done)} runs already done", flush=True)
  writer = reporting.JsonLinesWriter(
      os.path.join(_OUTPUT_DIR.value, RUNS_FILE), append=True)
  merged = _merge_parts(digests, done, writer)
  if merged:
    print(f"merged {merged} runs from {','.join(_MERGE_RUNS_FROM.value)}",
          flush=True)
  runs = []
  for key in keys:
    test_set = list(instances.generate(*key, _COUNT.value, _SEED.value))
    lengths, exact = references(key, test_set)
    for solver in found:
      if solver.puzzle == puzzles.model_name(*key):
        runs += evaluate(solver, instances.make_puzzle(*key), test_set,
                         lengths, exact, done,
                         lambda run: writer.write(dataclasses.asdict(run)))
  writer.close()
  rows = summary_rows(runs, {s.method: s.training for s in found})
  header = list(rows[0])
  print(reporting.markdown_table(header, ([_cell(row[h]) for h in header]
                                          for row in rows)))
  with open(os.path.join(_OUTPUT_DIR.value, "learned_puzzle_solvers.json"),
            "w", encoding="utf-8") as f:
    json.dump({"settings": {**run_settings(), "models": digests},
               "summary": [{k: _cell(v) for k, v in row.items()}
                           for row in rows]}, f, indent=1)
  plot(runs, os.path.join(_OUTPUT_DIR.value, "learned_puzzle_solvers.png"))
  print(f"wrote learned_puzzle_solvers.json and .png to {_OUTPUT_DIR.value}")


if __name__ == "__main__":
  cli.run(main)
