"""Trains a best response (DDQN, PPO or discrete SAC) to a fixed opponent.

Prints the learning curve and, for games whose tree fits (and m-Clone Leduc),
the learned policy's exact value against the opponent in each seat next to
the exact best-response value. Writes, under --output_dir: metrics.jsonl,
best_response.png (the gap to a best response, or the mean return, against
wall time and steps), checkpoint.pkl (rerunning the same command resumes
from it) and policy.json (the learned policy, where the tree fits).

  python -m open_spiel_ext.examples.best_response
  python -m open_spiel_ext.examples.best_response --algorithm=ppo \
      --opponent=cfr+:50
  python -m open_spiel_ext.examples.best_response --opponent=nfsp_output/policy.json
"""

import dataclasses
import os
from typing import Optional, Sequence

from absl import app
from absl import flags

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.experiments import learner_configs
from open_spiel_ext.games import engines
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting
import pyspiel

_GAME = flags.DEFINE_string(
    "game", "leduc_poker", "kuhn_poker, leduc_poker or "
    "xdo_clone_leduc(clones=m): the games with a batched JAX engine.")
_ALGORITHM = flags.DEFINE_enum("algorithm", "ddqn",
                               list(learner_configs.ALGORITHMS), "The learner.")
_OPPONENT = flags.DEFINE_string(
    "opponent", "uniform", "uniform; cfr+:N (the average policy of N CFR+ "
    "iterations); or a policy.json written by an example.")
_STEPS = flags.DEFINE_integer(
    "steps", 60_000, "Batched steps (each a decision in every game); more "
    "than a finished run's extend it (DDQN's learning rate keeps the decay "
    "the run began with, and stays at its last value).", lower_bound=1)
_NUM_ENVS = flags.DEFINE_integer("num_envs", 64, "Games played at once.",
                                 lower_bound=1)
_EVAL_EVERY = flags.DEFINE_integer(
    "eval_every", 6_000, "Steps between evaluations and checkpoints.",
    lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "The run's seed.", lower_bound=0)
_OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", "best_response_output", "Where metrics, plot, checkpoint "
    "and policy go.")


def _evaluator(game: pyspiel.Game, opponent: opponents.Opponent
              ) -> Optional[evaluation.ExactEvaluator]:
  try:
    return evaluation.ExactEvaluator(game, opponent)
  except ValueError as error:
    print(f"no exact values: {error}")
    return None


def _describe(entry: best_response.LogEntry) -> str:
  line = (f"step {entry.step:8,d}  episodes {entry.episodes:10,d}  "
          f"{entry.wall_time:7.1f} s  mean return {entry.mean_return:7.3f}")
  if entry.exact is not None:
    values, best = entry.exact.values, entry.exact.best_values
    line += (f"  exact value {values[0]:.4f} / {values[1]:.4f} "
             f"(best response {best[0]:.4f} / {best[1]:.4f})  "
             f"gap {entry.exact.gap:.4f}")
  return line


def _plot(log: list[best_response.LogEntry], path: str, title: str) -> None:
  exact = log[-1].exact is not None
  reporting.plot_curves(
      path, [("wall time (s)", "linear"), ("batched steps", "linear")],
      [(_ALGORITHM.value, ([e.wall_time for e in log], [e.step for e in log],
                           [e.exact.gap if exact else e.mean_return
                            for e in log]))],
      title=title,
      ylabel="gap to a best response (chips)" if exact else "mean return")


def _schedule_steps(checkpoint: str) -> int:
  """The steps DDQN's learning rate decays over: --steps, or the steps of
  the run being resumed, which keeps its schedule when extended."""
  if os.path.exists(checkpoint):
    return checkpoints.saved_config(checkpoint).get(
        "learning_rate_decay_updates", _STEPS.value)
  return _STEPS.value


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  game = cli.parse_flag("game", _GAME.value, open_spiel_ext.load_game)
  with cli.user_input("game"):
    env = engines.make(game, auto_reset=True)
  with cli.user_input("opponent"):
    opponent = opponents.from_spec(_OPPONENT.value, game)
  evaluator = _evaluator(game, opponent)
  output_dir = _OUTPUT_DIR.value
  checkpoint = os.path.join(output_dir, "checkpoint.pkl")
  with cli.user_input():
    config = learner_configs.best_response_config(
        _ALGORITHM.value, _schedule_steps(checkpoint))
  if os.path.exists(checkpoint):
    print(f"resuming from {checkpoint}")
  print(f"{_ALGORITHM.value} against {_OPPONENT.value} on {game}: "
        f"{dataclasses.asdict(config)}")
  with cli.user_input():
    cli.check_memory(
        best_response.carry_bytes(env, config, _NUM_ENVS.value),
        ["num_envs"], on_device=True)
    learned, log = best_response.train_best_response(
        env, opponent, config, steps=_STEPS.value, num_envs=_NUM_ENVS.value,
        eval_every=_EVAL_EVERY.value, seed=_SEED.value, evaluator=evaluator,
        checkpoint_path=checkpoint,
        on_entry=lambda entry: print(_describe(entry), flush=True))
  reporting.write_log(log, os.path.join(output_dir, "metrics.jsonl"))
  _plot(log, os.path.join(output_dir, "best_response.png"),
        f"{_ALGORITHM.value} best response to {_OPPONENT.value} on {game}")
  wrote = "metrics.jsonl, best_response.png, checkpoint.pkl"
  tabular = evaluation.tabular_policy(game, learned)
  if tabular is not None:
    reporting.save_policy(tabular, os.path.join(output_dir, "policy.json"))
    wrote += ", policy.json"
  if log[-1].exact is not None:
    exact = log[-1].exact
    print(f"learned value {exact.values.mean():.4f} against exact "
          f"best-response value {exact.best_values.mean():.4f} (mean over "
          f"seats): gap {exact.gap:.4f}")
  print(f"wrote {wrote} to {output_dir}")


if __name__ == "__main__":
  cli.run(main)
