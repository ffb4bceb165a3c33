"""The SmartBot blueprint's strength on full 2-player Hanabi, and what each
of its conventions is worth.

Rows, all on the decks of `hanabi_play` (game i's deck depends only on
--seed and i; bomb-outs score 0, as in the Hanabi Learning Environment):
- SmartBot's conventions (`algorithms/hanabi/smartbot.py`) on --decks
  decks, beside the rule bot (`rule_bot.py`) on the same decks;
- the ablation: SmartBot without each of its conventions (by givers and
  readers alike) on the first --ablation_decks decks, with the paired
  change against the whole bot on those decks;
- agreement: the pyspiel bot (`smartbot.SmartBot`, OpenSpiel's bot API)
  playing pyspiel's `hanabi` dealt from the first --agreement_games decks
  against the batched blueprint's self-play, move by move.

Published: SmartBot 22.99 with bomb-outs scoring 0 (Hanabi Challenge; its
author's README: 23.09 keeping points, 29.5% perfect games). Each row is
recorded as it ends (rows.jsonl, with run.json): the same command resumes.
Prints the table (markdown), writes hanabi_smartbot.json and .png.

  python benchmarks/hanabi_smartbot.py --output_dir=/tmp/hanabi_smartbot
"""

import json
import os
import time
from typing import Any, Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import smartbot
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_DECKS = flags.DEFINE_integer("decks", 10_000, "Decks of the main rows.",
                              lower_bound=1)
_ABLATION_DECKS = flags.DEFINE_integer(
    "ablation_decks", 2_000, "Decks of each ablation (the first ones).",
    lower_bound=1)
_AGREEMENT_GAMES = flags.DEFINE_integer(
    "agreement_games", 200, "pyspiel games checked move by move.",
    lower_bound=0)
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the decks.", lower_bound=0)
_BATCH = flags.DEFINE_integer("batch", 1_000, "Games played at once.",
                              lower_bound=1)
_OUTPUT_DIR = flags.DEFINE_string("output_dir",
                                  "benchmark_results/hanabi_smartbot",
                                  "Where the rows, JSON and PNG go.")

ROWS_FILE = "rows.jsonl"
PUBLISHED = 22.99  # SmartBot, 2 players, bomb-outs 0.


def decks(rules: engine_lib.Rules, count: int) -> np.ndarray:
  return np.stack([sparta.game_deck(rules, _SEED.value, game)
                   for game in range(count)])


def scores(blueprint: blueprints.Blueprint, deck_set: np.ndarray,
           label: str) -> np.ndarray:
  """Self-play scores, --batch games at a time, with a progress line."""
  found = []
  for begin in range(0, len(deck_set), _BATCH.value):
    found.append(blueprints.self_play_scores(
        blueprint, deck_set[begin:begin + _BATCH.value]))
    done = np.concatenate(found)
    print(f"{label}: {len(done):,} games, mean {done.mean():.3f}",
          flush=True)
  return np.concatenate(found)


def score_row(name: str, values: np.ndarray) -> dict[str, Any]:
  return {"row": name, "games": len(values), "mean": float(values.mean()),
          "standard_error": reporting.standard_error(values),
          "perfect": float((values == 25).mean()),
          "bomb_outs": float((values == 0).mean()),
          "scores": values.astype(int).tolist()}


def pyspiel_moves(rules: engine_lib.Rules, deck: np.ndarray) -> list[int]:
  """The moves of two `SmartBot`s in pyspiel's game dealt from `deck`."""
  game = rules.game()
  players = [smartbot.SmartBot(game, p) for p in range(rules.players)]
  state, cards, moves = game.new_initial_state(), iter(deck), []
  while not state.is_terminal():
    if state.is_chance_node():
      state.apply_action(int(next(cards)))
    else:
      moves.append(players[state.current_player()].step(state))
      state.apply_action(moves[-1])
  return moves


def agreement_row(blueprint: smartbot.SmartBlueprint,
                  deck_set: np.ndarray) -> dict[str, Any]:
  batched, _ = blueprints.self_play_games(blueprint, deck_set)
  began = time.perf_counter()
  agreeing = moves = 0
  for index, (deck, expected) in enumerate(zip(deck_set, batched)):
    played = pyspiel_moves(blueprint.engine.rules, deck)
    agreeing += played == expected
    moves += len(played)
    if (index + 1) % 20 == 0:
      print(f"agreement: {agreeing} of {index + 1} games", flush=True)
  return {"row": "agreement", "games": len(deck_set),
          "agreeing_games": agreeing, "moves": moves,
          "seconds_per_game": (time.perf_counter() - began) /
                              max(len(deck_set), 1)}


