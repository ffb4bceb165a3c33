"""What belief quality learned belief search needs: LBS's paired gain against
the held-out cross-entropy of the belief model it samples from.

For each belief model in --models (by default the snapshots the CPU
campaign, `lbs_belief_campaign.py`, kept under --campaign_dir, and the
shipped model), scores it on the trainer's held-out games and plays LBS
with --depth-move rollouts on the same --games decks, paired with the
blueprint alone on each; SPARTA's gain on those decks is the line LBS aims
at. Where SPARTA refuses the decks' beliefs (seven-card hands: too many
hands to hold), or with --target_gain, LBS aims at that gain instead (by
default 0: where LBS starts to pay). Every run resumes from its games.jsonl
(a SPARTA run of the same settings copied into output_dir/SPARTA is
reused). Prints a table and writes results.json and belief_value.png.

Then it extrapolates, and says so: a straight line through the models'
(cross-entropy, gain) points, weighted by their errors, gives the
cross-entropy at which LBS would keep --target_share of SPARTA's gain (or
reach --target_gain); the
campaign's own curve (its metrics.jsonl, held-out cross-entropy against
training minutes, fit as a + b ln(minutes) from 30 minutes on) gives the
CPU-minutes that would reach it. With --quality (the JSON of
`lbs_belief_quality.py` on the same blueprint), the exact belief's
cross-entropy on the same scale marks the floor no model can pass.

  python benchmarks/lbs_belief_value.py --preset=full --blueprint=rules \
      --games=30 --rollouts=1000 --output_dir=benchmark_results/belief_value
  python benchmarks/lbs_belief_value.py --preset=seven_cards \
      --campaign_dir=run_state/belief_campaign_seven_cards \
      --output_dir=benchmark_results/belief_value_seven_cards
"""

import glob
import json
import os
import re
from typing import Any, Optional, Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import beliefs
from open_spiel_ext.algorithms.hanabi import selfplay
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_PRESET = flags.DEFINE_enum("preset", "full", list(engine_lib.PRESETS),
                            "Hanabi variant.")
_BLUEPRINT = flags.DEFINE_string("blueprint", "rules",
                                 shipped.BLUEPRINT_NAMES + ".")
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
_MAX_BELIEF_HANDS = flags.DEFINE_integer(
    "max_belief_hands", sparta.Config.max_belief_hands,
    "SPARTA refuses exact beliefs that may hold more hands.", lower_bound=1)
_TARGET_SHARE = flags.DEFINE_float(
    "target_share", 0.55, "The share of SPARTA's gain the extrapolation "
    "aims at (the LBS paper's lowest).")
_TARGET_GAIN = flags.DEFINE_float(
    "target_gain", None, "The paired gain the extrapolation aims at instead "
    "of --target_share of SPARTA's (default where SPARTA refuses: 0, where "
    "LBS starts to pay).")
_QUALITY = flags.DEFINE_string(
    "quality", None, "lbs_belief_quality.py's JSON on this blueprint: "
    "places the exact belief on the held-out scale.")
# The campaign's trend is fit from here on (its first minutes fall faster).
TREND_FROM_MINUTES = 30
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
  config = sparta.Config(rollouts=_ROLLOUTS.value, batch=_BATCH.value,
                         max_belief_hands=_MAX_BELIEF_HANDS.value)
  rows, results = [], {}
  with cli.user_input(), cli.executor_from_flags() as executor:
    run = lambda label, search: selfplay.run_games(
        executor, preset, name, _SEED.value, _GAMES.value, search,
        os.path.join(output_dir, label))["summary"]
    try:
      spartan = run("SPARTA", selfplay.search_spec("sparta", config=config))
    except beliefs.BeliefTooLarge as error:
      print(f"SPARTA refused: {error}", flush=True)
      spartan, results["SPARTA"] = None, {"refused": str(error)}
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
          f"{cell['seconds_per_game']:.1f}", *beside_sparta(cell, spartan)])
  if spartan is not None:
    results["SPARTA"] = spartan
  metrics_path = os.path.join(_CAMPAIGN_DIR.value, name, "metrics.jsonl")
  with cli.user_input("quality"):
    floor = exact_floor(_QUALITY.value, blueprint) if _QUALITY.value else None
  results["extrapolation"] = extrapolation = extrapolate(
      results, spartan, reporting.read_json_lines(metrics_path), floor)
  sparta_line = ("SPARTA refused" if spartan is None else
                 f"SPARTA's paired gain {spartan['paired_gain']:+.2f} ± "
                 f"{spartan['paired_gain_standard_error']:.2f}, "
                 f"{spartan['seconds_per_game']:.1f} s a game")
  print(f"LBS-{_DEPTH.value} on {_GAMES.value} decks of Hanabi {preset} "
        f"({name}); {sparta_line}:\n" +
        reporting.markdown_table(
            ["belief model", "held-out CE", "LBS paired gain", "s / game",
             "share of SPARTA's", "times faster"], rows))
  print(describe(extrapolation))
  with open(os.path.join(output_dir, "results.json"), "w") as f:
    json.dump(results, f, indent=1)
  plot(results, spartan, reporting.read_json_lines(metrics_path),
       os.path.join(output_dir, "belief_value.png"))


