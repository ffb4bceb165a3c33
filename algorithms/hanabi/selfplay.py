"""Hanabi games played for measurement: a blueprint's self-play, with or
without search, on decks that depend only on a seed and the game's number.

A run is described by plain records (JSON), so that each game is a task an
executor can run anywhere and a run can be resumed: `search_spec` builds the
search's record ("none", SPARTA, or LBS with its settings and belief model),
`play` plays one game of a run (its score, and with search the blueprint's
own score on the same deck, the search's seconds per move and the worker's
peak memory), `run_games` plays a run's games on an executor, skipping those
an earlier run with the same settings left in output_dir/games.jsonl, and
`summary` gives mean ± standard error and the paired gain.
`examples/hanabi_play.py` and `benchmarks/lbs_paper.py` are built on it.
"""

import dataclasses
import functools
import hashlib
import json
import os
from typing import Any, Callable, Optional

import numpy as np

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import lbs
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import executors
from open_spiel_ext.utils import reporting

SEARCHES = ("none", "sparta", "lbs")


@functools.lru_cache(maxsize=None)
def blueprint(preset: str, name: str) -> blueprints.Blueprint:
  """The blueprint `name` of a preset (`shipped.blueprint_from_name`), loaded
  once per process."""
  engine = engine_lib.HanabiEngine(engine_lib.Rules.from_preset(preset))
  return shipped.blueprint_from_name(engine, preset, name)


@functools.lru_cache(maxsize=None)
def load_belief_model(path: str) -> belief_model.BeliefModel:
  """The belief model at `path`, loaded once per process."""
  return belief_model.load(path)


def parse_depth(text: str) -> Optional[int]:
  """A rollout depth as flags spell it: an integer, or 'full' (None)."""
  text = text.strip()
  if text == "full":
    return None
  if not text.lstrip("-").isdigit():
    raise ValueError(f"a rollout depth is an integer >= 1 or 'full', got "
                     f"{text!r}")
  return int(text)


def search_spec(kind: str, searchers: list[int] = (1,),
                config: sparta.Config = sparta.Config(),
                rollout_depth: Optional[int] = 16,
                min_acceptance: float = 0.05,
                belief_model_path: Optional[str] = None,
                explain_moves: bool = True) -> dict[str, Any]:
  """A run's search as a record (checked: ValueError on bad settings)."""
  if kind not in SEARCHES:
    raise ValueError(f"unknown search {kind!r}; the searches are "
                     f"{', '.join(SEARCHES)}")
  if kind == "none":
    return {"kind": "none"}
  if kind == "sparta" and len(searchers) != 1:
    raise ValueError(f"SPARTA searches for one player (its exact belief "
                     f"assumes the others play the blueprint), got "
                     f"searchers={list(searchers)}")
  search = {"kind": kind, "searchers": sorted(set(searchers)),
            "settings": dataclasses.asdict(config)}
  if kind == "lbs":
    lbs.Config(config, rollout_depth, min_acceptance)  # Checks them.
    search.update(rollout_depth=rollout_depth, min_acceptance=min_acceptance,
                  explain_moves=explain_moves,
                  belief_model=belief_model_path,
                  belief_model_digest=belief_model_digest(belief_model_path))
  return search


def belief_model_digest(path: str) -> str:
  """Names the weights in the file at `path`, so that a run resumes only
  with the very model it began with (a file replaced in place, as a
  campaign ships a better model, is another run)."""
  if not path or not os.path.isfile(path):
    raise ValueError(f"no belief model at {path!r}")
  with open(path, "rb") as f:
    return hashlib.file_digest(f, "sha256").hexdigest()[:16]


def check_spec(preset: str, blueprint_name: str,
               search: dict[str, Any]) -> None:
  """Raises ValueError unless the run can start: the blueprint exists and,
  for LBS, its belief model belongs to it and gives what rollouts need."""
  player_count = engine_lib.Rules.from_preset(preset).players
  chosen = blueprint(preset, blueprint_name)
  for player in search.get("searchers", ()):
    if not 0 <= player < player_count:
      raise ValueError(f"searchers must be players of 0 to "
                       f"{player_count - 1}, got {player}")
  if search["kind"] == "lbs":
    lbs.check_setup(chosen, load_belief_model(search["belief_model"]),
                    search["rollout_depth"])


