"""Pipeline PSRO and its rivals with learned (or exact) best responses.

Prints a line per round (the learners' mean returns, the population and the
exploitability of its meta-Nash) and one per policy fixed, and writes under
--output_dir: metrics.jsonl, p2sro.png (exploitability against wall time and
environment steps), population/ (the run's checkpoints: the population, its
payoff table and every active learner; rerunning the same command resumes
from them) and policy.json (the final meta-Nash as a behaviour policy).
Exploitability is exact on poker's trees; on the Loss Game (continuous PPO
oracles, payoffs from sampled games) it is the approximate one of a fresh
PPO best response, measured when the meta-Nash changes, and there is no
policy.json.
The learners run as executor tasks: spawned processes here, or Ray
(--executor=ray, with --ray_address=auto to join a cluster that
`ray start --head` began).

  python -m open_spiel_ext.examples.p2sro
  python -m open_spiel_ext.examples.p2sro --algorithm=naive --workers=3
  python -m open_spiel_ext.examples.p2sro --oracle=exact --game=leduc_poker
  python -m open_spiel_ext.examples.p2sro --executor=ray --ray_address=auto
  python -m open_spiel_ext.examples.p2sro --game=loss_game --oracle=continuous_ppo

--oracle=exact runs sequential PSRO with exact best responses from the tree
engine: P2SRO and naive parallel PSRO with exact oracles fix exactly its
policies (the thesis's Proposition 2), so psro, p2sro and naive take it.
"""

import dataclasses
import os
import time
from typing import Sequence

from absl import app
from absl import flags

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms import meta_solvers
from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms import psro
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.tree import sweeps
from open_spiel_ext.experiments import evaluators
from open_spiel_ext.experiments import learner_configs
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting
import pyspiel

EXACT = "exact"  # The --oracle of exact best responses (tree engine).
EXACT_METHODS = ("psro", "p2sro", "naive")

_GAME = flags.DEFINE_string(
    "game", "leduc_poker", "kuhn_poker, leduc_poker, "
    "xdo_clone_leduc(clones=m) or loss_game(...): the games with a batched "
    "JAX engine.")
_ALGORITHM = flags.DEFINE_enum("algorithm", "p2sro", list(p2sro.METHODS),
                               "The population method.")
_ORACLE = flags.DEFINE_enum(
    "oracle", "sac", list(learner_configs.ORACLES) + [EXACT],
    "The best-response oracle: a learner "
    f"({learner_configs.CONTINUOUS_PPO} for the Loss Game's continuous "
    "actions), or exact (tree engine).")
_ENV_STEPS = flags.DEFINE_integer(
    "env_steps", 3_000_000, "Stop after this many environment steps of all "
    "learners together.", lower_bound=1)
_LEARNERS = flags.DEFINE_integer(
    "learners", 3, "Active learners of p2sro, naive and dch.", lower_bound=1)
_CHUNK_STEPS = flags.DEFINE_integer(
    "chunk_steps", p2sro.Config.chunk_steps,
    "Batched steps per learner per round.", lower_bound=1)
_MIN_STEPS = flags.DEFINE_integer(
    "min_steps", p2sro.Config.min_steps,
    "Batched steps before a learner can be fixed.", lower_bound=0)
_NUM_ENVS = flags.DEFINE_integer("num_envs", p2sro.Config.num_envs,
                                 "Games each learner plays at once.",
                                 lower_bound=1)
_META_SOLVER = flags.DEFINE_enum(
    "meta_solver", p2sro.Config.meta_solver,
    sorted(meta_solvers.META_SOLVERS), "The meta-game solver.")
_EXACT_ITERATIONS = flags.DEFINE_integer(
    "exact_iterations", 300, "--oracle=exact: the most PSRO iterations.",
    lower_bound=1)
# numpy's RandomState (--oracle=exact's PSRO) takes seeds below 2**32.
_SEED = flags.DEFINE_integer("seed", 0, "The run's seed.", lower_bound=0,
                             upper_bound=2**32 - 1)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "p2sro_output",
                                  "Where metrics, plot, checkpoints and "
                                  "policy go.")
cli.define_executor_flags(workers=3)
_FLAGS = flags.FLAGS


