"""The CPU campaign of the belief models of full Hanabi: long training on one
core that the same command resumes after any interruption.

For each of --blueprints in turn (the rule bot's first), trains its belief
model with the CPU settings (`experiments.hanabi_recipes.belief_config`) up
to --minutes of training, in stages that end at each of --snapshots: at the
end of a stage it keeps a copy of the model (snapshots/belief_<m>min.npz,
what item 4's curve of LBS's gain against belief quality scores), and, with
--ship, replaces the shipped model if the new one has the lower held-out
cross-entropy. Every stage resumes from the run's checkpoint, so the same
command, run again, goes on where the last one stopped (a stage already
done returns at once). With --mirror_dir, each evaluation also copies the
run's checkpoint, model and metrics there, and each stage its snapshot and
record (`runs/`, committed as it goes): on a new machine the same command
takes them back and goes on (a checkpoint keeps no replay buffer: a resumed
run refills it with new games first). Run it in the background, pinned to
one core:

  nohup taskset -c 1 python benchmarks/lbs_belief_campaign.py \
      --output_dir=run_state/belief_campaign --ship \
      > run_state/belief_campaign.log 2>&1 &
"""

import os
import shutil
from typing import Sequence

from absl import app
from absl import flags

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import selfplay
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.experiments import hanabi_recipes
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import campaigns
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import compilation_cache
from open_spiel_ext.utils import mirror

_PRESET = flags.DEFINE_enum("preset", "full", list(engine_lib.PRESETS),
                            "Hanabi variant.")
_BLUEPRINTS = flags.DEFINE_list("blueprints", ["rules", "strong"],
                                "Whose belief models, in this order.")
_MINUTES, _SNAPSHOTS = campaigns.define_flags("blueprint", runs=2)
_EVAL_EVERY = flags.DEFINE_integer("eval_every", 1_000,
                                   "Updates between evaluations.")
_SHIP = flags.DEFINE_bool("ship", False, "Replace a shipped model that a "
                          "stage's model beats on held-out cross-entropy.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "run_state/belief_campaign",
                                  "Runs, snapshots and campaign.jsonl.")
_MIRROR_DIR = flags.DEFINE_string(
    "mirror_dir", "", "Where a copy of what resumes the campaign is kept "
    "(none if empty).")
# What a run's mirror keeps, copied after every evaluation.
RUN_FILES = ("checkpoint.pkl", "belief.npz", "metrics.jsonl")


def campaign(preset: str, blueprint_name: str, minutes: float,
             snapshots: Sequence[float], output_dir: str,
             mirror_dir: str) -> None:
  """Trains one blueprint's belief model through its pending stages."""
  blueprint = selfplay.blueprint(preset, blueprint_name)
  config = hanabi_recipes.belief_config(blueprint.has_value)
  run_dir = os.path.join(output_dir, blueprint_name)
  mirror_run = (os.path.join(mirror_dir, blueprint_name) if mirror_dir
                else "")
  if mirror_run and not os.path.exists(os.path.join(run_dir, RUN_FILES[0])):
    mirror.copy_files(mirror_run, run_dir, RUN_FILES)

  def on_entry(entry: belief_model.LogEntry) -> None:
    print(f"{blueprint_name}: {entry.updates:,d} updates, "
          f"{entry.wall_time / 60:.1f} min, held-out cross-entropy "
          f"{entry.eval_cross_entropy:.3f}", flush=True)
    if mirror_run:
      mirror.copy_files(run_dir, mirror_run, RUN_FILES)

  for end, snapshot in campaigns.pending(os.path.join(run_dir, "snapshots"),
                                         snapshots, minutes,
                                         "belief_{}min.npz"):
    log = belief_model.train(
        blueprint, blueprint_name, config, run_dir, 10**9,
        max_seconds=60 * end, eval_every=_EVAL_EVERY.value,
        on_entry=on_entry)
    shutil.copy(os.path.join(run_dir, "belief.npz"), snapshot)
    record = {"blueprint": blueprint_name, "minutes": end,
              "updates": log[-1].updates, "games": log[-1].games,
              "snapshot": snapshot}
    if _SHIP.value:
      record.update(shipped.compare_belief_models(snapshot, blueprint, preset,
                                                  blueprint_name))
      if record["better"]:
        shutil.copy(snapshot, record["shipped"])
    campaigns.record(output_dir, record)
    if mirror_run:
      mirror.copy_files(os.path.dirname(snapshot),
                        os.path.join(mirror_run, "snapshots"),
                        [os.path.basename(snapshot)])
      mirror.copy_files(output_dir, mirror_dir, [campaigns.RECORDS])


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input():
    minutes, snapshots = campaigns.budgets(_MINUTES.value, _SNAPSHOTS.value,
                                           _BLUEPRINTS.value)
  compilation_cache.enable(os.path.join(_OUTPUT_DIR.value,
                                              "jax_cache"))
  if _MIRROR_DIR.value:
    campaigns.restore_from_mirror(
        _OUTPUT_DIR.value, _MIRROR_DIR.value,
        [os.path.join(name, "snapshots") for name in _BLUEPRINTS.value])
  for blueprint_name, budget in zip(_BLUEPRINTS.value, minutes):
    with cli.user_input("blueprints"):
      campaign(_PRESET.value, blueprint_name, budget, snapshots,
               _OUTPUT_DIR.value, _MIRROR_DIR.value)


if __name__ == "__main__":
  cli.run(main)