def beside_sparta(cell: dict[str, Any],
                  spartan: Optional[dict[str, Any]]) -> list[str]:
  """An LBS cell's share of SPARTA's gain and how many times faster it is
  ("–" for both where SPARTA refused)."""
  if spartan is None:
    return ["–", "–"]
  return [f"{cell['paired_gain'] / spartan['paired_gain']:.0%}",
          f"{spartan['seconds_per_game'] / cell['seconds_per_game']:.1f}"]


def target(spartan: Optional[dict[str, Any]]) -> tuple[float, str]:
  """The paired gain the extrapolation aims at, and its words: --target_gain
  if given, else --target_share of SPARTA's gain, else (SPARTA refused)
  0."""
  if _TARGET_GAIN.value is not None or spartan is None:
    gain = _TARGET_GAIN.value or 0.0
    return gain, f"a paired gain of {gain:+.2f}"
  return (_TARGET_SHARE.value * spartan["paired_gain"],
          f"{_TARGET_SHARE.value:.0%} of SPARTA's gain")


def exact_floor(quality_path: str, blueprint: Any) -> dict[str, float]:
  """The exact belief's cross-entropy on the held-out scale: the quality
  run's exact mean shifted by its learned model's gap between the two
  scales (held-out games against the quality run's positions)."""
  with open(quality_path, encoding="utf-8") as f:
    quality = json.load(f)
  overall = quality["overall"]
  held_out = belief_model.held_out_cross_entropy(
      belief_model.load(quality["belief_model"]), blueprint)
  return {"exact": overall["exact"], "learned": overall["learned"],
          "model_held_out": held_out,
          "held_out_scale": overall["exact"] - overall["learned"] + held_out}


def campaign_curve(metrics: list[dict[str, Any]]
                  ) -> tuple[np.ndarray, np.ndarray]:
  """The campaign's training minutes and held-out cross-entropy at each of
  its evaluations."""
  evaluated = [m for m in metrics if m.get("eval_cross_entropy") is not None]
  return (np.array([m["wall_time"] / 60 for m in evaluated]),
          np.array([m["eval_cross_entropy"] for m in evaluated]))


def extrapolate(results: dict[str, Any], spartan: Optional[dict[str, Any]],
                metrics: list[dict[str, Any]],
                floor: Any) -> dict[str, Any]:
  """Where the models' line crosses the target gain (`target`), and the
  campaign minutes its log-linear trend needs to get there (None where a
  fit cannot say: fewer than two points, or no downward slope)."""
  cells = [c for label, c in results.items() if label != "SPARTA"]
  target_gain, aim = target(spartan)
  out = {"aim": aim, "target_gain": target_gain,
         "floor": floor, "line": None, "needed_cross_entropy": None,
         "trend": None, "needed_minutes": None}
  if len({c["cross_entropy"] for c in cells}) >= 2:
    slope, intercept = np.polyfit(
        [c["cross_entropy"] for c in cells], [c["paired_gain"] for c in cells],
        1, w=[1 / max(c["paired_gain_standard_error"], 1e-9) for c in cells])
    out["line"] = [float(slope), float(intercept)]
    if slope < 0:
      out["needed_cross_entropy"] = float((target_gain - intercept) / slope)
  minutes, cross_entropy = campaign_curve(metrics)
  fitted = minutes >= TREND_FROM_MINUTES
  minutes, cross_entropy = minutes[fitted], cross_entropy[fitted]
  if len(minutes) >= 2:
    rate, at_one_minute = np.polyfit(np.log(minutes), cross_entropy, 1)
    out["trend"] = [float(at_one_minute), float(rate)]
    out["trained_minutes"] = float(minutes[-1])
    out["games_per_minute"] = metrics[-1]["games"] / minutes[-1]
    if rate < 0 and out["needed_cross_entropy"] is not None:
      out["needed_minutes"] = float(np.exp(
          (out["needed_cross_entropy"] - at_one_minute) / rate))
  return out


