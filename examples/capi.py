"""Runs CAPI on a common-payoff game, several seeds in parallel.

  python -m open_spiel_ext.examples.capi --game="trade_comm(num_items=12)" \
      --seeds=0,1 --episodes=2000 --output_dir=capi_trade_comm
  python -m open_spiel_ext.examples.capi --preset=tiny_bridge \
      --seeds=0,1,2,3 --output_dir=capi_tiny_bridge

--preset=tiny_bridge takes the paper's Abstracted Tiny Bridge settings
(`capi_recipes.tiny_bridge_config`, its game and 100,000 episodes
included); flags given on the command line override them. The seeds run
--workers at a time, in spawned processes or on Ray (--executor=ray); each
checkpoints at every
evaluation and the same command resumes it.

Prints a progress line per seed every --eval_every episodes (greedy and
search values, the last episode's return, distinct next beliefs evaluated,
seconds and where they went), writes metrics_seed<S>.jsonl per seed,
summary.json (per seed: best value, first episode reaching --target, seconds)
and capi.png (values against episodes and seconds). Defaults are the paper's
Trade Comm settings except --updates_per_episode: 4 Adam steps on each
episode's buffer instead of 1, which solves Trade Comm in a few hundred
episodes (see the README).
"""

from typing import Sequence

from absl import app
from absl import flags

import open_spiel_ext
from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.algorithms.capi import config as capi_config
from open_spiel_ext.algorithms.capi import prescriptions
from open_spiel_ext.experiments import capi_recipes
from open_spiel_ext.experiments import coop_runs
from open_spiel_ext.experiments import references
from open_spiel_ext.utils import cli

_PRESET = flags.DEFINE_enum(
    "preset", None, ["tiny_bridge"], "Start from the paper's settings for "
    "this game (flags given explicitly override them).")
_GAME = flags.DEFINE_string("game", "trade_comm(num_items=12)",
                            "A 2-player common-payoff game with public moves.")
_SEEDS = flags.DEFINE_list("seeds", ["0"], "One run per seed.")
_EPISODES = flags.DEFINE_integer("episodes", 2_000, "Episodes per run.",
                                 lower_bound=1)
_NUM_PRESCRIPTIONS = flags.DEFINE_integer(
    "num_prescriptions", 10_000, "K: prescriptions acquired per decision.",
    lower_bound=1)
_ACQUISITION = flags.DEFINE_enum("acquisition", "sample",
                                 capi_config.ACQUISITIONS,
                                 "Sample K, or take the K most likely.")
_POLICY = flags.DEFINE_enum("policy", "network", capi_config.POLICIES,
                            "Policy head on the value network, or a table "
                            "per public stage.")
_EPSILON = flags.DEFINE_float("epsilon", 0.1,
                              "Chance of playing a random acquired "
                              "prescription (--exploration=epsilon).",
                              lower_bound=0.0, upper_bound=1.0)
_EXPLORATION = flags.DEFINE_enum(
    "exploration", "epsilon", capi_config.EXPLORATIONS, "Explore at each "
    "decision with chance --epsilon, or at one decision per episode.")
_STRUCTURED = flags.DEFINE_bool(
    "structured_exploration", True,
    "Sample with one random row of the policy set to uniform.")
_HIDDEN_SIZES = flags.DEFINE_list("hidden_sizes", ["256", "256", "256"],
                                  "Value network layers.")
_LEARNING_RATE = flags.DEFINE_float("learning_rate", 1e-4, "Adam step size.",
                                    lower_bound=0.0)
flags.register_validator("learning_rate", lambda value: value > 0,
                         message="must be above 0")
_POLICY_LOSS_WEIGHT = flags.DEFINE_float("policy_loss_weight", 0.01,
                                         "Weight of the policy head's loss.",
                                         lower_bound=0.0)
_UPDATES = flags.DEFINE_integer("updates_per_episode", 4,
                                "Gradient steps on each episode's buffer.",
                                lower_bound=1)
_TABULAR_RATE = flags.DEFINE_float(
    "tabular_policy_rate", 0.01, "Tabular policy: step toward Γ* per episode.",
    lower_bound=0.0, upper_bound=1.0)
