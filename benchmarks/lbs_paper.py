"""Learned belief search against SPARTA, as the LBS paper's Tables 1 and 2.

Two tables, every cell a run of `algorithms/hanabi/selfplay.py` on the same
decks (game i's deck depends only on --seed and i), so each search's gain
over the blueprint is paired game by game:

- blueprints (Table 2): on --preset, for each of --blueprints, SPARTA and
  LBS with each rollout depth in --depths (and, with --both_players, LBS at
  the first depth with both players searching): mean score ± s.e.m., the
  paired gain ± s.e.m., the search's seconds per game (deciding and
  keeping its belief: SPARTA's exact belief costs more than its rollouts
  on full Hanabi) and of those the belief's, LBS's share of SPARTA's gain
  and how many times faster than SPARTA it is per game;
- hand_sizes (Table 1): the rule-based bot on 5-, 6- and 7-card hands
  (presets full, six_cards, seven_cards: 4 hints at 7 cards), SPARTA
  against LBS at --hand_size_depth: seconds per searching move and peak
  memory of the worker. SPARTA refuses a belief that may hold more than
  --max_belief_hands hands (it would not fit in memory); the table then
  gives the bound.

Each cell runs in fresh worker processes (so a worker's peak memory is its
cell's) and resumes from its games.jsonl: rerunning the command finishes an
interrupted run. Prints markdown tables and writes results.json and a PNG
per table.

  python benchmarks/lbs_paper.py --preset=small --games=1000 \
      --output_dir=/tmp/lbs_paper
  python benchmarks/lbs_paper.py --preset=full --games=100,50 \
      --blueprints=rules,strong --tables=blueprints,hand_sizes
"""

import json
import os
from typing import Any, Optional, Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.algorithms.hanabi import beliefs
from open_spiel_ext.algorithms.hanabi import selfplay
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

TABLES = ("blueprints", "hand_sizes")
HAND_SIZE_PRESETS = ("full", "six_cards", "seven_cards")
_TABLES = cli.define_choice_list("tables", TABLES, ["blueprints"],
                                 "Which tables to run.")
_PRESET = flags.DEFINE_string("preset", "small", "Variant of the "
                              "blueprints table.")
_BLUEPRINTS = flags.DEFINE_list("blueprints", ["rules", "strong"],
                                "Blueprints of the blueprints table.")
_DEPTHS = flags.DEFINE_list("depths", ["1", "4", "16", "full"],
                            "LBS rollout depths (moves, or 'full').")
_BOTH_PLAYERS = flags.DEFINE_bool(
    "both_players", True, "Also LBS at the first depth with both players "
    "searching.")
_GAMES = flags.DEFINE_list("games", ["100"], "Games per cell of the "
                           "blueprints table: one number, or one per "
                           "--blueprints entry (e.g. 100,50).")
_HAND_SIZE_GAMES = flags.DEFINE_integer(
    "hand_size_games", 30, "Games per cell of the hand_sizes table.",
    lower_bound=1)
_HAND_SIZE_DEPTH = flags.DEFINE_string("hand_size_depth", "16",
                                       "LBS's rollout depth there.")
_ROLLOUTS = flags.DEFINE_integer("rollouts", 10_000,
                                 "Rollouts per decision (both searches).")
_BATCH = flags.DEFINE_integer("batch", 1_000, "Rollouts played at once.")
_THRESHOLD = flags.DEFINE_float(
    "threshold", sparta.Config.threshold, "The gain a search needs to leave "
    "the blueprint's move (SPARTA's reference code: 0.1).", lower_bound=0)
_MAX_BELIEF_HANDS = flags.DEFINE_integer(
    "max_belief_hands", sparta.Config.max_belief_hands,
    "SPARTA refuses exact beliefs that may hold more hands.")
_BELIEF_DIR = flags.DEFINE_string(
    "belief_dir", shipped.WEIGHTS_DIR, "Where the belief models are "
    "(<preset>_<blueprint>_belief.npz).")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the decks and searches.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where results, tables and PNGs go.")
cli.define_executor_flags()


def _label(kind: str, depth: Optional[int] = None,
           players: Sequence[int] = (1,)) -> str:
  if kind == "sparta":
    return "SPARTA"
  name = f"LBS-{'full' if depth is None else depth}"
  return name + (" (both players)" if len(players) > 1 else "")


