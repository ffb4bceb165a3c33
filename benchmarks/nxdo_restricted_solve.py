"""How well NFSP solves one NXDO restricted game, and how well it knows it.

NXDO's threshold schedule stops NFSP on the restricted game once NFSP's own
estimate of its average policy's exploitability (the best responder's mean
return against the average policy) falls below a threshold. This script
takes the population of a finished or running NXDO run of
`benchmarks/nxdo_thesis.py` (a poker game, where the tree fits), runs NFSP
on its restricted game with the same settings, and logs side by side that
estimate and the exact exploitability of the average policy within the
restricted game (`meta_ne.restricted_exploitability`); --nfsp changes NFSP's
settings to see what solves it better. Prints a table and writes
nxdo_restricted_solve.png (both against episodes).

  python benchmarks/nxdo_restricted_solve.py \\
      --run_dir=/tmp/nxdo_thesis/runs/xdo_clone_leduc_clones_20/nxdo_seed1 \\
      --seed=1 --output_dir=/tmp/nxdo_restricted_solve
"""

import ast
import dataclasses
import os
from typing import Sequence

from absl import app
from absl import flags

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms.nxdo import driver as nxdo_driver
from open_spiel_ext.algorithms.nxdo import meta_ne
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import nfsp
from open_spiel_ext.experiments import nxdo_recipes
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_GAME = flags.DEFINE_string("game", "xdo_clone_leduc(clones=20)",
                            "The run's game (a poker game).")
_RUN_DIR = flags.DEFINE_string("run_dir", None,
                               "The NXDO run's directory (its state.pkl).")
_SEED = flags.DEFINE_integer("seed", 0, "The run's seed.")
_VARIANT = flags.DEFINE_enum("variant", "nxdo", ["nxdo", "nxdo_va"],
                             "The run's variant.")
_NUM_ENVS = flags.DEFINE_integer("num_envs", 64, "The run's games at once.")
_STEPS = flags.DEFINE_integer("steps", 20_000, "NFSP's batched steps.",
                              lower_bound=1)
_EVAL_EVERY = flags.DEFINE_integer("eval_every", 1_000,
                                   "Batched steps between measurements.",
                                   lower_bound=1)
_NFSP_SEED = flags.DEFINE_integer("nfsp_seed", 0, "NFSP's seed.")
_NFSP_SETTINGS = flags.DEFINE_list(
    "nfsp", [], "NFSP's settings that differ from the run's, as name=value "
    "(`nfsp.Config` fields; best_response.<name> for its DDQN's).")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the PNG goes.")
flags.mark_flag_as_required("run_dir")


def _with_settings(config: nfsp.Config, settings: list[str]) -> nfsp.Config:
  """`config` with the name=value `settings` (ValueError naming a bad one)."""
  changes, response_changes = {}, {}
  for setting in settings:
    name, _, value = setting.partition("=")
    target, field = ((response_changes, name[len("best_response."):])
                     if name.startswith("best_response.") else (changes, name))
    try:
      target[field] = ast.literal_eval(value)
    except (ValueError, SyntaxError) as error:
      raise ValueError(f"--nfsp: cannot read {setting!r}") from error
  try:
    return dataclasses.replace(
        config, best_response=dataclasses.replace(config.best_response,
                                                  **response_changes),
        **changes)
  except TypeError as error:
    raise ValueError(f"--nfsp: {error}") from error


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  if not os.path.exists(os.path.join(_RUN_DIR.value, "state.pkl")):
    raise app.UsageError(f"--run_dir={_RUN_DIR.value} holds no NXDO run "
                         "(state.pkl)")
  game = cli.parse_flag("game", _GAME.value, open_spiel_ext.load_game)
  recipe = nxdo_recipes.recipe(game, _NUM_ENVS.value)
  if recipe.evaluator != best_response.EXACT:
    raise app.UsageError(f"--game={_GAME.value}: no tree to measure the "
                         "restricted game's exploitability exactly")
  run = nxdo_driver.NXDO(
      game, recipe.env, recipe.oracle(_NUM_ENVS.value, _SEED.value),
      recipe.solver(_NUM_ENVS.value, _SEED.value), _VARIANT.value,
      _RUN_DIR.value, evaluator=None)
  restricted = run.restricted_game()
  meta_apply = run.solver.meta_apply(restricted)
  exact = evaluation.OpponentExploitability(game)

  def restricted_exploitability(policy) -> float:
    return meta_ne.restricted_exploitability(
        restricted, meta_ne.meta_policy(restricted, meta_apply, policy.params),
        exact)

  config = _with_settings(run.solver.config, _NFSP_SETTINGS.value)
  print(f"{game}: {restricted.size} members after {len(run.log)} "
        f"iterations; NFSP on their restricted game with {config}")
  print(f"{'steps':>8s} {'episodes':>10s} {'NFSP estimate':>14s} "
        f"{'exact':>8s}")
  _, log = nfsp.train_nfsp(
      restricted, config, steps=_STEPS.value,
      num_envs=_NUM_ENVS.value, eval_every=_EVAL_EVERY.value,
      seed=_NFSP_SEED.value, exploitability=restricted_exploitability,
      on_entry=lambda e: print(
          f"{e.step:8,d} {e.episodes:10,d} {e.response_return:14.3f} "
          f"{e.exploitability:8.3f}", flush=True))
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  path = os.path.join(_OUTPUT_DIR.value, "nxdo_restricted_solve.png")
  episodes = [e.episodes for e in log]
  reporting.plot_curves(
      path, [("episodes", "linear")],
      [("NFSP's estimate (best response vs average)",
        (episodes, [e.response_return for e in log])),
       ("exact, within the restricted game",
        (episodes, [e.exploitability for e in log]))],
      title=f"NFSP on the restricted game of {restricted.size} members "
      f"({game})", ylabel="exploitability", yscale="linear")
  print(f"wrote {path}")


if __name__ == "__main__":
  cli.run(main)
