"""The CPU campaign of DeepCubeA's hard puzzles: long DAVI training on one
core, continuing the shipped models, that the same command resumes after
any interruption.

For each of --puzzles in turn (the 3x3x3 cube first), continues the shipped
model's DAVI with its own settings (--batch_size may change the batch) up
to --minutes of training, in stages that end at each of --snapshots: at the
end of a stage it keeps a copy of the model (snapshots/model_<m>min.npz)
and scores it against the shipped model by their greedy policies on the
same scrambles (`algorithms/deepcubea/shipping.py`); with --ship it
replaces a shipped model it beats. Every stage resumes from the run's
checkpoint, so the same command goes on where the last one stopped (a
stage already done returns at once). campaign.jsonl records the stages;
campaign.png plots the greedy solve rate against training minutes. Run it
in the background, pinned to one core:

  nohup taskset -c 0 python benchmarks/deepcubea_campaign.py --ship \\
      --output_dir=run_state/deepcubea_campaign \\
      > run_state/deepcubea_campaign.log 2>&1 &

Each snapshot is a model `deepcubea_solve --model=` and
`deepcubea_diagnosis.py --model=` take.
"""

import dataclasses
import os
import shutil
from typing import Any, Optional, Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.algorithms.deepcubea import bwas
from open_spiel_ext.algorithms.deepcubea import davi
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.algorithms.deepcubea import shipping
from open_spiel_ext.utils import campaigns
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import compilation_cache
from open_spiel_ext.utils import reporting

_PUZZLES = flags.DEFINE_list(
    "puzzles", ["rubiks_cube:3", "lights_out:7"],
    "Shipped puzzles, puzzle:size, trained in this order.")
_MINUTES, _SNAPSHOTS = campaigns.define_flags("puzzle", runs=2)
_BATCH_SIZE = flags.DEFINE_integer(
    "batch_size", None, "States per iteration (default: the model's).")
_EVAL_DEPTHS = flags.DEFINE_integer("eval_depths", 10,
                                    "Scramble depths compared (over 1..K).")
_EVAL_STATES = flags.DEFINE_integer("eval_states", 100,
                                    "Scrambles per depth compared.")
_CHECKPOINT_MINUTES = flags.DEFINE_float(
    "checkpoint_minutes", 10.0, "Training minutes between checkpoints.")
_SHIP = flags.DEFINE_bool("ship", False, "Replace a shipped model that a "
                          "stage's model beats.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "run_state/deepcubea_campaign",
                                  "Runs, snapshots, campaign.jsonl and PNG.")
_MIRROR_DIR = flags.DEFINE_string(
    "mirror_dir", None, "A copy of what resumes the campaign, for a machine "
    "whose disk goes away with it: each puzzle's model at every checkpoint "
    "(float16), its metrics, and the stages' records (the snapshots stay "
    "behind: megabytes each). Where --output_dir lacks them the campaign "
    "resumes from there: the stages recorded are done, a run goes on from "
    "its mirrored model, Adam afresh.")


def parse_puzzle(text: str) -> tuple[str, int]:
  """"puzzle:size" -> (puzzle, size), a shipped one; ValueError if not."""
  puzzle, _, size = text.partition(":")
  if not size.isdigit():
    raise ValueError(f"--puzzles: {text!r} is not puzzle:size")
  bwas.shipped_model_path(puzzle, int(size))  # Names the shipped ones if not.
  return puzzle, int(size)


def training_config(shipped_path: str,
                    batch_size: Optional[int]) -> davi.Config:
  """The shipped model's settings, at `batch_size` if given."""
  config = davi.CostToGo.load(shipped_path).config
  if batch_size is not None:
    config = dataclasses.replace(config, batch_size=batch_size)
  config.validate()
  return config


def trained_seconds(run_dir: str, mirror_dir: str,
                    config: davi.Config) -> float:
  """Training seconds the run's checkpoint holds, else its mirrored
  model's (where `davi.train` resumes from), else 0."""
  path = os.path.join(run_dir, davi.CHECKPOINT)
  if os.path.exists(path):
    return davi.load_checkpoint(path, config)[1].seconds
  mirrored = os.path.join(mirror_dir, davi.MODEL)
  if mirror_dir and os.path.exists(mirrored):
    return davi.CostToGo.load(mirrored).info["training_seconds"]
  return 0.0


