"""P2SRO on Barrage Stratego: a population of convolutional PPO policies
trained on the batched engine, measured against the scripted bots.

  python -m open_spiel_ext.examples.stratego_p2sro --max_minutes=240 \
      --output_dir=/tmp/stratego_p2sro

The settings are `experiments/stratego_recipes.py`'s for --device (cpu or
gpu); the flags change them. Learners are PPO with the Stratego network ("stratego_conv",
`algorithms/stratego/network.py`), one network for both seats in their own
frame, placing their pieces as actions, with material shaping that sums to 0
over a game (the recipe's `ENGINE_OPTIONS`); P2SRO
(`algorithms/p2sro/`, symmetric) runs them on the executors and fills the
payoff table from sampled games. Each round prints the learners' mean
returns; each fixed policy prints its payoff against the meta-Nash it was
trained against (the thesis's Fig. 3.4 quantity) and the meta-Nash's win
rates against every bot (`algorithms/stratego/bots.py`, seats alternated,
Wilson 95% intervals). Writes under --output_dir: metrics.jsonl (rounds),
bots.jsonl (win rates per population), population/ (the run's checkpoints;
the same command resumes), population.npz (the meta-Nash mixture, the file
the package ships as `agents.shipped_path()`), best_responses.png,
win_rates.png and, at the end, fixings.md (a table row per population
measured, also printed). --max_minutes bounds the rounds' wall time over every resumed
run, --max_episodes the learners' games. With --fork_from, a new run starts
from another run's population/ folder under other P2SRO settings (a change
measured against the unchanged method from the same checkpoint).

--anchor_bots runs a variant, not P2SRO as shipped: those scripted bots head
the population as fixed members (`p2sro.Config.anchors`), in its payoff
table and in the mixtures learners train against. Its population.npz and
win rates are then those of the networks' part of the meta-Nash
(renormalised; the newest network alone if the meta-Nash plays only bots),
and bots.jsonl records the bots' share.
"""

import dataclasses
import os
from typing import Any, Sequence

from absl import app
from absl import flags
import numpy as np

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.rl import ppo
from open_spiel_ext.algorithms.stratego import bots
from open_spiel_ext.experiments import stratego_recipes
from open_spiel_ext.experiments import stratego_runs
from open_spiel_ext.games import batched
from open_spiel_ext.games.stratego import env as env_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import mirror
from open_spiel_ext.utils import reporting
import pyspiel

_GAME = flags.DEFINE_string("game", stratego_recipes.GAME, "A Stratego game.")
_DEVICE = flags.DEFINE_enum(
    "device", "cpu", list(stratego_recipes.P2SRO_DEVICES),
    "Whose P2SRO settings (`experiments/stratego_recipes.py`) the flags "
    "given change.")
_MAX_MINUTES = flags.DEFINE_float(
    "max_minutes", 240.0, "Stop once the rounds took this many minutes.",
    lower_bound=0.0)
_MAX_EPISODES = flags.DEFINE_integer(
    "max_episodes", None, "Stop once the learners finished this many games.",
    lower_bound=1)
# The (lower, upper) bounds of P2SRO's numeric settings below: those
# p2sro.Config checks, so that a bad value is refused as the flags are read.
_P2SRO_BOUNDS = {
    "learners": (1, None), "chunk_steps": (1, None), "min_steps": (0, None),
    "plateau_gain": (0.0, None), "num_envs": (1, None),
    "games_per_entry": (1, None), "entry_standard_error": (0.0, None),
    "entry_batch": (1, None), "entry_games_per_slot": (1, None),
    "task_opponents": (0, None)}
# P2SRO's settings: --device's (experiments/stratego_recipes.py), changed by
# those of these flags a command line gives (their defaults: the CPU's).
_P2SRO_FLAGS = cli.define_config_flags(stratego_recipes.p2sro_config("cpu"), {
    "learners": "Active P2SRO learners.",
    "chunk_steps": "Batched steps per learner per round.",
    "min_steps": "Batched steps before a learner can be fixed.",
    "plateau_gain": "Mean-return gain per round below which a learner that "
                    "trained --min_steps is fixed.",
    "num_envs": "Games each learner plays at once.",
    "warm_start": "Each new learner starts from the newest learner's "
                  "network and optimiser instead of a new network.",
    "games_per_entry": "Games per payoff-table entry, at most.",
    "entry_standard_error": "An entry stops once its standard error is at "
                            "most this (0: it plays --games_per_entry "
                            "games).",
    "entry_batch": "Slots an entry plays its games in at once.",
    "entry_games_per_slot": "Games an entry's call deals per slot, each to "
                            "the next slot that frees up.",
    "task_opponents": "Members a learner's round trains against, drawn from "
                      "its mixture (0: the whole mixture, one member drawn "
                      "per game)."}, bounds=_P2SRO_BOUNDS)
