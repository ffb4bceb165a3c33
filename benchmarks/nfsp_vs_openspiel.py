"""NFSP on Leduc poker: ours (`algorithms/rl/nfsp.py`) against OpenSpiel's
JAX NFSP (`open_spiel.python.jax.nfsp`), side by side in one run.

OpenSpiel's runs with the settings of its Leduc example
(`open_spiel/python/examples/nfsp_leduc_pytorch.py`, the one Leduc NFSP
example it ships): one agent per player, a 128-unit hidden layer, replay
200,000, reservoir 2,000,000, η = 0.1, batch 128, a learning step every 64
agent steps, SGD at 0.01 for both networks, squared loss, target network
every 19,200 steps, ε from 0.06 to 0.001 over 20 million steps, in the
standard `rl_environment` loop, one game at a time. (Its `_learn` is called
before the reservoir exists when an agent has not yet played a
best-response move, which crashes; the benchmark skips that call, as the
reservoir's own size check would.) Ours runs its defaults with 64 games at
once.

Both train on the same number of episodes (`--episodes`), and ours goes on
(up to `--ours_episodes_factor` times more) until it reaches OpenSpiel's
final exploitability, if it has not by then. Exploitability is OpenSpiel's
`exploitability.exploitability` for both (ours through the policy array of
its average network); time is training time, evaluations excluded. Prints
both curves against episodes, the time each needs to reach OpenSpiel's final
exploitability and their ratio, and writes nfsp_vs_openspiel.png
(exploitability against episodes and against training time) and
nfsp_vs_openspiel.json.

  pip install ".[benchmarks]"
  python benchmarks/nfsp_vs_openspiel.py --output_dir=/tmp/nfsp_vs_openspiel
"""

import json
import os
import time
from typing import Optional, Sequence

from absl import app
from absl import flags

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel.python import policy as policy_lib
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import exploitability
from open_spiel.python.jax import nfsp as openspiel_nfsp
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import nfsp
from open_spiel_ext.algorithms.tree import game_tree
from open_spiel_ext.games import engines
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting
import pyspiel

_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the PNG and JSON go.")
_EPISODES = flags.DEFINE_integer("episodes", 200_000,
                                 "The shared episode budget.")
_EVAL_EVERY = flags.DEFINE_integer("eval_every", 20_000,
                                   "Episodes between evaluations.")
_OURS_FACTOR = flags.DEFINE_integer(
    "ours_episodes_factor", 20, "Ours may train this many times the budget "
    "to reach OpenSpiel's final exploitability.")
_NUM_ENVS = flags.DEFINE_integer("num_envs", 64, "Our games at once.")
_TIME_LIMIT = flags.DEFINE_float(
    "time_limit_s", 3600.0, "Most training seconds of either side.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of both.")

GAME = "leduc_poker"
# Leduc's decisions per game under NFSP's play (measured: 64 million in 14.2
# million games); it only spaces our evaluations in episodes.
DECISIONS_PER_GAME = 4.5
LEDUC_EXAMPLE = dict(  # nfsp_leduc_pytorch.py's flags.
    hidden_layers_sizes=[128], reservoir_buffer_capacity=int(2e6),
    anticipatory_param=0.1, batch_size=128, rl_learning_rate=0.01,
    sl_learning_rate=0.01, min_buffer_size_to_learn=1000, learn_every=64,
    optimizer_str="sgd", replay_buffer_capacity=int(2e5),
    update_target_network_every=19200, discount_factor=1.0, loss_str="mse",
    epsilon_decay_duration=int(20e6), epsilon_start=0.06, epsilon_end=0.001)


class _OpenSpielNFSP(openspiel_nfsp.NFSP):
  """OpenSpiel's NFSP, without its learning step before any reservoir."""

  def _learn(self):
    if self._reservoir_buffer is None:
      return None
    return super()._learn()


class _AveragePolicies(policy_lib.Policy):
  """OpenSpiel's agents' average policies, as its examples evaluate them."""

  def __init__(self, game: pyspiel.Game, agents):
    super().__init__(game, [0, 1])
    self._agents = agents

  def action_probabilities(self, state, player_id=None):
    player = state.current_player()
    legal = state.legal_actions(player)
    observations = {"info_state": [None, None],
                    "legal_actions": [None, None], "current_player": player}
    observations["info_state"][player] = state.information_state_tensor(
        player)
    observations["legal_actions"][player] = legal
    step = rl_environment.TimeStep(observations=observations, rewards=None,
                                   discounts=None, step_type=None)
    agent = self._agents[player]
    with agent.temp_mode_as(openspiel_nfsp.MODE.AVERAGE_POLICY):
      probabilities = agent.step(step, is_evaluation=True).probs
    return {action: float(probabilities[action]) for action in legal}


