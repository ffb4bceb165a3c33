"""How close learned best responses come to exact ones, and how fast.

Trains each of DDQN, PPO and discrete SAC (`algorithms/rl/best_response.py`,
the settings of `learner_configs.best_response_config`) against a fixed
opponent on Leduc poker (the uniform policy, and the average policy of 50
CFR+ iterations), and DDQN against the uniform policy on 20-Clone Leduc, one
after another in this process. After every `--eval_every` steps the tree
engine gives the learned policy's exact value against the opponent in each
seat and the exact best-response value;
the gap is their difference, averaged over the two seats (m-Clone Leduc
through its collapse onto Leduc). Each run stops at `--steps` or once it has
trained `--time_limit_s` seconds (evaluations not counted).

Prints a table (final gap, best gap seen, training seconds, steps, whether
the gap is within the target: 0.1 chips on Leduc, 0.2 on 20-Clone Leduc, in
at most 5 minutes) and writes best_responses.png (gap against training
time) and best_responses.json (every curve).

  python benchmarks/best_responses.py --output_dir=/tmp/best_responses
"""

import json
import os
from typing import Sequence

from absl import app
from absl import flags

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.experiments import learner_configs
from open_spiel_ext.games import engines
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting
import pyspiel

_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the PNG and JSON go.")
_STEPS = flags.DEFINE_integer("steps", 60_000, "Batched steps per run.")
_EVAL_EVERY = flags.DEFINE_integer("eval_every", 6_000,
                                   "Steps between exact evaluations.")
_TIME_LIMIT = flags.DEFINE_float("time_limit_s", 300.0,
                                 "Most training seconds per run.")
_RUNS = flags.DEFINE_list(
    "runs", None, "Only these runs, e.g. ddqn/leduc/uniform (default: all).")

# (algorithm, game, opponent spec, target gap in chips).
RUNS = [(algorithm, "leduc_poker", opponent, 0.1)
        for algorithm in learner_configs.ALGORITHMS
        for opponent in ("uniform", "cfr+:50")] + [
            ("ddqn", "xdo_clone_leduc(clones=20)", "uniform", 0.2)]
TIME_TARGET_S = 300.0


class _OutOfTime(Exception):
  pass


def run_one(algorithm: str, game_string: str, spec: str) -> list[dict]:
  """One run's curve: [{step, wall_time, gap, values, best_values}]."""
  game = pyspiel.load_game(game_string)
  opponent = opponents.from_spec(spec, game)
  evaluator = evaluation.ExactEvaluator(game, opponent)
  curve = []

  def record(entry: best_response.LogEntry) -> None:
    curve.append({"step": entry.step, "wall_time": entry.wall_time,
                  "gap": entry.exact.gap,
                  "values": entry.exact.values.tolist(),
                  "best_values": entry.exact.best_values.tolist()})
    print(f"  step {entry.step:7,d}  {entry.wall_time:6.1f} s  gap "
          f"{entry.exact.gap:.4f}", flush=True)
    if entry.wall_time >= _TIME_LIMIT.value:
      raise _OutOfTime

  try:
    best_response.train_best_response(
        engines.make(game, auto_reset=True), opponent,
        learner_configs.best_response_config(algorithm, _STEPS.value),
        steps=_STEPS.value, eval_every=_EVAL_EVERY.value, evaluator=evaluator,
        on_entry=record)
  except _OutOfTime:
    pass
  return curve


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  runs = [run for run in RUNS
          if _RUNS.value is None or "/".join(run[:3]) in _RUNS.value]
  curves = {}
  for algorithm, game, spec, _ in runs:
    name = f"{algorithm}/{game}/{spec}"
    print(name, flush=True)
    curves[name] = run_one(algorithm, game, spec)
  print(f"\n{'run':45s} {'final gap':>9s} {'best gap':>9s} {'seconds':>8s} "
        f"{'steps':>7s}  within target")
  for algorithm, game, spec, target in runs:
    curve = curves[f"{algorithm}/{game}/{spec}"]
    final = curve[-1]
    met = final["gap"] <= target and final["wall_time"] <= TIME_TARGET_S
    print(f"{algorithm + ' ' + game + ' vs ' + spec:45s} "
          f"{final['gap']:9.4f} {min(p['gap'] for p in curve):9.4f} "
          f"{final['wall_time']:8.1f} {final['step']:7,d}  "
          f"{'yes' if met else 'NO'} (<= {target} in {TIME_TARGET_S:.0f} s)")
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  with open(os.path.join(_OUTPUT_DIR.value, "best_responses.json"), "w",
            encoding="utf-8") as f:
    json.dump(curves, f, indent=1)
  path = os.path.join(_OUTPUT_DIR.value, "best_responses.png")
  reporting.plot_curves(
      path, [("training time (s)", "linear"), ("batched steps", "linear")],
      [(name, ([p["wall_time"] for p in curve], [p["step"] for p in curve],
               [p["gap"] for p in curve])) for name, curve in curves.items()],
      title="Learned best responses: gap to the exact best response",
      ylabel="gap (chips)")
  print(f"wrote {path} and best_responses.json")


if __name__ == "__main__":
  cli.run(main)