_HIDDEN_SIZES = flags.DEFINE_list(
    "hidden_sizes", [str(w) for w in stratego_recipes.HIDDEN_SIZES],
    "Widths of the networks' layers.")
_LEARNING_RATE = flags.DEFINE_float("learning_rate",
                                    stratego_recipes.LEARNING_RATE,
                                    "PPO's Adam's.", lower_bound=0.0)
flags.register_validator("learning_rate", lambda value: value > 0,
                         message="must be above 0")
_MIRROR_DIR = flags.DEFINE_string(
    "mirror_dir", None, "After every round, a copy of what resumes the run "
    "(population/, its carries portable: megabytes, a resumed run's "
    "learners start on fresh games) and of what it measured, there: for a "
    "machine whose disk goes away with it. A run whose --output_dir holds "
    "no checkpoint resumes from the mirror's.")
_FORK_FROM = flags.DEFINE_string(
    "fork_from", None, "A new run starts from this run's population/ "
    "folder (same learners, other P2SRO settings).")
_EVAL_GAMES = flags.DEFINE_integer(
    "eval_games", 200, "Games against each bot per fixed policy.",
    lower_bound=1)
_BOTS = flags.DEFINE_list("bots", list(bots.BOTS), "Bots to measure against.")
_ANCHOR_BOTS = flags.DEFINE_list(
    "anchor_bots", [], "A variant (module docstring): these bots head the "
    "population as fixed members.")
_SEED = flags.DEFINE_integer("seed", 0, "The run's seed.", lower_bound=0)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "stratego_p2sro_output",
                                  "Checkpoints, metrics, plots, population.")
cli.define_executor_flags(workers=2)
_FLAGS = flags.FLAGS


def _mirror(pipeline: p2sro.Pipeline, output_dir: str, mirror_dir: str
           ) -> None:
  """Copies what a resumed run needs and what the run measured into
  `mirror_dir` (population/ as a run resumes from it, its carries portable;
  metrics, bots, the population file)."""
  pipeline.copy_state(os.path.join(mirror_dir, "population"), portable=True)
  mirror.copy_files(output_dir, mirror_dir,
                    ["metrics.jsonl", "bots.jsonl", "population.npz"])


def _describe(entry: p2sro.LogEntry) -> str:
  returns = " ".join(f"{r:6.3f}" for r in entry.mean_returns)
  return (f"round {entry.round:4d}  {entry.episodes:9,d} episodes  "
          f"{entry.wall_time / 60:6.1f} min (tasks "
          f"{entry.task_time / 60:.1f}, entries {entry.entry_time / 60:.1f})"
          f"  learners' returns [{returns}]  population {entry.fixed:3d}")


def _plot(log: list[p2sro.LogEntry], evaluations: list[dict[str, Any]],
          config: p2sro.Config, payoffs: np.ndarray,
          output_dir: str) -> None:
  fixed_at = [next(e for e in log if e.fixed > k) for k in
              range(p2sro.first_trained(config), len(payoffs))]
  reporting.plot_curves(
      os.path.join(output_dir, "best_responses.png"),
      [("training hours", "linear"), ("episodes", "linear")],
      [("new policy vs the meta-Nash it trained against",
        ([e.wall_time / 3600 for e in fixed_at],
         [e.episodes for e in fixed_at],
         p2sro.best_response_payoffs(payoffs, config))),
       ("lowest learner's mean return in its round",
        ([e.wall_time / 3600 for e in log], [e.episodes for e in log],
         [e.mean_returns[0] for e in log]))],
      title="P2SRO on Barrage Stratego: best responses' payoffs",
      ylabel="payoff", yscale="linear")
  if evaluations:
    reporting.plot_curves(
        os.path.join(output_dir, "win_rates.png"),
        [("training hours", "linear"), ("population", "linear")],
        [(f"vs {name}", ([r["hours"] for r in evaluations],
                         [r["population"] for r in evaluations],
                         [r[name]["rate"] for r in evaluations]))
         for name in _BOTS.value],
        title="P2SRO meta-Nash against the scripted bots",
        ylabel="score rate (draw = half)", yscale="linear")