def run_openspiel(game: pyspiel.Game) -> list[dict]:
  """OpenSpiel's NFSP for the episode budget: [{episodes, seconds,
  exploitability}]."""
  env = rl_environment.Environment(GAME)
  agents = [
      _OpenSpielNFSP(player, env.observation_spec()["info_state"][0],
                     env.action_spec()["num_actions"], seed=_SEED.value + player,
                     allow_checkpointing=False, **LEDUC_EXAMPLE)
      for player in (0, 1)]
  average = _AveragePolicies(game, agents)
  curve, trained = [], 0.0
  for start in range(0, _EPISODES.value, _EVAL_EVERY.value):
    began = time.perf_counter()
    for _ in range(min(_EVAL_EVERY.value, _EPISODES.value - start)):
      step = env.reset()
      while not step.last():
        player = step.observations["current_player"]
        step = env.step([agents[player].step(step).action])
      for agent in agents:
        agent.step(step)
    trained += time.perf_counter() - began
    episodes = min(start + _EVAL_EVERY.value, _EPISODES.value)
    curve.append({"episodes": episodes, "seconds": trained,
                  "exploitability": exploitability.exploitability(game,
                                                                  average)})
    _print_point("OpenSpiel", curve[-1])
    if trained >= _TIME_LIMIT.value:
      break
  return curve


class _Done(Exception):
  pass


def run_ours(game: pyspiel.Game, reach: Optional[float]) -> list[dict]:
  """Ours for the budget, then on until it reaches `reach` (at most the
  factor times the budget)."""
  env = engines.make(game, auto_reset=True)
  steps_per_eval = max(
      int(_EVAL_EVERY.value * DECISIONS_PER_GAME / _NUM_ENVS.value), 1)
  curve = []

  tree = game_tree.build_tree(game)  # Walked once for every evaluation.

  def openspiel_exploitability(policy) -> float:
    return exploitability.exploitability(
        game, evaluation.tabular_policy(game, policy, tree=tree))

  def record(entry: nfsp.LogEntry) -> None:
    curve.append({"episodes": entry.episodes, "seconds": entry.wall_time,
                  "exploitability": entry.exploitability})
    _print_point("ours", curve[-1])
    beyond_budget = entry.episodes >= _EPISODES.value
    if beyond_budget and (reach is None or entry.exploitability <= reach):
      raise _Done
    if (entry.episodes >= _EPISODES.value * _OURS_FACTOR.value or
        entry.wall_time >= _TIME_LIMIT.value):
      raise _Done

  try:
    nfsp.train_nfsp(env, nfsp.Config(), steps=10**9, num_envs=_NUM_ENVS.value,
                    eval_every=steps_per_eval, seed=_SEED.value,
                    exploitability=openspiel_exploitability, on_entry=record)
  except _Done:
    pass
  return curve


def _print_point(name: str, point: dict) -> None:
  print(f"  {name:9s} episodes {point['episodes']:10,d}  "
        f"{point['seconds']:8.1f} s  exploitability "
        f"{point['exploitability']:.4f}", flush=True)


def first_reaching(curve: list[dict], level: float) -> Optional[dict]:
  return next((p for p in curve if p["exploitability"] <= level), None)


def report(theirs: list[dict], ours: list[dict]) -> None:
  """The table of both curves and the time-to-reach ratio."""
  print(f"\n{'episodes':>10s} | {'OpenSpiel s':>11s} {'expl':>7s} | "
        f"{'ours episodes':>13s} {'ours s':>8s} {'expl':>7s}")
  for point in theirs:
    mine = next((p for p in ours if p["episodes"] >= point["episodes"]),
                ours[-1])
    print(f"{point['episodes']:10,d} | {point['seconds']:11.1f} "
          f"{point['exploitability']:7.4f} | {mine['episodes']:13,d} "
          f"{mine['seconds']:8.1f} {mine['exploitability']:7.4f}")
  final = theirs[-1]
  mine = first_reaching(ours, final["exploitability"])
  if mine is None:
    print(f"\nours did not reach OpenSpiel's final exploitability "
          f"{final['exploitability']:.4f} within {ours[-1]['episodes']:,} "
          f"episodes ({ours[-1]['seconds']:.1f} s; best "
          f"{min(p['exploitability'] for p in ours):.4f})")
    return
  print(f"\nOpenSpiel reached {final['exploitability']:.4f} after "
        f"{final['episodes']:,} episodes in {final['seconds']:.1f} s; ours "
        f"after {mine['episodes']:,} episodes in {mine['seconds']:.1f} s: "
        f"{final['seconds'] / mine['seconds']:.1f}x sooner in wall time, "
        f"{final['episodes'] / mine['episodes']:.2f}x the episodes' "
        "sample efficiency")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  game = pyspiel.load_game(GAME)
  print(f"OpenSpiel's NFSP, {_EPISODES.value:,} episodes", flush=True)
  theirs = run_openspiel(game)
  print(f"ours, {_NUM_ENVS.value} games at once", flush=True)
  ours = run_ours(game, theirs[-1]["exploitability"])
  report(theirs, ours)
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  with open(os.path.join(_OUTPUT_DIR.value, "nfsp_vs_openspiel.json"), "w",
            encoding="utf-8") as f:
    json.dump({"openspiel": theirs, "ours": ours}, f, indent=1)
  path = os.path.join(_OUTPUT_DIR.value, "nfsp_vs_openspiel.png")
  reporting.plot_curves(
      path, [("episodes", "log"), ("training time (s)", "log")],
      [(name, ([p["episodes"] for p in curve], [p["seconds"] for p in curve],
               [p["exploitability"] for p in curve]))
       for name, curve in (("OpenSpiel JAX NFSP", theirs),
                           ("open_spiel_ext NFSP", ours))],
      title="NFSP on Leduc poker")
  print(f"wrote {path} and nfsp_vs_openspiel.json")


if __name__ == "__main__":
  cli.run(main)