def table(rows: dict[str, dict[str, Any]]) -> str:
  whole = np.asarray(rows["smartbot"]["scores"])
  lines = []
  for name, row in rows.items():
    if "scores" not in row:
      continue
    values = np.asarray(row["scores"])
    change = ""
    if name.startswith("without "):
      paired = values - whole[:len(values)]
      change = (f"{paired.mean():+.3f} ± "
                f"{reporting.standard_error(paired):.3f}")
    lines.append([name, f"{row['games']:,}",
                  f"{row['mean']:.3f} ± {row['standard_error']:.3f}",
                  change, f"{100 * row['perfect']:.1f}",
                  f"{100 * row['bomb_outs']:.2f}"])
  text = reporting.markdown_table(
      ["blueprint", "decks", "mean score", "change (paired)", "% 25",
       "% bomb-out"], lines)
  if "agreement" in rows:
    row = rows["agreement"]
    text += (f"\n\npyspiel SmartBot = batched blueprint on "
             f"{row['agreeing_games']} of {row['games']} games "
             f"({row['moves']:,} moves; {row['seconds_per_game']:.2f} s a "
             "pyspiel game)")
  return text


def plot(rows: dict[str, dict[str, Any]], path: str) -> None:
  import matplotlib.pyplot as plt  # pylint: disable=g-import-not-at-top
  named = [(name, row) for name, row in rows.items() if "scores" in row]
  fig, axis = plt.subplots(figsize=(8, 4))
  positions = np.arange(len(named))
  axis.barh(positions, [row["mean"] for _, row in named],
            xerr=[1.96 * row["standard_error"] for _, row in named],
            color=["tab:blue" if name == "smartbot" else "tab:gray"
                   if name == "rule bot" else "tab:orange"
                   for name, _ in named])
  axis.axvline(PUBLISHED, color="k", linestyle="--",
               label=f"SmartBot, published ({PUBLISHED})")
  axis.set_yticks(positions, [f"{name} ({row['games']:,})"
                              for name, row in named])
  axis.invert_yaxis()
  axis.set_xlim(0, 25)
  axis.set_xlabel("mean self-play score (bomb-out = 0), 95% interval")
  axis.set_title("SmartBot's conventions on 2-player Hanabi")
  axis.legend(loc="lower left", fontsize=8)
  reporting.save_figure(fig, path)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  rules = engine_lib.Rules.from_preset("full")
  engine = engine_lib.HanabiEngine(rules)
  settings = {"decks": _DECKS.value, "ablation_decks": _ABLATION_DECKS.value,
              "agreement_games": _AGREEMENT_GAMES.value, "seed": _SEED.value}
  with cli.user_input("output_dir"):
    rows = {record["row"]: record for record in reporting.finished_records(
        _OUTPUT_DIR.value, settings, ROWS_FILE)}
  writer = reporting.JsonLinesWriter(
      os.path.join(_OUTPUT_DIR.value, ROWS_FILE), append=True)
  main_decks = decks(rules, max(_DECKS.value, _ABLATION_DECKS.value,
                                _AGREEMENT_GAMES.value))
  tasks = [("smartbot", smartbot.SmartBlueprint(engine), _DECKS.value),
           ("rule bot", blueprints.RuleBlueprint(engine), _DECKS.value)]
  tasks += [(f"without {name}", smartbot.SmartBlueprint(
      engine, frozenset([name])), _ABLATION_DECKS.value)
            for name in smartbot.CONVENTIONS]
  for name, blueprint, count in tasks:
    if name not in rows:
      rows[name] = score_row(name, scores(blueprint, main_decks[:count],
                                          name))
      writer.write(rows[name])
  if _AGREEMENT_GAMES.value and "agreement" not in rows:
    rows["agreement"] = agreement_row(smartbot.SmartBlueprint(engine),
                                      main_decks[:_AGREEMENT_GAMES.value])
    writer.write(rows["agreement"])
  writer.close()
  text = table(rows)
  print(text)
  with open(os.path.join(_OUTPUT_DIR.value, "hanabi_smartbot.json"), "w",
            encoding="utf-8") as f:
    json.dump({"settings": settings, "published": PUBLISHED,
               "table": text, "rows": {name: {k: v for k, v in row.items()
                                              if k != "scores"}
                                       for name, row in rows.items()}},
              f, indent=1)
  plot(rows, os.path.join(_OUTPUT_DIR.value, "hanabi_smartbot.png"))
  print(f"wrote hanabi_smartbot.json and .png to {_OUTPUT_DIR.value}")


if __name__ == "__main__":
  cli.run(main)