def describe(extrapolation: dict[str, Any]) -> str:
  """The extrapolation in words, as an extrapolation."""
  e = extrapolation
  lines = [f"Extrapolated, not measured: to reach {e['aim']} "
           f"({e['target_gain']:+.2f})"]
  if e["needed_cross_entropy"] is None:
    return lines[0] + ": the models' points give no falling line yet."
  lines.append(f"LBS needs a held-out cross-entropy of about "
               f"{e['needed_cross_entropy']:.3f} nats a card (a straight "
               f"line through the models' points)")
  if e["needed_minutes"] is not None:
    lines.append(
        f"the campaign's trend ({e['trend'][0]:.3f} "
        f"{e['trend'][1]:+.3f} ln minutes) reaches it after about "
        f"{e['needed_minutes']:,.0f} minutes of one core, "
        f"{e['needed_minutes'] / e['trained_minutes']:.1f} times its "
        f"{e['trained_minutes']:.0f} so far (about "
        f"{e['needed_minutes'] * e['games_per_minute'] * 2 / 1e6:.1f} M "
        f"sequences)")
  if e["floor"] is not None:
    floor = e["floor"]["held_out_scale"]
    lines.append(f"the exact belief reads about {floor:.3f} on that scale, "
                 f"the floor no model passes" + (
                     " (so by this line no model gets there)"
                     if e["needed_cross_entropy"] < floor else ""))
  return ";\n  ".join(lines) + "."


def plot(results: dict[str, Any], spartan: Optional[dict[str, Any]],
         metrics: list[dict[str, Any]], path: str) -> None:
  """LBS's paired gain against the model's cross-entropy, SPARTA's beside
  (unless it refused); the campaign's cross-entropy against minutes; both
  with the extrapolation."""
  extrapolation = results["extrapolation"]
  fig, (axis, trend_axis) = reporting.plt.subplots(1, 2, figsize=(12, 4.5))
  cells = [cell for label, cell in results.items()
           if label not in ("SPARTA", "extrapolation")]
  axis.errorbar([c["cross_entropy"] for c in cells],
                [c["paired_gain"] for c in cells],
                [c["paired_gain_standard_error"] for c in cells],
                marker="o", linestyle="", label=f"LBS-{_DEPTH.value}")
  if spartan is not None:
    axis.axhline(spartan["paired_gain"], color="C1", label="SPARTA")
  axis.axhline(0, color="grey", linewidth=0.8)
  needed = extrapolation["needed_cross_entropy"]
  if extrapolation["line"] is not None:
    low = min([needed or np.inf] + [c["cross_entropy"] for c in cells])
    xs = np.linspace(low, max(c["cross_entropy"] for c in cells), 50)
    axis.plot(xs, np.polyval(extrapolation["line"], xs), "--", color="C0",
              label="straight line (extrapolated)")
  if extrapolation["floor"] is not None:
    axis.axvline(extrapolation["floor"]["held_out_scale"], color="C2",
                 linestyle=":", label="exact belief")
  axis.set_xlabel("belief model's held-out cross-entropy per card (nats)")
  axis.set_ylabel("paired gain over the blueprint (points)")
  axis.set_title(f"LBS against belief quality, Hanabi {_PRESET.value} "
                 f"({_BLUEPRINT.value}, {_GAMES.value} decks)")
  axis.legend()
  minutes, cross_entropy = campaign_curve(metrics)
  if len(minutes):
    trend_axis.plot(minutes, cross_entropy, label="campaign (held out)")
    if extrapolation["trend"] is not None:
      end = max(minutes[-1], extrapolation["needed_minutes"] or 0)
      xs = np.geomspace(TREND_FROM_MINUTES, end, 50)
      trend_axis.plot(xs, extrapolation["trend"][0] +
                      extrapolation["trend"][1] * np.log(xs), "--",
                      label="log-linear trend (extrapolated)")
    if needed is not None:
      trend_axis.axhline(needed, color="C3", linestyle=":",
                         label=f"needed for {extrapolation['aim']}")
    trend_axis.set_xscale("log")
    trend_axis.set_xlabel("training minutes (one CPU core)")
    trend_axis.set_ylabel("held-out cross-entropy per card (nats)")
    trend_axis.set_title("The campaign's belief model")
    trend_axis.legend()
  reporting.save_figure(fig, path)


if __name__ == "__main__":
  cli.run(main)
