"""Runs NXDO or NXDO-VA on a poker game and reports the meta-NE's exact
exploitability.

With the learned oracle (default), best responses are DDQN networks trained
until their return plateaus and NFSP solves each restricted game on the
reference's schedule (7 warm-start iterations, then until NFSP's best
response gains less than a threshold that halves from 1.0 to 0.05). With
--oracle=exact, best responses come from the tree engine and CFR+ solves the
restricted game (XDO with delegated actions). Prints a line per iteration
and writes, under --output_dir: metrics.jsonl, nxdo.png (exploitability
against episodes and wall time), policy.json (the last meta-NE as a policy
of the game; of Leduc for m-Clone Leduc) and run/ (checkpoints: rerunning
the same command resumes).

  python -m open_spiel_ext.examples.nxdo --game=kuhn_poker --iterations=10
  python -m open_spiel_ext.examples.nxdo --game="xdo_clone_leduc(clones=20)"
"""

import os
from typing import Sequence

from absl import app
from absl import flags

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms import nxdo
from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.rl import nfsp
from open_spiel_ext.games import batched_poker
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_GAME = flags.DEFINE_string(
    "game", "leduc_poker", "kuhn_poker, leduc_poker or "
    "xdo_clone_leduc(clones=m): the games with a batched JAX engine.")
_VARIANT = flags.DEFINE_enum("variant", "nxdo", list(nxdo.VARIANTS),
                             "Meta-actions pick members (nxdo) or original "
                             "actions masked to the members' (nxdo_va).")
_ORACLE = flags.DEFINE_enum("oracle", "ddqn", ["ddqn", "exact"],
                            "Learned best responses with NFSP, or exact ones "
                            "with CFR+.")
_ITERATIONS = flags.DEFINE_integer("iterations", 30, "NXDO iterations.",
                                   lower_bound=1)
_NUM_ENVS = flags.DEFINE_integer("num_envs", 64, "Games played at once.")
_BR_CHECK_STEPS = flags.DEFINE_integer(
    "br_check_steps", 625, "Batched steps between the best response's "
    "plateau checks (about the reference's 20,000 episodes on Leduc).")
_BR_MAX_STEPS = flags.DEFINE_integer(
    "br_max_steps", 3_125, "Most batched steps per best response (about "
    "the reference's 100,000 episodes).")
_WARM_START = flags.DEFINE_integer(
    "warm_start_iterations", 7, "Iterations whose meta-NE is NFSP's "
    "untrained average policy.")
_SOLVE_MIN_STEPS = flags.DEFINE_integer(
    "solve_min_steps", 3_500, "Fewest NFSP batched steps per solve (about "
    "the reference's 50,000 episodes).")
_SOLVE_MAX_STEPS = flags.DEFINE_integer("solve_max_steps", 50_000,
                                        "Most NFSP batched steps per solve.")
_SEED = flags.DEFINE_integer("seed", 0, "The run's seed.")
_OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", "nxdo_output", "Where metrics, plot, policy and "
    "checkpoints go.")


def _run(game) -> nxdo.NXDO:
  with cli.user_input("game"):
    env = batched_poker.for_game(game, auto_reset=True)
  directory = os.path.join(_OUTPUT_DIR.value, "run")
  with cli.user_input():
    if _ORACLE.value == "exact":
      oracle = nxdo.ExactOracle(game)
      solver = nxdo.ExactSolver(oracle)
    else:
      oracle = nxdo.LearnedOracle(
          env, p2sro.default_config("ddqn"), check_steps=_BR_CHECK_STEPS.value,
          max_steps=_BR_MAX_STEPS.value, num_envs=_NUM_ENVS.value,
          seed=_SEED.value)
      solver = nxdo.NFSPSolver(
          nfsp.Config(), nxdo.Schedule(
              warm_start_iterations=_WARM_START.value,
              min_steps=_SOLVE_MIN_STEPS.value,
              max_steps=_SOLVE_MAX_STEPS.value),
          num_envs=_NUM_ENVS.value, seed=_SEED.value)
    return nxdo.NXDO(game, env, oracle, solver, _VARIANT.value, directory)


def _describe(entry: nxdo.Iteration) -> str:
  exploitability = ("" if entry.exploitability is None else
                    f"  exploitability {entry.exploitability:.4f}")
  return (f"iter {entry.iteration:3d}  population {entry.population:3d}  "
          f"episodes {entry.episodes:11,d}  {entry.wall_time:8.1f} s"
          f"{exploitability}  best response gains "
          f"{entry.response_return:.4f}")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  game = cli.load_game(_GAME.value)
  run = _run(game)
  if run.log:
    print(f"resuming after iteration {run.log[-1].iteration}")
  for entry in run.log:
    print(_describe(entry))
  output_dir = _OUTPUT_DIR.value
  while len(run.log) < _ITERATIONS.value:
    print(_describe(run.step()), flush=True)
    reporting.write_log(run.log, os.path.join(output_dir, "metrics.jsonl"))
  name = "NXDO-VA" if _VARIANT.value == "nxdo_va" else "NXDO"
  log = run.log
  reporting.plot_curves(
      os.path.join(output_dir, "nxdo.png"),
      [("episodes", "linear"), ("wall time (s)", "linear")],
      [(name, ([e.episodes for e in log], [e.wall_time for e in log],
               [e.exploitability for e in log]))],
      title=f"{name} ({_ORACLE.value} oracle) on {game}")
  reporting.save_policy(run.tabular_policy(),
                        os.path.join(output_dir, "policy.json"))
  print(f"final exploitability {log[-1].exploitability:.4f}; wrote "
        f"metrics.jsonl, nxdo.png, policy.json, run/ to {output_dir}")


if __name__ == "__main__":
  cli.run(main)
