"""Hanabi self-play with a blueprint, with or without SPARTA search.

  python -m open_spiel_ext.examples.hanabi_play --preset=small --games=100
  python -m open_spiel_ext.examples.hanabi_play --preset=full \
      --search=sparta --games=20 --seed=0 --output_dir=/tmp/hanabi_play

Plays --games games, each dealt from its own deck (game i's deck depends only
on --seed and i, so runs with and without search play the same decks); each
game is a task, --workers of them at once (spawned processes, or Ray with
--executor=ray). With --search=sparta, player --searcher searches (the
others play the blueprint) and every deck is also played by the blueprint
alone, so the gain is measured game by game. Prints a line per game as it
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

from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import r2d2
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import executors
from open_spiel_ext.utils import reporting

SEARCHES = ("none", "sparta")
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
_SEARCHER = flags.DEFINE_integer("searcher", 1, "The searching player.")
_ROLLOUTS = flags.DEFINE_integer("rollouts", 10_000,
                                 "SPARTA's rollouts per decision.")
_BATCH = flags.DEFINE_integer("batch", 1_000, "Rollouts played at once.")
_THRESHOLD = flags.DEFINE_float(
    "threshold", 0.05, "Expected gain needed to leave the blueprint's move.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "hanabi_play_output",
                                  "Where results.json goes.")
cli.define_executor_flags()


@functools.lru_cache(maxsize=None)
def _blueprint(preset: str, name: str) -> blueprints.Blueprint:
  engine = engine_lib.HanabiEngine(engine_lib.Rules.from_preset(preset))
  return r2d2.blueprint_from_name(engine, preset, name)


def deck(rules: engine_lib.Rules, seed: int, game: int) -> np.ndarray:
  """Game `game`'s deck: a shuffle that depends only on the seed and it."""
  return np.random.default_rng([seed, game]).permutation(
      rules.ordered_deck())


def play(preset: str, blueprint_name: str, game: int, seed: int,
         searcher: Optional[int], settings: sparta.Settings
        ) -> dict[str, Any]:
  """One game (a task): its score, and with a searcher the search's
  figures and the blueprint's own score on the same deck."""
  blueprint = _blueprint(preset, blueprint_name)
  cards = deck(blueprint.engine.rules, seed, game)
  alone = sparta.play_game(blueprint, cards, None)
  result = {"game": game, "blueprint_score": alone.score}
  if searcher is None:
    return {**result, "score": alone.score}
  searched = sparta.play_game(blueprint, cards, searcher, settings,
                              seed=int(
                                  np.random.SeedSequence([seed, game])
                                  .generate_state(1)[0]))
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


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  rules = engine_lib.Rules.from_preset(_PRESET.value)
  searcher = None
  if _SEARCH.value == "sparta":
    if not 0 <= _SEARCHER.value < rules.players:
      raise app.UsageError(f"--searcher must be a player of 0 to "
                           f"{rules.players - 1}, got {_SEARCHER.value}")
    searcher = _SEARCHER.value
  with cli.user_input():
    settings = sparta.Settings(rollouts=_ROLLOUTS.value, batch=_BATCH.value,
                               threshold=_THRESHOLD.value)
  with cli.user_input("blueprint"):
    _blueprint(_PRESET.value, _BLUEPRINT.value)
  run = {"preset": _PRESET.value, "blueprint": _BLUEPRINT.value,
         "search": _SEARCH.value, "seed": _SEED.value, "searcher": searcher,
         "settings": (dataclasses.asdict(settings) if searcher is not None
                      else None)}
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
                               _SEED.value, searcher, settings)
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
  if searcher is not None:
    text += (f"; blueprint {line['blueprint_mean']:.2f}, paired gain "
             f"{line['paired_gain']:+.2f} ± "
             f"{line['paired_gain_standard_error']:.2f}, "
             f"{line['seconds_per_move']:.2f} s a searching move")
  print(f"{text} over {line['games']} games; wrote {path}")


if __name__ == "__main__":
  cli.run(main)
