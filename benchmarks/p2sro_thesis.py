"""The P2SRO thesis's experiments with pipeline PSRO and its rivals.

Normal-form games (`--experiments=normal_form`): random symmetric zero-sum
normal-form games (`--dimension` 60, `--games` 5; antisymmetric payoffs with
the upper triangle uniform in (-1, 1)), every method of
`algorithms/normal_form_psro.py` with exact best responses and the update
π ← r·BR(σ) + (1 − r)·π: P2SRO, DCH with r = 1 and with an annealed rate,
rectified PSRO, naive parallel PSRO, sequential PSRO and self-play, all for
`--iterations` iterations (one update of every active learner each: equal
time for the parallel methods), each run an executor task. Prints the mean
exploitability ± standard error over the games at a few iterations and the
time per method, and writes p2sro_normal_form.png (mean ± standard error
against iterations) and p2sro_normal_form.json.

Leduc poker (`--experiments=leduc`): `algorithms/p2sro/`'s P2SRO, naive
parallel PSRO, rectified PSRO and DCH with learned best responses
(`--oracle`, discrete SAC by default), `--seeds` seeds each, every run for
`--env_steps` environment steps with its learners on `--workers` executor
workers. Prints, per method, the exact exploitability at the end (mean ±
standard error, and each seed's), the environment steps and minutes each
seed took to reach `--target`, and the minutes per run; writes
p2sro_leduc.png (exploitability against environment steps and wall time)
and p2sro_leduc.json. Runs checkpoint under --output_dir/leduc_runs: the
same command resumes them, and a finished run's log stays there as
<method>_seed<k>.jsonl. The runs go seed by seed across the methods.

  python benchmarks/p2sro_thesis.py --output_dir=/tmp/p2sro_thesis
  python benchmarks/p2sro_thesis.py --experiments=leduc --seeds=3
"""

import dataclasses
import json
import os
import time
from typing import Sequence

from absl import app
from absl import flags
import numpy as np

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms import normal_form_psro as nf
from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.experiments import learner_configs
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import executors
from open_spiel_ext.utils import reporting
import pyspiel

_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the PNG and JSON go.")
_DIMENSION = flags.DEFINE_integer("dimension", 60, "Pure strategies.")
_GAMES = flags.DEFINE_integer("games", 5, "Random games.")
_ITERATIONS = flags.DEFINE_integer("iterations", 100, "Iterations per run.")
_LEARNERS = flags.DEFINE_integer("learners", 4,
                                 "Active policies of the parallel methods.")
_EXPERIMENTS = cli.define_choice_list(
    "experiments", ("normal_form", "leduc"), ["normal_form", "leduc"],
    "Which experiments to run.")
_LEDUC_METHODS = flags.DEFINE_list(
    "methods", ["p2sro", "naive", "rectified", "dch"],
    "Leduc: the population methods (of algorithms/p2sro/).")
_SEEDS = flags.DEFINE_integer("seeds", 3, "Leduc: seeds per method.",
                              lower_bound=1)
_ORACLE = flags.DEFINE_enum("oracle", "sac", list(learner_configs.ALGORITHMS),
                            "Leduc: the learned best-response oracle.")
_ENV_STEPS = flags.DEFINE_integer(
    "env_steps", 3_000_000, "Leduc: environment steps per run (all "
    "learners together).", lower_bound=1)
_TARGET = flags.DEFINE_float("target", 0.4,
                             "Leduc: the exploitability to reach.")
cli.define_executor_flags(workers=3)

# (label, method, changes to the shared config).
RUNS = (
    ("P2SRO", "p2sro", {}),
    ("DCH, r = 1", "dch", {"learning_rate": 1.0}),
    ("DCH, annealed", "dch", {"anneal": True}),
    ("rectified PSRO", "rectified", {}),
    ("naive parallel PSRO", "naive", {}),
    ("sequential PSRO", "psro", {}),
    ("self-play", "self_play", {}),
)
REPORT_AT = (10, 25, 50, 100)


def _timed_run(*args, **kwargs) -> tuple[list[float], float]:
  """An executor task: one normal-form run's curve and its seconds."""
  start = time.process_time()
  curve = nf.run(*args, **kwargs)[0]
  return curve, time.process_time() - start


def normal_form(executor: executors.Executor) -> dict[str, dict]:
  """Every method on every game, each run a task: {label: {"curves",
  "seconds" (CPU seconds of its runs)}}."""
  base = nf.Config(learners=_LEARNERS.value)
  games = [nf.random_symmetric_game(_DIMENSION.value,
                                    np.random.default_rng(seed))
           for seed in range(_GAMES.value)]
  futures = {
      label: [executor.submit(_timed_run, method, payoffs,
                              dataclasses.replace(base, **changes),
                              _ITERATIONS.value, seed=seed)
              for seed, payoffs in enumerate(games)]
      for label, method, changes in RUNS}
  results = {}
  for label, runs in futures.items():
    curves, seconds = zip(*executors.results(runs))
    results[label] = {"curves": list(curves), "seconds": sum(seconds)}
    print(f"{label:22s} done in {results[label]['seconds']:.1f} CPU s",
          flush=True)
  return results


def report(results: dict[str, dict]) -> None:
  at = [i for i in REPORT_AT if i <= _ITERATIONS.value]
  print(f"\nmean exploitability ± standard error over {_GAMES.value} games "
        "(CPU seconds of all its runs)")
  print(f"{'method':22s} " + " ".join(f"{'iter ' + str(i):>17s}" for i in at))
  for label, result in results.items():
    curves = np.asarray(result["curves"])
    cells = []
    for i in at:
      values = curves[:, i - 1]
      cells.append(f"{values.mean():8.4f} ± {reporting.standard_error(values):6.4f}")
    print(f"{label:22s} " + " ".join(f"{c:>17s}" for c in cells) +
          f"  ({result['seconds']:.1f} s)")


