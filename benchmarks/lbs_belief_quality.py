"""How sharp the learned belief is: the LBS paper's Fig. 4 on our models.

In self-play games of a blueprint, at every step, the cross-entropy per card
of the hand player --player truly holds (−log P(hand) / cards held, in nats)
under three beliefs:
- exact: every hand consistent with the hints and the visible copies and
  with every move the (deterministic) partner blueprint made (SPARTA's);
- learned: the belief model's auto-regressive distribution;
- filtered: the learned belief as LBS samples it, its draws restricted to
  the hands the hints and visible copies allow: log P(hand) − log P(allowed),
  P(allowed) the share of --samples draws the public information allows;
- grounded: the hints and the visible copies only (no reasoning about why
  the partner moved).
The exact belief is the sharpest a model of this information can be, the
grounded one what a model learns that ignores the partner's policy; the
learned one, as LBS uses it (filtered), should lie between them at every
stage of the game. Prints a
table by game step and writes results.json and a PNG. Each game is a task
on the executor (--workers at once), appended to
<output_dir>/lbs_belief_quality_<preset>_<blueprint>/games.jsonl as it ends, so
that the same command resumes an interrupted run.

  python benchmarks/lbs_belief_quality.py --preset=small --blueprint=rules \
      --games=200 --output_dir=/tmp/belief_quality
"""

import functools
import json
import os
from typing import Any, Sequence

from absl import app
from absl import flags
import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.hanabi import beliefs
from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import selfplay
from open_spiel_ext.algorithms.hanabi import shipped
from open_spiel_ext.algorithms.hanabi import sparta
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import executors
from open_spiel_ext.utils import reporting

_PRESET = flags.DEFINE_enum("preset", "small", list(engine_lib.PRESETS),
                            "Hanabi variant.")
_BLUEPRINT = flags.DEFINE_string("blueprint", "rules",
                                 shipped.BLUEPRINT_NAMES + ".")
_BELIEF_MODEL = flags.DEFINE_string(
    "belief_model", None, "The belief model (default: the shipped one of "
    "the preset and blueprint).")