def run_cell(preset: str, blueprint: str, label: str,
             search: dict[str, Any], games: int) -> dict[str, Any]:
  """One cell in fresh workers: its summary, or why SPARTA refused."""
  directory = os.path.join(_OUTPUT_DIR.value, preset, blueprint,
                           label.replace(" ", "_").replace("(", "")
                           .replace(")", ""))
  print(f"--- {preset}, {blueprint}: {label} ({games} games) in "
        f"{directory}", flush=True)
  selfplay.check_spec(preset, blueprint, search)
  try:
    with cli.executor_from_flags() as executor:
      results = selfplay.run_games(
          executor, preset, blueprint, _SEED.value, games, search, directory,
          lambda line: print(line, flush=True))
  except beliefs.BeliefTooLarge as error:
    print(f"refused: {error}", flush=True)
    return {"refused": str(error)}
  return results["summary"]


def _searches(preset: str, blueprint: str, depths: Sequence[Optional[int]],
              both_players: bool) -> list[tuple[str, dict[str, Any]]]:
  config = sparta.Config(rollouts=_ROLLOUTS.value, batch=_BATCH.value,
                         threshold=_THRESHOLD.value,
                         max_belief_hands=_MAX_BELIEF_HANDS.value)
  model = os.path.join(_BELIEF_DIR.value, os.path.basename(
      shipped.belief_model_path(preset, blueprint)))
  cells = [("SPARTA", selfplay.search_spec("sparta", [1], config))]
  players = [[1]] + ([[0, 1]] if both_players else [])
  for depth in depths:
    for searchers in players if depth == depths[0] else [[1]]:
      cells.append((_label("lbs", depth, searchers), selfplay.search_spec(
          "lbs", searchers, config, depth, belief_model_path=model)))
  return cells


def games_per_blueprint() -> dict[str, int]:
  """--games for each of --blueprints.

  Raises:
    ValueError: a count that is not a positive integer, or neither one
      count nor one per blueprint.
  """
  counts = _GAMES.value
  if len(counts) not in (1, len(_BLUEPRINTS.value)):
    raise ValueError(f"--games={','.join(counts)}: give one count or one "
                     f"per blueprint ({len(_BLUEPRINTS.value)})")
  if not all(count.isdigit() and int(count) > 0 for count in counts):
    raise ValueError(f"--games={','.join(counts)}: counts must be positive "
                     "integers")
  return {blueprint: int(counts[min(index, len(counts) - 1)])
          for index, blueprint in enumerate(_BLUEPRINTS.value)}


def blueprints_table(depths: Sequence[Optional[int]]) -> dict[str, Any]:
  """Table 2: every search of every blueprint on --preset."""
  table = {}
  for blueprint, games in games_per_blueprint().items():
    table[blueprint] = {
        label: run_cell(_PRESET.value, blueprint, label, search, games)
        for label, search in _searches(_PRESET.value, blueprint, depths,
                                       _BOTH_PLAYERS.value)}
  return table


def hand_sizes_table(depth: Optional[int]) -> dict[str, Any]:
  """Table 1: SPARTA against LBS on 5-, 6- and 7-card hands (rule bot)."""
  table = {}
  for preset in HAND_SIZE_PRESETS:
    table[preset] = {
        label: run_cell(preset, "rules", label, search,
                        _HAND_SIZE_GAMES.value)
        for label, search in _searches(preset, "rules", [depth], False)}
  return table


def _score(cell: dict[str, Any]) -> str:
  return f"{cell['mean']:.2f} ± {cell['standard_error']:.2f}"


def print_blueprints(table: dict[str, Any]) -> None:
  games = ", ".join(f"{count} for {blueprint}"
                    for blueprint, count in games_per_blueprint().items())
  print(f"\n### Search on Hanabi {_PRESET.value} (paired games a cell: "
        f"{games}; {_ROLLOUTS.value:,d} rollouts a decision, deviating "
        f"for a gain above {_THRESHOLD.value:g})\n")
  print("| blueprint | search | score | paired gain | s/game | of which "
        "belief | share of SPARTA's gain | times faster than SPARTA |")
  print("|---|---|---|---|---|---|---|---|")
  for blueprint, cells in table.items():
    spartan = cells["SPARTA"]
    print(f"| {blueprint} | none | {spartan['blueprint_mean']:.2f} | | | | "
          "| |")
    for label, cell in cells.items():
      share = cell["paired_gain"] / spartan["paired_gain"] if spartan[
          "paired_gain"] else float("nan")
      speed = spartan["seconds_per_game"] / max(cell["seconds_per_game"],
                                                1e-9)
      print(f"| {blueprint} | {label} | {_score(cell)} | "
            f"{cell['paired_gain']:+.2f} ± "
            f"{cell['paired_gain_standard_error']:.2f} | "
            f"{cell['seconds_per_game']:.1f} | "
            f"{cell['belief_seconds_per_game']:.1f} | {share:.0%} | "
            f"{speed:.1f} |")


