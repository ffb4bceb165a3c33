"""Runs NXDO or NXDO-VA on a poker game or the Loss Game and reports the
meta-NE's exploitability.

With the learned oracle (default), the reference's settings for the game
(`nxdo_recipes.recipe`): on poker, DDQN best responses trained until their
return plateaus and NFSP on each restricted game until the meta-NE's
exploitability there falls below a threshold halving from 1.0 to 0.05
(after 7 warm-start iterations), measured exactly on the tree
(--signal=nfsp_estimate: by NFSP's own estimate, as the reference did),
exact exploitability; on the Loss Game (NXDO only), continuous PPO best
responses, NFSP for a budget growing by 1.5, and the approximate
exploitability of a fresh PPO best response. With --oracle=exact, best
responses come from the tree engine and CFR+ solves the restricted game
(XDO with delegated actions). Prints a line per iteration and writes, under
--output_dir: metrics.jsonl, nxdo.png (exploitability against episodes and
wall time), policy.json (where exploitability is exact, as on poker: the
last meta-NE as a policy of the game, of Leduc for m-Clone Leduc) and run/
(checkpoints: rerunning the same command resumes).

  python -m open_spiel_ext.examples.nxdo --game=kuhn_poker --iterations=10
  python -m open_spiel_ext.examples.nxdo --game="xdo_clone_leduc(clones=20)"
  python -m open_spiel_ext.examples.nxdo --game=loss_game --iterations=20
"""

import os
from typing import Sequence

from absl import app
from absl import flags

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms.nxdo import driver as nxdo_driver
from open_spiel_ext.algorithms.nxdo import oracles
from open_spiel_ext.algorithms.nxdo import restricted_game
from open_spiel_ext.algorithms.nxdo import solvers
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.experiments import nxdo_recipes
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_GAME = flags.DEFINE_string(
    "game", "leduc_poker", "kuhn_poker, leduc_poker, "
    "xdo_clone_leduc(clones=m) or loss_game(...): the games with a batched "
    "JAX engine.")
_VARIANT = flags.DEFINE_enum("variant", "nxdo", list(restricted_game.VARIANTS),
                             "Meta-actions pick members (nxdo) or original "
                             "actions masked to the members' (nxdo_va).")
_ORACLE = flags.DEFINE_enum(
    "oracle", "learned", ["learned", "exact"],
    "Learned best responses with NFSP on the reference's settings "
    "(nxdo_recipes.recipe), or exact ones with CFR+ (tree-sized games).")
_SIGNAL = flags.DEFINE_enum(
    "signal", "exact", list(solvers.SIGNALS),
    "Poker: what stops NFSP on a restricted game, its exact exploitability "
    "there or NFSP's own estimate (the reference's).")
_ITERATIONS = flags.DEFINE_integer("iterations", 30, "NXDO iterations.",
                                   lower_bound=1)
_NUM_ENVS = flags.DEFINE_integer("num_envs", 64, "Games played at once.",
                                 lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "The run's seed.", lower_bound=0)
_OUTPUT_DIR = flags.DEFINE_string(
    "output_dir", "nxdo_output", "Where metrics, plot, policy and "
    "checkpoints go.")


def _run(game) -> nxdo_driver.NXDO:
  directory = os.path.join(_OUTPUT_DIR.value, "run")
  with cli.user_input("game"):
    recipe = nxdo_recipes.recipe(game, _NUM_ENVS.value, _SIGNAL.value)
  with cli.user_input():
    if _ORACLE.value == "exact":
      oracle = oracles.ExactOracle(game)
      return nxdo_driver.NXDO(game, recipe.env, oracle,
                              solvers.ExactSolver(game), _VARIANT.value,
                              directory)
    needed = best_response.carry_bytes(recipe.env, recipe.oracle_config,
                                       _NUM_ENVS.value)
    cli.check_memory(needed, ["num_envs"], on_device=True)
    return nxdo_driver.NXDO(game, recipe.env,
                            recipe.oracle(_NUM_ENVS.value, _SEED.value),
                            recipe.solver(_NUM_ENVS.value, _SEED.value),
                            _VARIANT.value, directory, recipe.evaluator)


def _describe(entry: nxdo_driver.LogEntry) -> str:
  optional = [("exploitability", entry.exploitability),
              ("in the restricted game", entry.restricted_exploitability),
              ("(NFSP's estimate", entry.solver_estimate)]
  measured = "".join(f"  {name} {value:.4f}" + (")" if "(" in name else "")
                     for name, value in optional if value is not None)
  return (f"iter {entry.iteration:3d}  population {entry.population:3d}  "
          f"episodes {entry.episodes:11,d}  {entry.wall_time:8.1f} s"
          f"{measured}  best response gains {entry.response_return:.4f}")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  game = cli.parse_flag("game", _GAME.value, open_spiel_ext.load_game)
  run = _run(game)
  if run.log:
    print(f"resuming after iteration {run.log[-1].iteration}")
  output_dir = _OUTPUT_DIR.value
  list(reporting.follow(run.run(max_iterations=_ITERATIONS.value), output_dir,
                        _describe, resumed=list(run.log)))
  name = "NXDO-VA" if _VARIANT.value == "nxdo_va" else "NXDO"
  log = run.log
  reporting.plot_curves(
      os.path.join(output_dir, "nxdo.png"),
      [("episodes", "linear"), ("wall time (s)", "linear")],
      [(name, ([e.episodes for e in log], [e.wall_time for e in log],
               [e.exploitability for e in log]))],
      title=f"{name} ({_ORACLE.value} oracle) on {game}")
  wrote = "metrics.jsonl, nxdo.png, run/"
  if run.exact:  # The meta-NE is a policy of the tree the evaluator walks.
    reporting.save_policy(run.tabular_policy(),
                          os.path.join(output_dir, "policy.json"))
    wrote += ", policy.json"
  print(f"final exploitability {log[-1].exploitability:.4f}; wrote {wrote} "
        f"to {output_dir}")


if __name__ == "__main__":
  cli.run(main)