def _describe(entry: p2sro.LogEntry) -> str:
  returns = " ".join(f"{r:6.3f}" for r in entry.mean_returns)
  return (f"round {entry.round:4d}  {entry.env_steps:11,d} env steps  "
          f"{entry.wall_time:7.1f} s  learners' returns [{returns}]  "
          f"population {entry.fixed:3d}  exploitability "
          f"{entry.exploitability:.4f}")


def _learned(game: pyspiel.Game) -> None:
  with cli.user_input():
    config = p2sro.Config(
        method=_ALGORITHM.value, learners=_LEARNERS.value,
        chunk_steps=_CHUNK_STEPS.value, min_steps=_MIN_STEPS.value,
        num_envs=_NUM_ENVS.value, meta_solver=_META_SOLVER.value,
        seed=_SEED.value)
    learner_config = learner_configs.oracle_config(_ORACLE.value)
  output_dir = _OUTPUT_DIR.value
  directory = os.path.join(output_dir, "population")
  if os.path.exists(os.path.join(directory, p2sro.STATE_FILE)):
    print(f"resuming from {directory}")
  print(f"{_ALGORITHM.value} with {_ORACLE.value} oracles on {game}, "
        f"{_FLAGS.workers} {_FLAGS.executor} workers: "
        f"{dataclasses.asdict(config)}")
  with cli.user_input("game"):  # Refuses a game no learner can play.
    evaluator = evaluators.evaluator(game, _NUM_ENVS.value)
    carry_bytes = p2sro.carry_bytes(game, learner_config, config)
  with cli.user_input():
    cli.check_memory(carry_bytes, ["num_envs"], on_device=True)
    pipeline = p2sro.Pipeline(game, learner_config, config, directory,
                              cli.executor_from_flags, evaluator)
  with pipeline:
    for entry in reporting.follow(
        pipeline.run(max_env_steps=_ENV_STEPS.value), output_dir, _describe,
        resumed=list(pipeline.log)):
      for member in range(entry.fixed - entry.added, entry.fixed):
        print(f"  fixed policy {member}; payoff table "
              f"{entry.fixed}x{entry.fixed}", flush=True)
    log = pipeline.log
    wrote = "metrics.jsonl, p2sro.png, population/"
    if evaluator == best_response.EXACT:
      reporting.save_policy(pipeline.tabular_policy(),
                            os.path.join(output_dir, "policy.json"))
      wrote += ", policy.json"
  reporting.plot_curves(
      os.path.join(output_dir, "p2sro.png"),
      [("wall time (s)", "linear"), ("environment steps", "linear")],
      [(f"{_ALGORITHM.value} ({_ORACLE.value})",
        ([e.wall_time for e in log], [e.env_steps for e in log],
         [e.exploitability for e in log]))],
      title=f"{_ALGORITHM.value} on {game}")
  print(f"final exploitability {log[-1].exploitability:.4f} with "
        f"{log[-1].fixed} policies after {log[-1].env_steps:,d} env steps, "
        f"{log[-1].wall_time:.1f} s; wrote {wrote} to {output_dir}")


def _exact(game: pyspiel.Game) -> None:
  if _ALGORITHM.value not in EXACT_METHODS:
    raise app.UsageError(
        f"--oracle=exact: --algorithm={_ALGORITHM.value} needs a learned "
        f"oracle; exact oracles run {', '.join(EXACT_METHODS)} (which then "
        "fix the same policies)")
  with cli.user_input("game"):
    tree_sweeps = sweeps.for_game(game)
  solver = psro.PSRO(tree_sweeps, psro.Config(meta_solver=_META_SOLVER.value,
                                             seed=_SEED.value),
                     start_time=time.time())
  log = list(reporting.follow(
      solver.run(target_exploitability=0.0,
                 max_iterations=_EXACT_ITERATIONS.value),
      _OUTPUT_DIR.value,
      lambda entry: (f"iteration {entry.iteration:4d}  {entry.wall_time:7.2f}"
                     f" s  population {entry.population_sizes}  "
                     f"exploitability {entry.exploitability:.5f}")))
  reporting.finish(log, _OUTPUT_DIR.value, "p2sro",
                   f"PSRO with exact oracles on {game}",
                   solver.tabular_policy())


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  game = cli.parse_flag("game", _GAME.value, open_spiel_ext.load_game)
  if _ORACLE.value == EXACT:
    _exact(game)
  else:
    _learned(game)


if __name__ == "__main__":
  cli.run(main)