def _check_memory(game: pyspiel.Game, learner_config: ppo.Config,
                  config: p2sro.Config, env: env_lib.StrategoEnv) -> None:
  """Refuses sizes whose learners, payoff entries or bot matches cannot fit
  (`cli.check_memory`)."""
  options = stratego_recipes.ENGINE_OPTIONS
  cli.check_memory(p2sro.carry_bytes(game, learner_config, config, options),
                   ["num_envs"], on_device=True)
  cli.check_memory(p2sro.entry_bytes(game, learner_config, config, options),
                   ["entry_batch", "games_per_entry"], on_device=True)
  cli.check_memory(batched.games_bytes(env, _EVAL_GAMES.value),
                   ["eval_games"], on_device=True)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  game = cli.parse_flag("game", _GAME.value, open_spiel_ext.load_game)
  with cli.user_input():
    learner_config = stratego_recipes.ppo_config(_HIDDEN_SIZES.value,
                                                 _LEARNING_RATE.value)
    config = stratego_recipes.p2sro_config(
        _DEVICE.value, **cli.given(_P2SRO_FLAGS), seed=_SEED.value,
        anchors=tuple(_ANCHOR_BOTS.value))
    env = env_lib.StrategoEnv(game, relative_actions=True)
    for name in _BOTS.value + _ANCHOR_BOTS.value:
      bots.bot(name)
  output_dir = _OUTPUT_DIR.value
  if _MIRROR_DIR.value:
    mirror.resume_from(_MIRROR_DIR.value, output_dir,
                       os.path.join("population", p2sro.STATE_FILE))
  directory = os.path.join(output_dir, "population")
  bots_path = os.path.join(output_dir, "bots.jsonl")
  print(f"P2SRO on {game}: {dataclasses.asdict(config)}, {learner_config}")
  with cli.user_input():
    _check_memory(game, learner_config, config, env)
    pipeline = p2sro.Pipeline(game, learner_config, config, directory,
                              cli.executor_from_flags, evaluator=None,
                              engine_options=stratego_recipes.ENGINE_OPTIONS,
                              fork_from=_FORK_FROM.value,
                              make_anchor=bots.bot)
  evaluations = [r for r in reporting.read_json_lines(bots_path)
                 if r["population"] <= len(pipeline.population)]
  with pipeline:
    resumed = list(pipeline.log)
    bot_writer = reporting.JsonLinesWriter(bots_path)
    for record in evaluations:
      bot_writer.write(record)

    def measure(entry: p2sro.LogEntry) -> None:
      """Ships and measures the population a fixed policy just joined."""
      kept = stratego_runs.save_population(
          pipeline, learner_config, entry,
          os.path.join(output_dir, "population.npz"))
      record = stratego_runs.bot_record(pipeline, env, entry, _BOTS.value,
                                        _EVAL_GAMES.value)
      evaluations.append(record)
      bot_writer.write(record)
      print("  meta-Nash (" + f"{kept} members) vs " + ", ".join(
          f"{name} {record[name]['rate']:.3f} [{record[name]['low']:.3f}, "
          f"{record[name]['high']:.3f}]" for name in _BOTS.value),
            flush=True)

    if len(pipeline.population) > p2sro.first_trained(config) and (
        not evaluations or
        evaluations[-1]["population"] < len(pipeline.population)):
      measure(pipeline.log[-1])  # Interrupted before it was measured.
    for entry in reporting.follow(
        pipeline.run(max_episodes=_MAX_EPISODES.value,
                     time_limit=60 * _MAX_MINUTES.value), output_dir,
        _describe, resumed):
      if entry.added:
        payoff = p2sro.best_response_payoffs(pipeline.population.payoffs,
                                             config)[-1]
        print(f"  fixed policy {entry.fixed - 1}: payoff {payoff:+.3f} "
              "against the meta-Nash it trained against", flush=True)
        measure(entry)
      if _MIRROR_DIR.value:
        _mirror(pipeline, output_dir, _MIRROR_DIR.value)
    bot_writer.close()
    _plot(pipeline.log, evaluations, config, pipeline.population.payoffs,
          output_dir)
    table = p2sro.fixings_table(evaluations, pipeline.population.payoffs,
                                config, _BOTS.value)
  with open(os.path.join(output_dir, "fixings.md"), "w",
            encoding="utf-8") as f:
    f.write(table + "\n")
  last = pipeline.log[-1]
  print(table)
  print(f"{last.fixed} policies, {last.episodes:,d} episodes, "
        f"{last.wall_time / 3600:.2f} h of rounds; wrote metrics.jsonl, "
        f"bots.jsonl, fixings.md, population.npz, best_responses.png, "
        f"win_rates.png to {output_dir}")


if __name__ == "__main__":
  cli.run(main)
