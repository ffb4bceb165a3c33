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
--rollout_depth moves before the blueprint's value ('full': to the end).
Prints a line per game as it ends and writes results.json: per-game scores
(and the blueprint's on the same decks), seconds per searching move and per
game, mean ± standard error, and the mean paired gain ± its standard error.
Each game is also appended to games.jsonl as it ends, with the run's
settings in run.json: the same command (or one with more --games) skips the
games already played, so an interrupted run loses only the games in
progress (`algorithms/hanabi/selfplay.py`).
"""

import os
from typing import Sequence

from absl import app
from absl import flags

from open_spiel_ext.algorithms.hanabi import selfplay
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import cli

_PRESET = flags.DEFINE_enum("preset", "full", list(engine_lib.PRESETS),
                            "Hanabi variant.")
_BLUEPRINT = flags.DEFINE_string(
    "blueprint", "rules", f"The blueprint: {shipped.BLUEPRINT_NAMES}.")
_SEARCH = flags.DEFINE_enum("search", "none", list(selfplay.SEARCHES),
                            "Search on top of the blueprint.")
_GAMES = flags.DEFINE_integer("games", 100, "Games to play.", lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the decks and searches.",
                             lower_bound=0)
_SEARCHERS = flags.DEFINE_list("searchers", ["1"],
                                "The searching players (SPARTA: one).")
_ROLLOUTS = flags.DEFINE_integer("rollouts", 10_000,
                                 "Search's rollouts per decision.",
                                 lower_bound=1)
_BATCH = flags.DEFINE_integer("batch", 1_000, "Rollouts played at once.",
                              lower_bound=1)
_THRESHOLD = flags.DEFINE_float(
    "threshold", 0.05, "Expected gain needed to leave the blueprint's move.",
    lower_bound=0.0)
_ROLLOUT_DEPTH = flags.DEFINE_string(
    "rollout_depth", "16", "LBS: moves per rollout (the searched one "
    "included) before the blueprint's value, or 'full'.")
_BELIEF_MODEL = flags.DEFINE_string(
    "belief_model", None, "LBS: the belief model's weights file (default: "
    "the shipped one of the preset and blueprint).")
_MIN_ACCEPTANCE = flags.DEFINE_float(
    "min_acceptance", 0.05, "LBS: below this share of belief draws "
    "consistent with the hints, keep the blueprint's move; in [0, 1).",
    lower_bound=0.0, upper_bound=1.0)
flags.register_validator("min_acceptance", lambda value: value < 1,
                         message="must be below 1")
_EXPLAIN_MOVES = flags.DEFINE_bool(
    "explain_moves", True, "LBS: reject the belief's draws with which the "
    "blueprint would not have made the other players' moves since the "
    "searcher's last.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "hanabi_play_output",
                                  "Where results.json goes.")
cli.define_executor_flags()


def _players() -> list[int]:
  players = []
  for text in _SEARCHERS.value:
    if not text.strip().isdigit():
      raise app.UsageError(f"--searchers must be player numbers, got "
                           f"{text!r}")
    players.append(int(text))
  return players


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input():
    search = selfplay.search_spec(
        _SEARCH.value, _players(),
        sparta.Config(rollouts=_ROLLOUTS.value, batch=_BATCH.value,
                      threshold=_THRESHOLD.value),
        selfplay.parse_depth(_ROLLOUT_DEPTH.value),
        _MIN_ACCEPTANCE.value,
        _BELIEF_MODEL.value or shipped.belief_model_path(
            _PRESET.value, _BLUEPRINT.value), _EXPLAIN_MOVES.value)
    selfplay.check_spec(_PRESET.value, _BLUEPRINT.value, search)
  if search["kind"] != "none":
    chosen = selfplay.blueprint(_PRESET.value, _BLUEPRINT.value)
    cli.check_task_memory(sparta.rollout_bytes(chosen, _BATCH.value),
                          ["batch"], on_device=True)
  # A game can take minutes (SPARTA on full Hanabi, many rollouts): say what
  # runs before the first game's line.
  searching = ("no search" if search["kind"] == "none" else
               f"{search['kind']} with {_ROLLOUTS.value:,d} rollouts a move")
  print(f"{_GAMES.value} games of {_PRESET.value} Hanabi, blueprint "
        f"{_BLUEPRINT.value}, {searching}; a line per game as it ends",
        flush=True)
  with cli.user_input("output_dir"), cli.executor_from_flags() as executor:
    results = selfplay.run_games(executor, _PRESET.value, _BLUEPRINT.value,
                                 _SEED.value, _GAMES.value, search,
                                 _OUTPUT_DIR.value,
                                 lambda line: print(line, flush=True))
  line = results["summary"]
  text = f"mean score {line['mean']:.2f} ± {line['standard_error']:.2f}"
  if search["kind"] != "none":
    text += (f"; blueprint {line['blueprint_mean']:.2f}, paired gain "
             f"{line['paired_gain']:+.2f} ± "
             f"{line['paired_gain_standard_error']:.2f}, "
             f"{line['seconds_per_move']:.2f} s a searching move, "
             f"{line['seconds_per_game']:.1f} s a game (beliefs "
             f"{line['belief_seconds_per_game']:.1f})")
  print(f"{text} over {line['games']} games; wrote "
        f"{os.path.join(_OUTPUT_DIR.value, 'results.json')}")


if __name__ == "__main__":
  cli.run(main)
