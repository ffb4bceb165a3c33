"""What belief quality learned belief search needs: LBS's paired gain against
the held-out cross-entropy of the belief model it samples from.

For each belief model in --models (by default the snapshots the CPU
campaign, `lbs_belief_campaign.py`, kept under --campaign_dir, and the
shipped model), scores it on the trainer's held-out games and plays LBS
with --depth-move rollouts on the same --games decks, paired with the
blueprint alone on each; SPARTA's gain on those decks is the line LBS aims
at. Every run resumes from its games.jsonl (a SPARTA run of the same
settings copied into output_dir/SPARTA is reused). Prints a table and
writes results.json and belief_value.png.

  python benchmarks/lbs_belief_value.py --preset=full --blueprint=rules \
      --games=30 --rollouts=1000 --output_dir=benchmark_results/belief_value
"""

import glob
import json
import os
import re
from typing import Any, Sequence

from absl import app
from absl import flags

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import selfplay
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_PRESET = flags.DEFINE_enum("preset", "full", list(engine_lib.PRESETS),
                            "Hanabi variant.")
_BLUEPRINT = flags.DEFINE_string("blueprint", "rules",
                                 "'rules' or a shipped strength.")
_MODELS = flags.DEFINE_list(
    "models", None, "Belief model files (default: the campaign's snapshots "
    "and the shipped model).")
_CAMPAIGN_DIR = flags.DEFINE_string(
    "campaign_dir", "run_state/belief_campaign",
    "The campaign's output folder (its <blueprint>/snapshots).")
_GAMES = flags.DEFINE_integer("games", 30, "Decks.", lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the decks.")
_DEPTH = flags.DEFINE_integer("depth", 16, "LBS's rollout depth (moves).",
                              lower_bound=1)
_ROLLOUTS = flags.DEFINE_integer("rollouts", 1_000,
                                 "Rollouts per decision (both searches).")
_BATCH = flags.DEFINE_integer("batch", 1_000, "Rollouts played at once.")
_OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", "benchmark_results/belief_value",
    "A run per model and SPARTA's, results.json, the PNG.")
cli.define_executor_flags(workers=1)


def default_models(campaign_dir: str, preset: str,
                   blueprint_name: str) -> list[str]:
  """The campaign's snapshots, oldest first, then the shipped model unless
  it is one of them (a campaign ships its snapshots byte for byte)."""
  snapshots = glob.glob(os.path.join(campaign_dir, blueprint_name,
                                     "snapshots", "belief_*min.npz"))
  minutes = lambda path: float(re.search(r"belief_([\d.]+)min", path)[1])
  models = sorted(snapshots, key=minutes)
  shipped_path = shipped.belief_model_path(preset, blueprint_name)
  digests = {selfplay.belief_model_digest(path) for path in models}
  if selfplay.belief_model_digest(shipped_path) not in digests:
    models.append(shipped_path)
  return models


def model_label(path: str) -> str:
  """A run folder's name for the model at `path` (the shipped model's with
  its digest: a campaign replaces it in place)."""
  if os.path.abspath(os.path.dirname(path)) == os.path.abspath(
      shipped.WEIGHTS_DIR):
    return f"shipped_{selfplay.belief_model_digest(path)[:8]}"
  return os.path.splitext(os.path.basename(path))[0]


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  preset, name, output_dir = (_PRESET.value, _BLUEPRINT.value,
                              _OUTPUT_DIR.value)
  with cli.user_input("blueprint"):
    blueprint = selfplay.blueprint(preset, name)
  models = _MODELS.value or default_models(_CAMPAIGN_DIR.value, preset, name)
  config = sparta.Config(rollouts=_ROLLOUTS.value, batch=_BATCH.value)
  rows, results = [], {}
  with cli.user_input(), cli.executor_from_flags() as executor:
    run = lambda label, search: selfplay.run_games(
        executor, preset, name, _SEED.value, _GAMES.value, search,
        os.path.join(output_dir, label))["summary"]
    spartan = run("SPARTA", selfplay.search_spec("sparta", config=config))
    for path in models:
      label = model_label(path)
      cross_entropy = belief_model.held_out_cross_entropy(
          belief_model.load(path), blueprint)
      cell = run(label, selfplay.search_spec(
          "lbs", config=config, rollout_depth=_DEPTH.value,
          belief_model_path=os.path.abspath(path)))
      results[label] = {"model": path, "cross_entropy": cross_entropy,
                        **cell}
      rows.append([
          label, f"{cross_entropy:.3f}",
          f"{cell['paired_gain']:+.2f} ± "
          f"{cell['paired_gain_standard_error']:.2f}",
          f"{cell['paired_gain'] / spartan['paired_gain']:.0%}",
          f"{cell['seconds_per_game']:.1f}",
          f"{spartan['seconds_per_game'] / cell['seconds_per_game']:.1f}"])
  results["SPARTA"] = spartan
  print(f"LBS-{_DEPTH.value} on {_GAMES.value} decks of Hanabi {preset} "
        f"({name}); SPARTA's paired gain {spartan['paired_gain']:+.2f} ± "
        f"{spartan['paired_gain_standard_error']:.2f}, "
        f"{spartan['seconds_per_game']:.1f} s a game:\n" +
        reporting.markdown_table(
            ["belief model", "held-out CE", "LBS paired gain",
             "share of SPARTA's", "s / game", "times faster"], rows))
  with open(os.path.join(output_dir, "results.json"), "w") as f:
    json.dump(results, f, indent=1)
  plot(results, spartan, os.path.join(output_dir, "belief_value.png"))


def plot(results: dict[str, Any], spartan: dict[str, Any], path: str) -> None:
  """LBS's paired gain against the model's cross-entropy, SPARTA's beside."""
  fig, axis = reporting.plt.subplots(figsize=(6.5, 4.5))
  cells = [cell for label, cell in results.items() if label != "SPARTA"]
  axis.errorbar([c["cross_entropy"] for c in cells],
                [c["paired_gain"] for c in cells],
                [c["paired_gain_standard_error"] for c in cells],
                marker="o", linestyle="", label=f"LBS-{_DEPTH.value}")
  axis.axhline(spartan["paired_gain"], color="C1", label="SPARTA")
  axis.axhline(0, color="grey", linewidth=0.8)
  axis.set_xlabel("belief model's held-out cross-entropy per card (nats)")
  axis.set_ylabel("paired gain over the blueprint (points)")
  axis.set_title(f"LBS against belief quality, Hanabi {_PRESET.value} "
                 f"({_BLUEPRINT.value}, {_GAMES.value} decks)")
  axis.legend()
  reporting.save_figure(fig, path)


if __name__ == "__main__":
  cli.run(main)