def campaign(puzzle: str, size: int, minutes: float,
             snapshots: Sequence[float], output_dir: str) -> None:
  """Trains one puzzle's model through its stages (those not done yet)."""
  shipped_path = bwas.shipped_model_path(puzzle, size)
  config = training_config(shipped_path, _BATCH_SIZE.value)
  name = puzzles.model_name(puzzle, size)
  run_dir = os.path.join(output_dir, name)
  recorded = {r["minutes"] for r in reporting.read_json_lines(
      os.path.join(output_dir, campaigns.RECORDS)) if r["puzzle"] == name}
  for end, snapshot in campaigns.pending(os.path.join(run_dir, "snapshots"),
                                         snapshots, minutes,
                                         "model_{}min.npz"):
    if end in recorded:
      continue  # Done on a machine that kept its snapshot, not this one.
    mirror_dir = _mirrored(output_dir, run_dir)
    _, progress = davi.train(config, davi.RunConfig(
        iterations=10**12, output_dir=run_dir,
        max_seconds=60 * end - trained_seconds(run_dir, mirror_dir, config),
        checkpoint_seconds=60 * _CHECKPOINT_MINUTES.value, log_every=100,
        eval_every=0, init_model=shipped_path, model_dtype="float16",
        mirror_dir=mirror_dir),
                             log=lambda line: print(f"{name}: {line}",
                                                    flush=True))
    shutil.copy(os.path.join(run_dir, davi.MODEL), snapshot)
    record = {"puzzle": name, "minutes": end,
              "iterations": progress.iteration,
              "target_updates": progress.target_updates,
              "snapshot": snapshot,
              **shipping.compare(snapshot, shipped_path, _EVAL_DEPTHS.value,
                                 _EVAL_STATES.value)}
    record["shipped"] = _SHIP.value and shipping.ship_if_better(
        record, shipped_path)
    print(shipping.describe(record), flush=True)
    campaigns.record(output_dir, record)
    _mirror(output_dir, [os.path.join(output_dir, campaigns.RECORDS)])


def _mirrored(output_dir: str, path: str) -> str:
  """`path` under --output_dir, under --mirror_dir instead ("" if none)."""
  if not _MIRROR_DIR.value:
    return ""
  return os.path.join(_MIRROR_DIR.value, os.path.relpath(path, output_dir))


def _mirror(output_dir: str, paths: Sequence[str]) -> None:
  """Copies each of `paths` under --output_dir to --mirror_dir, if set."""
  for path in paths if _MIRROR_DIR.value else ():
    destination = _mirrored(output_dir, path)
    os.makedirs(os.path.dirname(destination), exist_ok=True)
    shutil.copyfile(path, destination + ".partial")
    os.replace(destination + ".partial", destination)


def restore_from_mirror(mirror_dir: str, output_dir: str) -> None:
  """Copies the mirror's records where --output_dir has none (a new
  machine: the stages they record are done); each run resumes from its
  mirrored model by itself."""
  records = os.path.join(mirror_dir, campaigns.RECORDS)
  if (os.path.exists(records) and
      not os.path.exists(os.path.join(output_dir, campaigns.RECORDS))):
    os.makedirs(output_dir, exist_ok=True)
    shutil.copyfile(records, os.path.join(output_dir, campaigns.RECORDS))


def plot(records: Sequence[dict[str, Any]], path: str) -> None:
  """Per puzzle: the greedy solve rate (mean over depths, with its 95%
  interval) against training minutes beside the model it started from, and
  the solve rate by scramble depth at each stage."""
  names = list(dict.fromkeys(r["puzzle"] for r in records))
  fig, axes = reporting.plt.subplots(len(names), 2, squeeze=False,
                                     figsize=(12, 4.5 * len(names)))
  for (over_time, by_depth), name in zip(axes, names):
    own = [r for r in records if r["puzzle"] == name]
    scrambles = len(own[0]["depths"]) * own[0]["states_per_depth"]
    rates = np.array([r["candidate_mean_solved"] for r in own])
    half_widths = 1.96 * np.sqrt(rates * (1 - rates) / scrambles)
    over_time.errorbar([r["minutes"] for r in own], rates, half_widths,
                       marker="o", capsize=3, label="campaign's model")
    over_time.axhline(own[0]["baseline_mean_solved"], color="k", ls="--",
                      lw=1, label="model it started from")
    over_time.set_xlabel("training minutes of one core")
    over_time.set_ylabel(f"greedy solve rate ({scrambles} scrambles)")
    over_time.set_title(f"{name}: mean over depths, 95% intervals")
    by_depth.plot(own[0]["depths"], own[0]["baseline_solved"], "k--",
                  label="model it started from")
    for record in own:
      by_depth.plot(record["depths"], record["candidate_solved"],
                    marker=".", label=f"{record['minutes']:g} minutes")
    by_depth.set_xlabel("scramble depth")
    by_depth.set_ylabel("greedy solve rate")
    by_depth.set_title(f"{name}: by depth")
    for axis in (over_time, by_depth):
      axis.grid(True, alpha=0.3)
      axis.legend(fontsize=8)
  fig.suptitle("DeepCubeA's CPU campaign")
  reporting.save_figure(fig, path)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input():
    chosen = [parse_puzzle(text) for text in _PUZZLES.value]
    minutes, snapshots = campaigns.budgets(_MINUTES.value, _SNAPSHOTS.value,
                                           _PUZZLES.value)
    if _BATCH_SIZE.value is not None and _BATCH_SIZE.value < 1:
      raise ValueError(f"--batch_size must be at least 1, got "
                       f"{_BATCH_SIZE.value}")
  output_dir = _OUTPUT_DIR.value
  if _MIRROR_DIR.value:
    restore_from_mirror(_MIRROR_DIR.value, output_dir)
  compilation_cache.enable(os.path.join(output_dir, "jax_cache"))
  for (puzzle, size), budget in zip(chosen, minutes):
    campaign(puzzle, size, budget, snapshots, output_dir)
    plot(reporting.read_json_lines(os.path.join(output_dir,
                                                campaigns.RECORDS)),
         os.path.join(output_dir, "campaign.png"))


if __name__ == "__main__":
  cli.run(main)