_POLICY_FLOOR = flags.DEFINE_float(
    "policy_floor", 0.01, "Tabular policy: floor (over the row's width) on "
    "each probability.", lower_bound=0.0, upper_bound=1.0)
_SQUASH = flags.DEFINE_bool("squash_values", False,
                            "Squash the value into the game's payoff range.")
_EVAL_EVERY = flags.DEFINE_integer("eval_every", 20,
                                   "Episodes between evaluations.",
                                   lower_bound=1)
_TARGET = flags.DEFINE_float(
    "target", None, "A run counts as solved once its search value reaches "
    "this (default: the best value a joint policy is known to reach, the "
    "Tiny Hanabi Suite's optima and Tiny Bridge's 20.79; else the game's "
    "maximum payoff).")
_STOP_WHEN_SOLVED = flags.DEFINE_bool(
    "stop_when_solved", False, "End a run at its first evaluation reaching "
    "--target.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "capi_output",
                                  "Metrics, summary and plot.")
cli.define_executor_flags()


# The flags that set `capi.config.Config` fields, by field.
_CONFIG_FLAGS = {
    "episodes": _EPISODES, "num_prescriptions": _NUM_PRESCRIPTIONS,
    "acquisition": _ACQUISITION, "policy": _POLICY, "epsilon": _EPSILON,
    "exploration": _EXPLORATION, "structured_exploration": _STRUCTURED,
    "hidden_sizes": _HIDDEN_SIZES, "learning_rate": _LEARNING_RATE,
    "policy_loss_weight": _POLICY_LOSS_WEIGHT, "updates_per_episode": _UPDATES,
    "tabular_policy_rate": _TABULAR_RATE, "policy_floor": _POLICY_FLOOR,
    "squash_values": _SQUASH, "eval_every": _EVAL_EVERY}


def _value(name: str):
  value = _CONFIG_FLAGS[name].value
  return tuple(int(h) for h in value) if name == "hidden_sizes" else value


def config_from_flags(seed: int) -> capi_config.Config:
  """The flags' settings, or the preset's where a flag was not given."""
  if _PRESET.value is None:
    return capi_config.Config(seed=seed,
                              **{n: _value(n) for n in _CONFIG_FLAGS})
  given = {n: _value(n) for n, flag in _CONFIG_FLAGS.items() if flag.present}
  return capi_recipes.tiny_bridge_config(seed=seed, **given)


def game_from_flags() -> str:
  if _PRESET.value is not None and not _GAME.present:
    return references.TINY_BRIDGE
  return _GAME.value


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input("seeds"):
    seeds = [int(s) for s in _SEEDS.value]
    if not seeds or min(seeds) < 0:
      raise ValueError(f"need one or more seeds >= 0, got "
                       f"{','.join(_SEEDS.value) or 'none'}")
  with cli.user_input():
    config = config_from_flags(seeds[0])
    config.validate()
  game_string = game_from_flags()
  game = cli.parse_flag("game", game_string, open_spiel_ext.load_game)
  with cli.user_input("game"):
    mdp = pub_mdp.build(game)
  needed = prescriptions.acquired_bytes(mdp, config.acquisition,
                                        config.num_prescriptions)
  cli.check_task_memory(needed, ["num_prescriptions"])
  with cli.user_input("seeds"):
    coop_runs.check_distinct(seeds)
  with cli.user_input("output_dir"):
    coop_runs.check_resumable(_OUTPUT_DIR.value, game_string, seeds,
                              config_from_flags)
  with cli.executor_from_flags() as executor:
    summaries = coop_runs.run_seeds(
        game_string, seeds, executor, config_from_flags, _TARGET.value,
        _OUTPUT_DIR.value, _STOP_WHEN_SOLVED.value)
  solved = sum(s["solved_at_episode"] is not None for s in summaries)
  print(coop_runs.format_capi_table(summaries))
  print(f"{solved}/{len(seeds)} runs reached the target; "
        f"best values {[round(s['best_value'], 4) for s in summaries]}")


if __name__ == "__main__":
  cli.run(main)
