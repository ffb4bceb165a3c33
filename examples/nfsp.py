"""Runs NFSP on a poker game's batched JAX engine and reports exploitability.

Prints the average policy's exact exploitability as it trains and writes,
under --output_dir: metrics.jsonl (one record per evaluation), nfsp.png
(exploitability against wall time and against episodes), checkpoint.pkl
(rerunning the same command resumes from it) and policy.json (the average
policy, information state -> action -> probability, as the XDO example
writes it).

  python -m open_spiel_ext.examples.nfsp
  python -m open_spiel_ext.examples.nfsp --game=kuhn_poker --steps=20000
"""

import dataclasses
import os
from typing import Sequence

from absl import app
from absl import flags

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import nfsp
from open_spiel_ext.games import engines
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_GAME = flags.DEFINE_string(
    "game", "leduc_poker", "kuhn_poker, leduc_poker or "
    "xdo_clone_leduc(clones=m): the games with a batched JAX engine.")
_STEPS = flags.DEFINE_integer(
    "steps", 1_000_000, "Batched steps (each moves one player in every game); "
    "more than a finished run's extend it.", lower_bound=1)
_NUM_ENVS = flags.DEFINE_integer("num_envs", 64, "Games played at once.",
                                 lower_bound=1)
_EVAL_EVERY = flags.DEFINE_integer(
    "eval_every", 50_000, "Steps between evaluations and checkpoints.",
    lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "The run's seed.", lower_bound=0)
_ANTICIPATORY = flags.DEFINE_float(
    "anticipatory", 0.1, "η: the probability of playing the best response.",
    lower_bound=0.0, upper_bound=1.0)
_BR_LEARNING_RATE = flags.DEFINE_float(
    "br_learning_rate", 1e-3, "The best response's learning rate.",
    lower_bound=0.0)
_AVERAGE_LEARNING_RATE = flags.DEFINE_float(
    "average_learning_rate", 1e-3, "The average policy's learning rate.",
    lower_bound=0.0)
flags.register_validator("br_learning_rate", lambda value: value > 0,
                         message="must be above 0")
flags.register_validator("average_learning_rate", lambda value: value > 0,
                         message="must be above 0")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "nfsp_output",
                                  "Where metrics, plot, checkpoint and policy "
                                  "go.")


def _config() -> nfsp.Config:
  with cli.user_input():
    defaults = nfsp.Config()
    return nfsp.Config(
        best_response=dataclasses.replace(
            defaults.best_response, learning_rate=_BR_LEARNING_RATE.value),
        anticipatory=_ANTICIPATORY.value,
        average_learning_rate=_AVERAGE_LEARNING_RATE.value)


def _describe(entry: nfsp.LogEntry) -> str:
  exploitability = ("" if entry.exploitability is None else
                    f"  exploitability {entry.exploitability:.4f}")
  return (f"step {entry.step:9,d}  episodes {entry.episodes:11,d}  "
          f"{entry.wall_time:8.1f} s{exploitability}  "
          f"losses: best response {entry.best_response_loss:.3f}, "
          f"average {entry.average_loss:.3f}")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  game = cli.parse_flag("game", _GAME.value, open_spiel_ext.load_game)
  with cli.user_input("game"):
    env = engines.make(game, auto_reset=True)
  config = _config()
  output_dir = _OUTPUT_DIR.value
  checkpoint = os.path.join(output_dir, "checkpoint.pkl")
  if os.path.exists(checkpoint):
    print(f"resuming from {checkpoint}")
  with cli.user_input():
    cli.check_memory(nfsp.state_bytes(env, config, _NUM_ENVS.value),
                     ["num_envs"], on_device=True)
    average, log = nfsp.train_nfsp(
        env, config, steps=_STEPS.value, num_envs=_NUM_ENVS.value,
        eval_every=_EVAL_EVERY.value, seed=_SEED.value,
        checkpoint_path=checkpoint,
        on_entry=lambda entry: print(_describe(entry), flush=True))
  reporting.write_log(log, os.path.join(output_dir, "metrics.jsonl"))
  evaluated = [e for e in log if e.exploitability is not None]
  reporting.plot_curves(
      os.path.join(output_dir, "nfsp.png"),
      [("wall time (s)", "linear"), ("episodes", "linear")],
      [("NFSP", ([e.wall_time for e in evaluated],
                 [e.episodes for e in evaluated],
                 [e.exploitability for e in evaluated]))],
      title=f"NFSP on {game}")
  wrote = "metrics.jsonl, nfsp.png, checkpoint.pkl"
  tabular = evaluation.tabular_policy(game, average)
  if tabular is not None:
    reporting.save_policy(tabular, os.path.join(output_dir, "policy.json"))
    wrote += ", policy.json"
  final = log[-1].exploitability
  print(("" if final is None else f"final exploitability {final:.4f}; ") +
        f"wrote {wrote} to {output_dir}")


if __name__ == "__main__":
  cli.run(main)
