"""Long trainings in stages that the same command resumes: the CPU campaigns
of `benchmarks/` (Hanabi's belief models, DeepCubeA's cost-to-go networks).

A campaign trains each of its runs up to a budget of training minutes in
stages ending at the snapshot minutes below it: at the end of a stage it
keeps a copy of the model (its snapshot) and records what it measured in
campaign.jsonl. A stage whose snapshot exists is done, and each run resumes
from its own checkpoint, so after any interruption the same command goes on
where the last one stopped. On a machine whose disk goes away, a campaign
also keeps a mirror of what resumes it (`restore_from_mirror`).
"""

import json
import os
from typing import Iterator, Sequence

from absl import flags

from open_spiel_ext.utils import mirror

RECORDS = "campaign.jsonl"


def define_flags(each: str, runs: int
                ) -> tuple[flags.FlagHolder, flags.FlagHolder]:
  """The --minutes (of training, 360 for each of `runs` runs named by
  `each`) and --snapshots flags of a campaign."""
  minutes = flags.DEFINE_list(
      "minutes", ["360"] * runs, f"Training minutes of each {each}'s model "
      f"({6 * runs} hours of one core in all).")
  snapshots = flags.DEFINE_list(
      "snapshots", ["30", "90", "180", "360"],
      "Training minutes at which a stage ends (a snapshot, a comparison "
      "with the shipped model).")
  return minutes, snapshots


def budgets(minutes: Sequence[str], snapshots: Sequence[str],
            runs: Sequence[str]) -> tuple[list[float], list[float]]:
  """The flags' minutes, one budget per run, and snapshot minutes; raises
  ValueError for a count or value that does not fit."""
  try:
    parsed = [float(m) for m in minutes], [float(m) for m in snapshots]
  except ValueError as error:
    raise ValueError(f"--minutes and --snapshots take numbers: {error}"
                     ) from None
  if len(parsed[0]) != len(runs):
    raise ValueError(f"--minutes={','.join(minutes)} needs one value per "
                     f"run ({', '.join(runs)})")
  if min(parsed[0] + parsed[1], default=1) <= 0:
    raise ValueError("--minutes and --snapshots must be positive")
  return parsed


def stage_ends(snapshots: Sequence[float], minutes: float) -> list[float]:
  """The stages' ends: the snapshots before `minutes`, then `minutes`."""
  return sorted({m for m in snapshots if m < minutes} | {minutes})


def pending(snapshot_dir: str, snapshots: Sequence[float], minutes: float,
            name: str) -> Iterator[tuple[float, str]]:
  """(end, snapshot path) of each stage not done yet, in order; `name`
  formats a snapshot's file name from its end ("model_{}min.npz")."""
  os.makedirs(snapshot_dir, exist_ok=True)
  for end in stage_ends(snapshots, minutes):
    path = os.path.join(snapshot_dir, name.format(f"{end:g}"))
    if not os.path.exists(path):
      yield end, path


def record(output_dir: str, entry: dict) -> None:
  """Prints a stage's record and appends it to output_dir/campaign.jsonl."""
  print(json.dumps(entry), flush=True)
  with open(os.path.join(output_dir, RECORDS), "a", encoding="utf-8") as f:
    f.write(json.dumps(entry) + "\n")


def restore_from_mirror(output_dir: str, mirror_dir: str,
                        snapshot_dirs: Sequence[str] = ("snapshots",)
                       ) -> None:
  """A new machine: the records and the snapshots (in each of
  `snapshot_dirs`, relative to both folders) come back from the mirror,
  where output_dir lacks them (each run's checkpoint comes back when the
  run resumes)."""
  os.makedirs(output_dir, exist_ok=True)
  if not os.path.exists(os.path.join(output_dir, RECORDS)):
    mirror.copy_files(mirror_dir, output_dir, [RECORDS])
  for folder in snapshot_dirs:
    mirrored = os.path.join(mirror_dir, folder)
    if os.path.isdir(mirrored):
      local = os.path.join(output_dir, folder)
      mirror.copy_files(mirrored, local, [
          name for name in os.listdir(mirrored)
          if not os.path.exists(os.path.join(local, name))])
