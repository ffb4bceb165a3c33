"""The CPU campaign of the free-label puzzle models, resumable by the same command.

For each of --runs (puzzle:size:target, trained in this order), trains a
free-label model (`algorithms/deepcubea/free_labels.py`, the recipe of
`experiments/puzzle_recipes.py`, --lr_decay for every run) up to its
--minutes of training, in stages that end at each of --snapshots: at the
end of a stage it keeps the model (snapshots/<run>_<m>min.npz, float16)
and measures it on --eval_count seeded instances that are not the
benchmark's (seed 1; beam search of --eval_beam states a depth, greedy
search for a "pressed" model), recording both in campaign.jsonl and
plotting the solve rates against training minutes (campaign.png). Every
stage resumes from the run's checkpoint, which --mirror_dir keeps a copy of
(with the snapshots and records), so the same command goes on where the
last one stopped, on this machine or a new one. With --ship, a run's last
stage copies its model into the package as the shipped model (the
target of the puzzle's recipe, `puzzle_recipes.free_label_config`). Run it in the background, pinned to a core:

  nohup taskset -c 0 python benchmarks/free_label_campaign.py \\
      --runs=rubiks_cube:3:distance --minutes=540 --ship \\
      --output_dir=run_state/free_label_campaign \\
      --mirror_dir=runs/free_label_campaign > run_state/cube.log 2>&1 &
"""

import os
import shutil
import time
from typing import Any, Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.algorithms.deepcubea import beam
from open_spiel_ext.algorithms.deepcubea import free_labels
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.algorithms.nn import weights
from open_spiel_ext.experiments import puzzle_recipes
from open_spiel_ext.experiments.puzzle_references import instances
from open_spiel_ext.utils import campaigns
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import mirror
from open_spiel_ext.utils import reporting

_RUNS = flags.DEFINE_list(
    "runs", ["rubiks_cube:3:distance", "lights_out:7:pressed"],
    "puzzle:size:target of each run, trained in this order.")
_MINUTES = flags.DEFINE_list("minutes", ["540", "30"],
                             "Training minutes of each run.")
_SNAPSHOTS = flags.DEFINE_list(
    "snapshots", ["10", "30", "60", "120", "240", "540"],
    "Training minutes at which a stage ends (a snapshot, an evaluation).")
_LR_DECAY = flags.DEFINE_float(
    "lr_decay", 0.99995, "Step size multiplier per iteration, every run.",
    lower_bound=0.0, upper_bound=1.0)
_EVAL_COUNT = flags.DEFINE_integer("eval_count", 20,
                                   "Instances each stage is measured on.",
                                   lower_bound=1)
_EVAL_BEAM = flags.DEFINE_integer("eval_beam", 1024,
                                  "Beam width of the stage measurements.",
                                  lower_bound=1)
_CHECKPOINT_MINUTES = flags.DEFINE_float(
    "checkpoint_minutes", 10.0, "Training minutes between checkpoints.",
    lower_bound=0.0)
_SHIP = flags.DEFINE_bool("ship", False, "Copy each run's final model into "
                          "the package as its shipped model.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir",
                                  "run_state/free_label_campaign",
                                  "Runs, snapshots and campaign.jsonl.")
_MIRROR_DIR = flags.DEFINE_string(
    "mirror_dir", "", "A copy of what resumes the campaign (checkpoints, "
    "snapshots, records), for a machine whose disk goes away.")

EVAL_SEED = 1  # The benchmark's instances are seed 0's.
PLOT = "campaign.png"


def _parse_run(text: str) -> free_labels.Config:
  try:
    puzzle, size, target = text.split(":")
    size = int(size)
  except ValueError:
    raise ValueError(f"--runs takes puzzle:size:target, got {text!r}"
                     ) from None
  return puzzle_recipes.replace(
      puzzle_recipes.free_label_config(puzzle, size, target),
      lr_decay=_LR_DECAY.value)


def _run_name(config: free_labels.Config) -> str:
  return f"{puzzles.model_name(config.puzzle, config.size)}_{config.target}"


def measure(model: free_labels.Model, count: int,
            beam_width: int) -> dict[str, Any]:
  """Solve rate, mean length, states expanded and seconds on `count`
  seeded instances (seed EVAL_SEED): greedy search for a "pressed" model,
  else beam search."""
  starts = instances.scrambled_states(model.config.puzzle, model.config.size,
                                      count, EVAL_SEED)
  greedy = model.config.target == free_labels.PRESSED
  results = [beam.greedy(model, start) if greedy else
             beam.beam_search(model, start, beam_width) for start in starts]
  lengths = [len(r.actions) for r in results if r.actions is not None]
  return {"search": "greedy" if greedy else f"beam {beam_width}",
          "instances": count, "solved": len(lengths),
          "mean_length": float(np.mean(lengths)) if lengths else None,
          "mean_expanded": float(np.mean([r.nodes_expanded
                                          for r in results])),
          "seconds_per_instance": float(np.mean([r.seconds
                                                 for r in results]))}


