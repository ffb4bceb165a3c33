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
done returns at once). Run it in the background, pinned to one core:

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


def campaign(preset: str, blueprint_name: str, minutes: float,
             snapshots: Sequence[float], output_dir: str) -> None:
  blueprint = selfplay.blueprint(preset, blueprint_name)
  config = hanabi_recipes.belief_config(blueprint.has_value)
  run_dir = os.path.join(output_dir, blueprint_name)
  for end, snapshot in campaigns.pending(os.path.join(run_dir, "snapshots"),
                                         snapshots, minutes,
                                         "belief_{}min.npz"):
    log = belief_model.train(
        blueprint, blueprint_name, config, run_dir, 10**9,
        max_seconds=60 * end, eval_every=_EVAL_EVERY.value,
        on_entry=lambda e: print(
            f"{blueprint_name}: {e.updates:,d} updates, "
            f"{e.wall_time / 60:.1f} min, held-out cross-entropy "
            f"{e.eval_cross_entropy:.3f}", flush=True))
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


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input():
    minutes, snapshots = campaigns.budgets(_MINUTES.value, _SNAPSHOTS.value,
                                           _BLUEPRINTS.value)
  compilation_cache.enable(os.path.join(_OUTPUT_DIR.value,
                                              "jax_cache"))
  for blueprint_name, budget in zip(_BLUEPRINTS.value, minutes):
    with cli.user_input("blueprints"):
      campaign(_PRESET.value, blueprint_name, budget, snapshots,
               _OUTPUT_DIR.value)


if __name__ == "__main__":
  cli.run(main)