def print_hand_sizes(table: dict[str, Any]) -> None:
  print(f"\n### Hand sizes (rule-based bot, {_HAND_SIZE_GAMES.value} games "
        "a cell)\n")
  print("| preset | search | score | paired gain | s/move | peak memory "
        "(GiB) |")
  print("|---|---|---|---|---|---|")
  for preset, cells in table.items():
    for label, cell in cells.items():
      if "refused" in cell:
        print(f"| {preset} | {label} | refused: {cell['refused']} | | | |")
        continue
      print(f"| {preset} | {label} | {_score(cell)} | "
            f"{cell['paired_gain']:+.2f} ± "
            f"{cell['paired_gain_standard_error']:.2f} | "
            f"{cell['seconds_per_move']:.2f} | "
            f"{cell['peak_memory_mb'] / 1024:.2f} |")


def plot_blueprints(table: dict[str, Any], path: str) -> None:
  fig, (gains, times) = reporting.plt.subplots(1, 2, figsize=(13, 4.5))
  labels = list(next(iter(table.values())))
  width = 0.8 / len(table)
  for index, (blueprint, cells) in enumerate(table.items()):
    x = np.arange(len(labels)) + index * width
    gains.bar(x, [cells[label]["paired_gain"] for label in labels], width,
              yerr=[cells[label]["paired_gain_standard_error"]
                    for label in labels], label=blueprint, capsize=3)
    times.bar(x, [cells[label]["seconds_per_game"] for label in labels],
              width, label=blueprint)
  for axis, ylabel in ((gains, "paired gain over the blueprint"),
                       (times, "search seconds per game (with beliefs)")):
    axis.set_xticks(np.arange(len(labels)) + width * (len(table) - 1) / 2)
    axis.set_xticklabels(labels, rotation=20)
    axis.set_ylabel(ylabel)
    axis.grid(True, axis="y", alpha=0.3)
    axis.legend()
  times.set_yscale("log")
  fig.suptitle(f"SPARTA and LBS on Hanabi {_PRESET.value}")
  reporting.save_figure(fig, path)


def plot_hand_sizes(table: dict[str, Any], path: str) -> None:
  fig, (seconds, memory) = reporting.plt.subplots(1, 2, figsize=(12, 4.5))
  sizes = {"full": 5, "six_cards": 6, "seven_cards": 7}
  for label in next(iter(table.values())):
    runs = [(sizes[preset], cells[label]) for preset, cells in table.items()
            if "refused" not in cells[label]]
    seconds.plot([s for s, _ in runs], [c["seconds_per_move"]
                                        for _, c in runs], marker="o",
                 label=label)
    memory.plot([s for s, _ in runs], [c["peak_memory_mb"] / 1024
                                       for _, c in runs], marker="o",
                label=label)
  for axis, ylabel in ((seconds, "seconds per searching move"),
                       (memory, "peak memory of a worker (GiB)")):
    axis.set_xlabel("cards in hand")
    axis.set_ylabel(ylabel)
    axis.set_xticks([5, 6, 7])
    axis.grid(True, alpha=0.3)
    axis.legend()
  fig.suptitle("SPARTA and LBS as hands grow (rule-based bot; missing "
               "points: refused)")
  reporting.save_figure(fig, path)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input("depths"):
    depths = [selfplay.parse_depth(text) for text in _DEPTHS.value]
    hand_size_depth = selfplay.parse_depth(_HAND_SIZE_DEPTH.value)
  results = {"seed": _SEED.value, "rollouts": _ROLLOUTS.value}
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  with cli.user_input():
    if "blueprints" in _TABLES.value:
      results["blueprints"] = blueprints_table(depths)
      print_blueprints(results["blueprints"])
      plot_blueprints(results["blueprints"], os.path.join(
          _OUTPUT_DIR.value, f"lbs_paper_{_PRESET.value}.png"))
    if "hand_sizes" in _TABLES.value:
      results["hand_sizes"] = hand_sizes_table(hand_size_depth)
      print_hand_sizes(results["hand_sizes"])
      plot_hand_sizes(results["hand_sizes"], os.path.join(
          _OUTPUT_DIR.value, "lbs_paper_hand_sizes.png"))
  path = os.path.join(_OUTPUT_DIR.value, "lbs_paper.json")
  with open(path, "w", encoding="utf-8") as f:
    json.dump(results, f, indent=1)
  print(f"wrote {path} and the PNGs")


if __name__ == "__main__":
  cli.run(main)
