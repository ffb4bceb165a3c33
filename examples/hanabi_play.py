"""Hanabi self-play with a blueprint, with or without search (SPARTA, LBS).

  python -m open_spiel_ext.examples.hanabi_play --preset=small --games=100
  python -m open_spiel_ext.examples.hanabi_play --preset=full \
      --search=sparta --games=20 --seed=0 --output_dir=/tmp/hanabi_play
  python -m open_spiel_ext.examples.hanabi_play --preset=full \
      --search=lbs --rollout_depth=16 --games=20 --output_dir=/tmp/lbs

Plays --games games, each dealt from its own deck (game i's deck depends only
on --seed and i, so runs with and without search play the same decks); each
game is a task, --workers of them at once (spawned processes, or Ray with
--executor=ray). With --search=sparta or lbs, the players in --searchers
search (the others play the blueprint; SPARTA takes one searcher) and every
deck is also played by the blueprint alone, so the gain is measured game by
game. LBS takes the blueprint's belief model (--belief_model, by default the
one the package ships for the preset and blueprint) and rolls out
--rollout_depth moves before the blueprint's value ('full': to the end). Prints a line per game as it
ends and writes results.json: per-game scores (and the blueprint's on the
same decks), seconds per searching move, mean ± standard error, and the
mean paired gain ± its standard error. Each game is also appended to
games.jsonl as it ends, with the run's settings in run.json: the same command
(or one with more --games) skips the games already played, so an interrupted
run loses only the games in progress.
"""

import dataclasses
import functools
import json
import os
from typing import Any, Optional, Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import lbs
from open_spiel_ext.algorithms.hanabi import r2d2
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import executors
from open_spiel_ext.utils import reporting

SEARCHES = ("none", "sparta", "lbs")
_PRESET = flags.DEFINE_enum("preset", "full", list(engine_lib.PRESETS),
                            "Hanabi variant.")
_BLUEPRINT = flags.DEFINE_string(
    "blueprint", "rules", "The blueprint: 'rules' (the rule-based bot), a "
    "shipped learned one of the preset (" + ", ".join(r2d2.STRENGTHS) +
    "), or a weights file of hanabi_train.")
_SEARCH = flags.DEFINE_enum("search", "none", list(SEARCHES),
                            "Search on top of the blueprint.")