def search_start(chosen: blueprints.Blueprint, search: dict[str, Any]
                ) -> Optional[sparta.SearchStart]:
  """The searchers of a run's `search` record (None for no search)."""
  if search["kind"] == "none":
    return None
  config = sparta.Config(**search["settings"])
  players = search["searchers"]
  if search["kind"] == "sparta":
    return sparta.sparta_start(chosen, config, players[0])
  model = load_belief_model(search["belief_model"])
  return lbs.lbs_start(chosen, model, lbs.Config(
      config, search["rollout_depth"], search["min_acceptance"],
      search["explain_moves"]), players)


def play(preset: str, blueprint_name: str, game: int, seed: int,
         search: dict[str, Any]) -> dict[str, Any]:
  """One game (a task): its score, and with search the search's figures
  (its seconds deciding and keeping its beliefs, and both per searching
  move; the worker's peak memory so far) and the blueprint's own score on
  the same deck."""
  chosen = blueprint(preset, blueprint_name)
  cards = sparta.game_deck(chosen.engine.rules, seed, game)
  alone = sparta.play_game(chosen, cards)
  result = {"game": game, "blueprint_score": alone.score}
  start = search_start(chosen, search)
  if start is None:
    return {**result, "score": alone.score}
  searched = sparta.play_game(chosen, cards, start, seed=int(
      np.random.SeedSequence([seed, game]).generate_state(1)[0]))
  return {**result, "score": searched.score,
          "searcher_moves": searched.searcher_moves,
          "deviations": searched.deviations,
          "search_seconds": searched.search_seconds,
          "belief_seconds": searched.belief_seconds,
          "seconds_per_move": ((searched.search_seconds +
                                searched.belief_seconds) /
                               max(searched.searcher_moves, 1)),
          "peak_memory_mb": reporting.peak_memory_mb()}


def summary(games: list[dict[str, Any]]) -> dict[str, float]:
  """Mean score ± standard error; with search also the blueprint's mean on
  the same decks, the paired gain ± its standard error, the search's
  seconds (deciding and keeping beliefs) per searching move and per game,
  of those per game the beliefs', and the largest peak memory."""
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
                                        for g in games])),
        seconds_per_game=float(np.mean([g["search_seconds"] +
                                        g["belief_seconds"]
                                        for g in games])),
        belief_seconds_per_game=float(np.mean([g["belief_seconds"]
                                               for g in games])),
        peak_memory_mb=float(max(g["peak_memory_mb"] for g in games)))
  return out


def describe(result: dict[str, Any]) -> str:
  line = f"game {result['game']:4d}: score {result['score']:4.0f}"
  if "seconds_per_move" in result:
    line += (f" (blueprint alone {result['blueprint_score']:.0f}; "
             f"{result['deviations']} of {result['searcher_moves']} moves "
             f"searched away from it, {result['seconds_per_move']:.2f} s a "
             f"move, {result['belief_seconds']:.1f} s of the game on "
             "beliefs)")
  return line


def run_games(executor: executors.Executor, preset: str,
              blueprint_name: str, seed: int, games: int,
              search: dict[str, Any], output_dir: str,
              log_line: Callable[[str], None] = print) -> dict[str, Any]:
  """Plays games 0 .. games − 1 of a run on `executor` (a task each),
  resuming from output_dir/games.jsonl; writes output_dir/results.json and
  returns it (the run's settings, `summary`, every game)."""
  run = {"preset": preset, "blueprint": blueprint_name, "seed": seed,
         "search": search}
  done = {g["game"]: g for g in reporting.finished_records(
      output_dir, run, "games.jsonl")}
  if done:
    log_line(f"resuming: {len(done)} games already played in {output_dir}")
  games_path = os.path.join(output_dir, "games.jsonl")
  reporting.write_log(done.values(), games_path)  # Drops a line cut short.
  log = reporting.JsonLinesWriter(games_path, append=True)
  futures = [executor.submit(play, preset, blueprint_name, game, seed,
                             search)
             for game in range(games) if game not in done]
  for future in executors.as_completed(futures):
    game = future.result()
    log.write(game)
    done[game["game"]] = game
    log_line(describe(game))
  log.close()
  played = [done[game] for game in range(games)]
  results = {**run, "summary": summary(played), "games": played}
  with open(os.path.join(output_dir, "results.json"), "w",
            encoding="utf-8") as f:
    json.dump(results, f, indent=1)
  return results