_GAMES = flags.DEFINE_integer("games", 100, "Self-play games.", lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the decks.")
_PLAYER = flags.DEFINE_integer("player", 1, "Whose beliefs are scored.")
_SAMPLES = flags.DEFINE_integer(
    "samples", 1_000, "Draws per step that estimate the share of the learned "
    "belief that public information allows.", lower_bound=1)
_BIN = flags.DEFINE_integer("bin", 5, "Game steps per table row.",
                            lower_bound=1)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where results.json and the PNG go.")
cli.define_executor_flags()

BELIEFS = ("exact", "learned", "filtered", "grounded")


@functools.lru_cache(maxsize=None)
def _setup(preset: str, blueprint_name: str, model_path: str):
  engine = engine_lib.HanabiEngine(engine_lib.Rules.from_preset(preset))
  blueprint = shipped.blueprint_from_name(engine, preset, blueprint_name)
  model = belief_model.load(model_path)
  model.check(blueprint)
  return blueprint, model


def allowed_share(model: belief_model.BeliefModel, contexts: jax.Array,
                  games: Sequence[engine_lib.HanabiState], player: int,
                  samples: int, key: jax.Array) -> np.ndarray:
  """[T] the share of `samples` draws from each step's learned belief that
  the hints and the visible copies allow (at least one draw's worth)."""
  shares = []
  for step, (game, step_key) in enumerate(zip(
      games, jax.random.split(key, len(games)))):
    present = int((np.asarray(game.hands)[player] >= 0).sum())
    hands = model.sample(contexts[step:step + 1], samples, present, step_key)
    shares.append(beliefs.consistent(model.rules, game, player, hands).mean())
  return np.maximum(shares, 1 / samples)


def score_game(preset: str, blueprint_name: str, model_path: str, seed: int,
               game_index: int, player: int, samples: int
              ) -> dict[str, list[float]]:
  """One self-play game: each step's cross-entropy per card under each
  belief (a task)."""
  blueprint, model = _setup(preset, blueprint_name, model_path)
  engine, rules = blueprint.engine, blueprint.engine.rules
  calls = blueprints.jitted(blueprint)
  state = engine.deal(jnp.asarray(sparta.game_deck(rules, seed, game_index),
                                  jnp.int32)[None])
  memory = calls.start(blueprint.params, state)
  game = beliefs.row(state)
  exact = beliefs.initial(rules, game, player)
  grounded = exact
  observations, hands, cards, games = [], [], [], []
  scores = {"exact": [], "grounded": []}
  while not bool(game.terminated):
    observations.append(np.asarray(game.observation[player]))
    hands.append(np.asarray(game.hands[player]))
    cards.append(int((hands[-1] >= 0).sum()))
    games.append(game)
    for name, belief in (("exact", exact), ("grounded", grounded)):
      scores[name].append(beliefs.log_probability(rules, game, belief))
    action = int(calls.moves(blueprint.params, memory, state)[0])
    state = engine.step(state, jnp.asarray([action], jnp.int32))
    after = beliefs.row(state)
    if not bool(after.terminated):
      row_memory = beliefs.row(memory)
      exact = beliefs.update(blueprint, exact, game, row_memory, action,
                             after)
      grounded = beliefs.update(blueprint, grounded, game, row_memory,
                                action, after, grounded=True)
    memory = calls.remember(blueprint.params, memory, state)
    game = after
  scores["learned"] = belief_model.true_hand_log_probs(
      model, np.stack(observations), np.stack(hands))
  shares = allowed_share(
      model, belief_model.game_contexts(model, np.stack(observations)), games,
      player, samples, jax.random.PRNGKey(1_000 * seed + game_index))
  scores["filtered"] = scores["learned"] - np.log(shares)
  return {name: (-np.asarray(scores[name]) / np.maximum(cards, 1)).tolist()
          for name in BELIEFS}


def by_step(games: list[dict[str, list[float]]], bin_size: int
           ) -> list[dict[str, Any]]:
  """Rows of game steps [start, start + bin_size): each belief's mean
  cross-entropy per card ± standard error over the games' steps there."""
  longest = max(len(game["exact"]) for game in games)
  rows = []
  for start in range(0, longest, bin_size):
    row = {"steps": f"{start}-{start + bin_size - 1}"}
    for name in BELIEFS:
      values = [v for game in games for v in game[name][start:start +
                                                          bin_size]]
      row[name] = float(np.mean(values))
      row[f"{name}_se"] = reporting.standard_error(values)
    row["positions"] = len(values)
    rows.append(row)
  return rows


def overall(games: list[dict[str, list[float]]]) -> dict[str, Any]:
  """Each belief's mean cross-entropy per card over every position of the
  games ± standard error (what LBS's value against belief quality is
  plotted on)."""
  row = {"steps": "all"}
  for name in BELIEFS:
    values = [v for game in games for v in game[name]]
    row[name] = float(np.mean(values))
    row[f"{name}_se"] = reporting.standard_error(values)
  row["positions"] = len(values)
  return row


def plot(rows: list[dict[str, Any]], path: str, title: str) -> None:
  fig, axis = reporting.plt.subplots(figsize=(7, 4.5))
  middle = [int(row["steps"].split("-")[0]) + _BIN.value / 2 for row in rows]
  for name in BELIEFS:
    mean = np.array([row[name] for row in rows])
    error = np.array([row[f"{name}_se"] for row in rows])
    axis.plot(middle, mean, marker=".", label=name)
    axis.fill_between(middle, mean - error, mean + error, alpha=0.25)
  axis.set_xlabel("game step")
  axis.set_ylabel("cross-entropy per card (nats)")
  axis.grid(True, alpha=0.3)
  axis.legend()
  axis.set_title(title)
  reporting.save_figure(fig, path)


def _score_games(model_path: str, games_dir: str
                 ) -> list[dict[str, list[float]]]:
  """Every game's scores, those of an interrupted run of the same settings
  in games_dir taken back, the others scored on the executor."""
  run = {"preset": _PRESET.value, "blueprint": _BLUEPRINT.value,
         "belief_model": selfplay.belief_model_digest(model_path),
         "seed": _SEED.value, "player": _PLAYER.value,
         "samples": _SAMPLES.value}
  with cli.user_input("output_dir"):
    done = {game.pop("game"): game for game in reporting.finished_records(
        games_dir, run, "games.jsonl")}
  if done:
    print(f"resuming: {len(done)} games already scored in {games_dir}",
          flush=True)
  games_path = os.path.join(games_dir, "games.jsonl")
  reporting.keep_json_lines(games_path, lambda game: True)  # A cut line.
  log = reporting.JsonLinesWriter(games_path, append=True)
  with cli.executor_from_flags() as executor:
    futures = {executor.submit(score_game, _PRESET.value, _BLUEPRINT.value,
                               model_path, _SEED.value, game, _PLAYER.value,
                               _SAMPLES.value): game
               for game in range(_GAMES.value) if game not in done}
    for future in executors.as_completed(list(futures)):
      done[futures[future]] = future.result()
      log.write({"game": futures[future], **done[futures[future]]})
      print(f"{len(done)} of {_GAMES.value} games scored", flush=True)
  log.close()
  return [done[game] for game in range(_GAMES.value)]


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  model_path = _BELIEF_MODEL.value or shipped.belief_model_path(
      _PRESET.value, _BLUEPRINT.value)
  with cli.user_input():
    _setup(_PRESET.value, _BLUEPRINT.value, model_path)
  name = f"lbs_belief_quality_{_PRESET.value}_{_BLUEPRINT.value}"
  games = _score_games(model_path, os.path.join(_OUTPUT_DIR.value, name))
  rows = by_step(games, _BIN.value)
  every = overall(games)
  print(f"Cross-entropy per card of player {_PLAYER.value}'s hand (nats), "
        f"{_GAMES.value} games of {_BLUEPRINT.value} on Hanabi "
        f"{_PRESET.value}")
  print("| steps | positions | " + " | ".join(BELIEFS) + " |")
  print("|---|---|" + "---|" * len(BELIEFS))
  for row in rows + [every]:
    print(f"| {row['steps']} | {row['positions']} | " + " | ".join(
        f"{row[name]:.3f} ± {row[name + '_se']:.3f}" for name in BELIEFS) +
          " |")
  with open(os.path.join(_OUTPUT_DIR.value, f"{name}.json"), "w",
            encoding="utf-8") as f:
    json.dump({"preset": _PRESET.value, "blueprint": _BLUEPRINT.value,
               "belief_model": model_path, "games": _GAMES.value,
               "seed": _SEED.value, "samples": _SAMPLES.value,
               "rows": rows, "overall": every}, f, indent=1)
  plot(rows, os.path.join(_OUTPUT_DIR.value, f"{name}.png"),
       f"Beliefs over own hand: {_BLUEPRINT.value}, Hanabi {_PRESET.value}")
  print(f"wrote {name}.json and {name}.png to {_OUTPUT_DIR.value}")


if __name__ == "__main__":
  cli.run(main)