def plot(results: dict[str, dict], path: str) -> None:
  fig, axis = reporting.plt.subplots(figsize=(7, 4.5))
  for label, result in results.items():
    curves = np.asarray(result["curves"])
    mean = curves.mean(0)
    error = reporting.standard_error(curves)
    iterations = np.arange(1, len(mean) + 1)
    axis.plot(iterations, mean, label=label)
    axis.fill_between(iterations, np.maximum(mean - error, 1e-6),
                      mean + error, alpha=0.2)
  axis.set_yscale("log")
  axis.set_xlabel("iteration (one update of every active learner)")
  axis.set_ylabel("exploitability")
  axis.grid(True, which="both", alpha=0.3)
  axis.legend(fontsize=8)
  fig.suptitle(f"Random symmetric zero-sum games, dimension "
               f"{_DIMENSION.value}, {_GAMES.value} games")
  reporting.save_figure(fig, path)


def _leduc_run(method: str, seed: int) -> list[dict]:
  """One Leduc run's log to --env_steps, resumed from its checkpoints if any.

  A finished run leaves its log as leduc_runs/<method>_seed<seed>.jsonl,
  which later invocations read instead of its checkpoints (the JSON lines
  are small enough to keep with the results; the checkpoints may then be
  deleted).
  """
  name = os.path.join(_OUTPUT_DIR.value, "leduc_runs", f"{method}_seed{seed}")
  log = reporting.read_json_lines(name + ".jsonl")
  if log and log[-1]["env_steps"] >= _ENV_STEPS.value:
    return log
  config = p2sro.Config(method=method, seed=seed)
  with p2sro.Pipeline(pyspiel.load_game("leduc_poker"),
                      learner_configs.oracle_config(_ORACLE.value), config,
                      name, cli.executor_from_flags) as pipeline:
    for entry in pipeline.run(max_env_steps=_ENV_STEPS.value):
      if entry.added or entry.round % 10 == 0:
        print(f"  {method} seed {seed}: round {entry.round}, "
              f"{entry.env_steps:,d} env steps, {entry.wall_time:.0f} s, "
              f"{entry.fixed} policies, exploitability "
              f"{entry.exploitability:.3f}", flush=True)
    reporting.write_log(pipeline.log, name + ".jsonl")
  return reporting.read_json_lines(name + ".jsonl")


def leduc() -> dict[str, list[list[dict]]]:
  """{method: [each seed's log as records]}, seed by seed across methods."""
  results = {method: [] for method in _LEDUC_METHODS.value}
  for seed in range(_SEEDS.value):
    for method in _LEDUC_METHODS.value:
      print(f"Leduc: {method}, seed {seed}", flush=True)
      results[method].append(_leduc_run(method, seed))
  return results


def _reached(log: list[dict], target: float) -> str:
  for entry in log:
    if entry["exploitability"] <= target:
      return (f"{entry['env_steps'] / 1e6:.2f}M/"
              f"{entry['wall_time'] / 60:.1f}m")
  return "never"


def report_leduc(results: dict[str, list[list[dict]]]) -> None:
  target = _TARGET.value
  print(f"\nLeduc poker, {_ORACLE.value} oracles, {_ENV_STEPS.value:,d} "
        f"environment steps per run: exact exploitability at the end")
  print(f"{'method':10s} {'mean ± s.e.':>16s}  {'per seed':24s} "
        f"{'reached ' + str(target) + ' (steps/min)':36s} {'min/run':>8s}")
  for method, logs in results.items():
    finals = np.array([log[-1]["exploitability"] for log in logs])
    seeds = " ".join(f"{value:.3f}" for value in finals)
    reached = " ".join(_reached(log, target) for log in logs)
    minutes = np.mean([log[-1]["wall_time"] for log in logs]) / 60
    print(f"{method:10s} {finals.mean():8.3f} ± {reporting.standard_error(finals):5.3f}  "
          f"{seeds:24s} {reached:36s} {minutes:8.1f}")


def plot_leduc(results: dict[str, list[list[dict]]], path: str) -> None:
  reporting.plot_runs(
      path, results, [("env_steps", 1e6, "environment steps (millions)"),
                      ("wall_time", 60, "wall time (minutes)")],
      "exploitability (exact)",
      f"Leduc poker, {_ORACLE.value} oracles, {_SEEDS.value} seeds per "
      "method (dashed: the target)", target=_TARGET.value)


def _write(results: dict, name: str, plotter) -> None:
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  with open(os.path.join(_OUTPUT_DIR.value, f"{name}.json"), "w",
            encoding="utf-8") as f:
    json.dump(results, f)
  path = os.path.join(_OUTPUT_DIR.value, f"{name}.png")
  plotter(results, path)
  print(f"wrote {path} and {name}.json")


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  for method in _LEDUC_METHODS.value:
    if method not in p2sro.METHODS:
      raise app.UsageError(f"--methods: unknown method {method!r}; the "
                           f"methods are {', '.join(p2sro.METHODS)}")
  if "normal_form" in _EXPERIMENTS.value:
    with cli.executor_from_flags() as executor:
      results = normal_form(executor)
    report(results)
    _write(results, "p2sro_normal_form", plot)
  if "leduc" in _EXPERIMENTS.value:
    results = leduc()
    report_leduc(results)
    _write(results, "p2sro_leduc", plot_leduc)


if __name__ == "__main__":
  cli.run(main)