_GAMES = flags.DEFINE_integer("games", 100, "Games to play.", lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the decks and searches.")
_SEARCHERS = flags.DEFINE_list("searchers", ["1"],
                                "The searching players (SPARTA: one).")
_ROLLOUTS = flags.DEFINE_integer("rollouts", 10_000,
                                 "Search's rollouts per decision.")
_BATCH = flags.DEFINE_integer("batch", 1_000, "Rollouts played at once.")
_THRESHOLD = flags.DEFINE_float(
    "threshold", 0.05, "Expected gain needed to leave the blueprint's move.")
_ROLLOUT_DEPTH = flags.DEFINE_string(
    "rollout_depth", "16", "LBS: moves per rollout (the searched one "
    "included) before the blueprint's value, or 'full'.")
_BELIEF_MODEL = flags.DEFINE_string(
    "belief_model", None, "LBS: the belief model's weights file (default: "
    "the shipped one of the preset and blueprint).")
_MIN_ACCEPTANCE = flags.DEFINE_float(
    "min_acceptance", 0.05, "LBS: below this share of belief draws "
    "consistent with the hints, keep the blueprint's move.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "hanabi_play_output",
                                  "Where results.json goes.")
cli.define_executor_flags()


@functools.lru_cache(maxsize=None)
def _blueprint(preset: str, name: str) -> blueprints.Blueprint:
  engine = engine_lib.HanabiEngine(engine_lib.Rules.from_preset(preset))
  return r2d2.blueprint_from_name(engine, preset, name)


@functools.lru_cache(maxsize=None)
def _belief_model(path: str) -> belief_model.BeliefModel:
  return belief_model.load(path)


def search_start(blueprint: blueprints.Blueprint, search: dict[str, Any]
                ) -> Optional[sparta.SearchStart]:
  """The searchers of a run's `search` record (None for no search)."""
  if search["kind"] == "none":
    return None
  settings = sparta.Settings(**search["settings"])
  players = search["searchers"]
  if search["kind"] == "sparta":
    return sparta.sparta_start(blueprint, settings, players[0])
  model = _belief_model(search["belief_model"])
  return lbs.lbs_start(blueprint, model, lbs.Settings(
      settings, search["rollout_depth"], search["min_acceptance"]), players)


def play(preset: str, blueprint_name: str, game: int, seed: int,
         search: dict[str, Any]) -> dict[str, Any]:
  """One game (a task): its score, and with search the search's figures
  and the blueprint's own score on the same deck."""
  blueprint = _blueprint(preset, blueprint_name)
  cards = sparta.game_deck(blueprint.engine.rules, seed, game)
  alone = sparta.play_game(blueprint, cards)
  result = {"game": game, "blueprint_score": alone.score}
  start = search_start(blueprint, search)
  if start is None:
    return {**result, "score": alone.score}
  searched = sparta.play_game(blueprint, cards, start, seed=int(
      np.random.SeedSequence([seed, game]).generate_state(1)[0]))
  return {**result, "score": searched.score,
          "searcher_moves": searched.searcher_moves,
          "deviations": searched.deviations,
          "seconds_per_move": (searched.search_seconds /
                               max(searched.searcher_moves, 1))}


def summary(games: list[dict[str, Any]]) -> dict[str, float]:
  scores = [g["score"] for g in games]
  out = {"games": len(games), "mean": float(np.mean(scores)),
         "standard_error": reporting.standard_error(scores)}
  if "seconds_per_move" in games[0]:
    gains = [g["score"] - g["blueprint_score"] for g in games]
    out.update(
        blueprint_mean=float(np.mean([g["blueprint_score"] for g in games])),
        paired_gain=float(np.mean(gains)),
        paired_gain_standard_error=reporting.standard_error(gains),
        seconds_per_move=float(np.mean([g["seconds_per_move"]
                                        for g in games])))
  return out


def _describe(result: dict[str, Any]) -> str:
  line = f"game {result['game']:4d}: score {result['score']:4.0f}"
  if "seconds_per_move" in result:
    line += (f" (blueprint alone {result['blueprint_score']:.0f}; "
             f"{result['deviations']} of {result['searcher_moves']} moves "
             f"searched away from it, {result['seconds_per_move']:.2f} s a "
             "move)")
  return line


def _players(rules: engine_lib.Rules) -> list[int]:
  players = []
  for text in _SEARCHERS.value:
    if not text.strip().isdigit() or int(text) >= rules.players:
      raise app.UsageError(f"--searchers must be players of 0 to "
                           f"{rules.players - 1}, got {text!r}")
    players.append(int(text))
  if _SEARCH.value == "sparta" and len(players) != 1:
    raise app.UsageError(f"SPARTA searches for one player (its exact belief "
                         f"assumes the others play the blueprint), got "
                         f"--searchers={','.join(_SEARCHERS.value)}")
  return sorted(set(players))


def _depth() -> Optional[int]:
  text = _ROLLOUT_DEPTH.value.strip()
  if text == "full":
    return None
  if not text.lstrip("-").isdigit():
    raise app.UsageError(f"--rollout_depth must be an integer >= 1 or "
                         f"'full', got {text!r}")
  return int(text)


def search_from_flags(rules: engine_lib.Rules) -> dict[str, Any]:
  """The run's search, as results.json records it."""
  if _SEARCH.value == "none":
    return {"kind": "none"}
  settings = sparta.Settings(rollouts=_ROLLOUTS.value, batch=_BATCH.value,
                             threshold=_THRESHOLD.value)
  search = {"kind": _SEARCH.value, "searchers": _players(rules),
            "settings": dataclasses.asdict(settings)}
  if _SEARCH.value == "lbs":
    lbs.Settings(settings, _depth(), _MIN_ACCEPTANCE.value)  # Checks them.
    search.update(
        rollout_depth=_depth(), min_acceptance=_MIN_ACCEPTANCE.value,
        belief_model=_BELIEF_MODEL.value or belief_model.shipped_path(
            _PRESET.value, _BLUEPRINT.value))
  return search


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  rules = engine_lib.Rules.from_preset(_PRESET.value)
  with cli.user_input():
    search = search_from_flags(rules)
    blueprint = _blueprint(_PRESET.value, _BLUEPRINT.value)
    if search["kind"] == "lbs":
      lbs.check_setup(blueprint, _belief_model(search["belief_model"]),
                      search["rollout_depth"])
  run = {"preset": _PRESET.value, "blueprint": _BLUEPRINT.value,
         "seed": _SEED.value, "search": search}
  output_dir = _OUTPUT_DIR.value
  with cli.user_input("output_dir"):
    done = {g["game"]: g for g in reporting.finished_records(
        output_dir, run, "games.jsonl")}
  if done:
    print(f"resuming: {len(done)} games already played in {output_dir}")
  games_path = os.path.join(output_dir, "games.jsonl")
  reporting.write_log(done.values(), games_path)  # Drops a line cut short.
  log = reporting.JsonLinesWriter(games_path, append=True)
  with cli.executor_from_flags() as executor:
    futures = [executor.submit(play, _PRESET.value, _BLUEPRINT.value, game,
                               _SEED.value, search)
               for game in range(_GAMES.value) if game not in done]
    for future in executors.as_completed(futures):
      game = future.result()
      log.write(game)
      done[game["game"]] = game
      print(_describe(game), flush=True)
  log.close()
  games = [done[game] for game in range(_GAMES.value)]
  results = {**run, "summary": summary(games), "games": games}
  path = os.path.join(output_dir, "results.json")
  with open(path, "w", encoding="utf-8") as f:
    json.dump(results, f, indent=1)
  line = results["summary"]
  text = f"mean score {line['mean']:.2f} ± {line['standard_error']:.2f}"
  if search["kind"] != "none":
    text += (f"; blueprint {line['blueprint_mean']:.2f}, paired gain "
             f"{line['paired_gain']:+.2f} ± "
             f"{line['paired_gain_standard_error']:.2f}, "
             f"{line['seconds_per_move']:.2f} s a searching move")
  print(f"{text} over {line['games']} games; wrote {path}")


if __name__ == "__main__":
  cli.run(main)