def _snapshot(model_path: str, snapshot_path: str) -> None:
  """The model as a float16 weights file (small enough to commit)."""
  params, state, meta = weights.load_with_state(model_path,
                                                free_labels.MODEL_KIND)
  weights.save(snapshot_path, params, meta, dtype=np.float16, state=state)


def _better(candidate: dict[str, Any], baseline: dict[str, Any]) -> bool:
  """More instances solved, or as many in fewer moves on average."""
  if candidate["solved"] != baseline["solved"]:
    return candidate["solved"] > baseline["solved"]
  return bool(candidate["solved"]) and (
      candidate["mean_length"] < baseline["mean_length"])


def ship_if_better(config: free_labels.Config, snapshot_path: str,
                   measured: dict[str, Any]) -> dict[str, Any]:
  """Copies the snapshot over the shipped model of its puzzle if it solves
  more of the stage's instances than that one (or none ships yet); returns
  what it decided, for the stage's record."""
  if puzzle_recipes.free_label_config(config.puzzle,
                                     config.size).target != config.target:
    raise ValueError(f"{_run_name(config)} is not the model shipped for "
                     f"{config.puzzle} size {config.size}")
  shipped = free_labels.shipped_path(config.puzzle, config.size,
                                     config.target)
  if os.path.exists(shipped):
    baseline = measure(free_labels.Model.load(shipped), _EVAL_COUNT.value,
                       _EVAL_BEAM.value)
    if not _better(measured, baseline):
      return {"shipped": False, "shipped_model_solved": baseline["solved"]}
  elif not measured["solved"]:
    return {"shipped": False}
  shutil.copyfile(snapshot_path, shipped)
  return {"shipped": True}


def run_campaign(config: free_labels.Config, minutes: float,
                 snapshots: Sequence[float]) -> None:
  """Trains one run through its pending stages."""
  name = _run_name(config)
  run_dir = os.path.join(_OUTPUT_DIR.value, name)
  snapshot_dir = os.path.join(_OUTPUT_DIR.value, "snapshots")
  mirror_run = (os.path.join(_MIRROR_DIR.value, name) if _MIRROR_DIR.value
                else "")
  for end, snapshot_path in campaigns.pending(snapshot_dir, snapshots,
                                              minutes, name + "_{}min.npz"):
    print(f"=== {name}: training to {end:g} minutes", flush=True)
    run_config = free_labels.RunConfig(
        iterations=10**9, output_dir=run_dir, max_training_seconds=60 * end,
        checkpoint_seconds=60 * _CHECKPOINT_MINUTES.value, log_every=200,
        eval_every=2000, mirror_dir=mirror_run)
    _, progress = free_labels.train(config, run_config,
                                    log=lambda line: print(line, flush=True))
    model_path = os.path.join(run_dir, free_labels.MODEL)
    began = time.perf_counter()
    measured = measure(free_labels.Model.load(model_path), _EVAL_COUNT.value,
                       _EVAL_BEAM.value)
    _snapshot(model_path, snapshot_path)
    entry = {"run": name, "minutes": end, "iterations": progress.iteration,
             "examples": progress.examples,
             "training_seconds": round(progress.seconds, 1),
             "measure_seconds": round(time.perf_counter() - began, 1),
             **measured}
    if _SHIP.value and end == max(campaigns.stage_ends(snapshots, minutes)):
      entry.update(ship_if_better(config, snapshot_path, measured))
    campaigns.record(_OUTPUT_DIR.value, entry)
    plot_campaign(_OUTPUT_DIR.value)
    if _MIRROR_DIR.value:
      mirror.copy_files(snapshot_dir, os.path.join(_MIRROR_DIR.value,
                                                   "snapshots"),
                        [os.path.basename(snapshot_path)])
      mirror.copy_files(_OUTPUT_DIR.value, _MIRROR_DIR.value,
                        [campaigns.RECORDS, PLOT])


def plot_campaign(output_dir: str) -> None:
  """campaign.png: each run's stage solve rate against training minutes."""
  records = reporting.read_json_lines(os.path.join(output_dir,
                                                   campaigns.RECORDS))
  curves = []
  for name in dict.fromkeys(record["run"] for record in records):
    stages = sorted((r for r in records if r["run"] == name),
                    key=lambda r: r["minutes"])
    curves.append((f"{name} ({stages[-1]['search']})", [
        [r["minutes"] for r in stages],
        [100 * r["solved"] / r["instances"] for r in stages]]))
  reporting.plot_curves(
      os.path.join(output_dir, PLOT), [("training minutes (one core)", "log")],
      curves, f"free-label campaign: {records[0]['instances']} seeded "
      "instances a stage", ylabel="% solved", yscale="linear")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input("runs"):
    configs = [_parse_run(text) for text in _RUNS.value]
  with cli.user_input("minutes"):
    budgets, snapshots = campaigns.budgets(_MINUTES.value, _SNAPSHOTS.value,
                                           _RUNS.value)
  if _MIRROR_DIR.value:
    campaigns.restore_from_mirror(_OUTPUT_DIR.value, _MIRROR_DIR.value)
  for config, minutes in zip(configs, budgets):
    run_campaign(config, minutes, snapshots)


if __name__ == "__main__":
  cli.run(main)
