"""The P2SRO thesis's experiments with pipeline PSRO and its rivals.

The normal-form experiment (the thesis's first; its Leduc experiment with
learned oracles is not built yet): random symmetric
zero-sum normal-form games (`--dimension` 60, `--games` 5; antisymmetric
payoffs with the upper triangle uniform in (-1, 1)), every method of
`algorithms/normal_form_psro.py` with exact best responses and the update
π ← r·BR(σ) + (1 − r)·π: P2SRO, DCH with r = 1 and with an annealed rate,
rectified PSRO, naive parallel PSRO, sequential PSRO and self-play, all for
`--iterations` iterations (one update of every active learner each: equal
time for the parallel methods). Prints the mean exploitability ± standard
error over the games at a few iterations and the wall time per method, and
writes p2sro_normal_form.png (mean ± standard error against iterations) and
p2sro_normal_form.json.

  python benchmarks/p2sro_thesis.py --output_dir=/tmp/p2sro_thesis
"""

import dataclasses
import json
import os
import time
from typing import Sequence

from absl import app
from absl import flags
import matplotlib
import numpy as np

from open_spiel_ext.algorithms import normal_form_psro as nf

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # pylint: disable=g-import-not-at-top,wrong-import-position

_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the PNG and JSON go.")
_DIMENSION = flags.DEFINE_integer("dimension", 60, "Pure strategies.")
_GAMES = flags.DEFINE_integer("games", 5, "Random games.")
_ITERATIONS = flags.DEFINE_integer("iterations", 100, "Iterations per run.")
_LEARNERS = flags.DEFINE_integer("learners", 4,
                                 "Active policies of the parallel methods.")

# (label, method, changes to the shared settings).
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


def normal_form() -> dict[str, dict]:
  """Every method on every game: {label: {"curves", "seconds"}}."""
  base = nf.Settings(learners=_LEARNERS.value)
  games = [nf.random_symmetric_game(_DIMENSION.value,
                                    np.random.default_rng(seed))
           for seed in range(_GAMES.value)]
  results = {}
  for label, method, changes in RUNS:
    settings = dataclasses.replace(base, **changes)
    start = time.perf_counter()
    curves = [nf.run(method, payoffs, settings, _ITERATIONS.value,
                     seed=seed)[0] for seed, payoffs in enumerate(games)]
    results[label] = {"curves": curves,
                      "seconds": time.perf_counter() - start}
    print(f"{label:22s} done in {results[label]['seconds']:.1f} s",
          flush=True)
  return results


def report(results: dict[str, dict]) -> None:
  at = [i for i in REPORT_AT if i <= _ITERATIONS.value]
  print(f"\nmean exploitability ± standard error over {_GAMES.value} games")
  print(f"{'method':22s} " + " ".join(f"{'iter ' + str(i):>17s}" for i in at))
  for label, result in results.items():
    curves = np.asarray(result["curves"])
    cells = []
    for i in at:
      values = curves[:, i - 1]
      cells.append(f"{values.mean():8.4f} ± {_stderr(values):6.4f}")
    print(f"{label:22s} " + " ".join(f"{c:>17s}" for c in cells))


def _stderr(values: np.ndarray) -> float:
  return float(values.std(ddof=1) / np.sqrt(len(values))) if len(
      values) > 1 else 0.0


def plot(results: dict[str, dict], path: str) -> None:
  fig, axis = plt.subplots(figsize=(7, 4.5))
  for label, result in results.items():
    curves = np.asarray(result["curves"])
    mean = curves.mean(0)
    error = curves.std(0, ddof=1) / np.sqrt(len(curves)) if len(
        curves) > 1 else np.zeros_like(mean)
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
  fig.tight_layout()
  fig.savefig(path, dpi=110)
  plt.close(fig)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  results = normal_form()
  report(results)
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  with open(os.path.join(_OUTPUT_DIR.value, "p2sro_normal_form.json"), "w",
            encoding="utf-8") as f:
    json.dump(results, f)
  path = os.path.join(_OUTPUT_DIR.value, "p2sro_normal_form.png")
  plot(results, path)
  print(f"wrote {path} and p2sro_normal_form.json")


if __name__ == "__main__":
  app.run(main)
