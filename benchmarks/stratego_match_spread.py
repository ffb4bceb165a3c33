"""Do Stratego matches of one key agree more than independent games would?

Issue 71: five 100-game batches of the shipped population against the
probabilistic bot, each with its own key, scored 0.63, 0.40, 0.48, 0.41 and
0.43, a spread about twice the binomial one, while blocks of one 600-game
batch spread as binomial games do. This plays --keys batches of --games
games, each with its own key (`arena.play`, as `stratego_eval` plays a
match), and one batch of keys × games games under one key, cut into --keys
blocks, and compares each spread with what independent games give:

- the dispersion statistic D = Σ (rate_i − mean)² / (s² / games), with s²
  the per-game variance of the score (a draw is half a win), which is
  χ² with keys − 1 degrees of freedom if games are independent (its p-value
  says how unlikely the spread is then);
- how many of the batches' own Wilson 95% intervals hold the mean of all
  the batches (about 95% of them should);
- the interval across batches (their mean ± t · SD / √keys), which holds
  whatever a key shares.

Each batch is recorded as it ends (batches.jsonl), so the same command
resumes. Prints the table and writes stratego_match_spread.png.

  python benchmarks/stratego_match_spread.py --keys=12 --games=100 \
      --output_dir=runs/stratego_match_spread
"""

import os
from typing import Sequence

from absl import app
from absl import flags
import jax
import numpy as np
from scipy import stats

import open_spiel_ext
from open_spiel_ext.algorithms.stratego import agents
from open_spiel_ext.algorithms.stratego import arena
from open_spiel_ext.games.stratego import env as env_lib
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

_ROW = flags.DEFINE_string("row", agents.P2SRO, "The opponent whose score "
                           "rate is measured (as stratego_eval's --bots).")
_COLUMN = flags.DEFINE_string("column", "probabilistic", "What it plays.")
_KEYS = flags.DEFINE_integer("keys", 12, "Batches, each with its own key.",
                             lower_bound=2)
_GAMES = flags.DEFINE_integer("games", 100, "Games a batch (seats "
                              "alternated).", lower_bound=2)
_PLY_LIMIT = flags.DEFINE_integer("ply_limit", 1000, "Plies until a draw.",
                                  lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the keys.", lower_bound=0)
_OUTPUT_DIR = flags.DEFINE_string("output_dir",
                                  "benchmark_results/stratego_match_spread",
                                  "Where batches.jsonl and the PNG go.")

BATCHES_FILE = "batches.jsonl"
POOLED = "one key"  # The pooled batch's label in the records.


def _scores(results: Sequence[int]) -> np.ndarray:
  """+1/0/−1 results as scores 1/0.5/0."""
  return (np.asarray(results, np.float64) + 1) / 2


def spread(rates: np.ndarray, variance: float, games: int) -> dict[str, float]:
  """The dispersion of batch `rates` against independent games of per-game
  `variance`: D, its χ² p-value, SD across batches, the binomial SD."""
  keys = len(rates)
  binomial_sd = np.sqrt(variance / games)
  dispersion = float(np.sum((rates - rates.mean())**2) / binomial_sd**2)
  return {"mean": float(rates.mean()), "sd": float(rates.std(ddof=1)),
          "binomial_sd": float(binomial_sd), "dispersion": dispersion,
          "p_value": float(stats.chi2.sf(dispersion, keys - 1))}


def across_batches(rates: np.ndarray) -> tuple[float, float]:
  """The 95% interval of the mean rate from the batches' spread alone."""
  half = (stats.t.ppf(0.975, len(rates) - 1) * rates.std(ddof=1) /
          np.sqrt(len(rates)))
  return float(rates.mean() - half), float(rates.mean() + half)


def _play_batches(env, row, column) -> list[dict]:
  """The batches, resumed from batches.jsonl: one per key, then the pooled
  one."""
  run = {"row": _ROW.value, "column": _COLUMN.value, "keys": _KEYS.value,
         "games": _GAMES.value, "ply_limit": _PLY_LIMIT.value,
         "seed": _SEED.value}
  with cli.user_input("output_dir"):
    done = reporting.finished_records(_OUTPUT_DIR.value, run, BATCHES_FILE)
  if done:
    print(f"resuming: {len(done)} batches already played", flush=True)
  path = os.path.join(_OUTPUT_DIR.value, BATCHES_FILE)
  reporting.keep_json_lines(path, lambda record: True)
  writer = reporting.JsonLinesWriter(path, append=True)
  root = jax.random.PRNGKey(_SEED.value)
  for index in range(len(done), _KEYS.value + 1):
    pooled = index == _KEYS.value
    games = _GAMES.value * (_KEYS.value if pooled else 1)
    results = arena.play(env, row, column, games,
                         jax.random.fold_in(root, index))
    record = {"batch": POOLED if pooled else index,
              "results": results.astype(int).tolist()}
    writer.write(record)
    done.append(record)
    print(f"batch {record['batch']}: {games} games, score rate "
          f"{arena.win_rate(results)}", flush=True)
  writer.close()
  return done


def _report(records: list[dict]) -> None:
  games = _GAMES.value
  batches = [_scores(r["results"]) for r in records if r["batch"] != POOLED]
  pooled, = [_scores(r["results"]) for r in records if r["batch"] == POOLED]
  blocks = pooled.reshape(_KEYS.value, games)
  rows = []
  for name, parts in (("batches, a key each", batches),
                      ("blocks of one key's batch", list(blocks))):
    rates = np.array([part.mean() for part in parts])
    variance = float(np.var(np.concatenate(parts)))
    summary = spread(rates, variance, games)
    covering = sum(
        low <= summary["mean"] <= high for low, high in
        (arena.win_rate(part * 2 - 1)[1:3] for part in parts))
    low, high = across_batches(rates)
    rows.append((name, rates, summary, covering, low, high))
  print(f"\n{_ROW.value} vs {_COLUMN.value}: {_KEYS.value} × {games} games")
  print("| | rates | mean | SD across | binomial SD | D (χ², "
        f"{_KEYS.value - 1} df) | p | Wilson intervals holding the mean | "
        "95% across batches |")
  print("|---|---|---|---|---|---|---|---|---|")
  for name, rates, summary, covering, low, high in rows:
    print(f"| {name} | {', '.join(f'{r:.2f}' for r in rates)} | "
          f"{summary['mean']:.3f} | {summary['sd']:.3f} | "
          f"{summary['binomial_sd']:.3f} | {summary['dispersion']:.1f} | "
          f"{summary['p_value']:.3g} | {covering}/{len(rates)} | "
          f"[{low:.3f}, {high:.3f}] |")
  _plot(rows, games)


def _plot(rows, games: int) -> None:
  import matplotlib  # pylint: disable=g-import-not-at-top
  matplotlib.use("Agg")
  from matplotlib import pyplot  # pylint: disable=g-import-not-at-top
  fig, axes = pyplot.subplots(1, len(rows), figsize=(11, 4), sharey=True)
  for axis, (name, rates, summary, _, low, high) in zip(axes, rows):
    half = 1.96 * summary["binomial_sd"]
    axis.errorbar(np.arange(len(rates)), rates, yerr=half, fmt="o",
                  capsize=3, label=f"each: ± 1.96 binomial SD ({games} games)")
    axis.axhline(summary["mean"], color="k", lw=1, label="mean")
    axis.axhspan(low, high, color="tab:orange", alpha=0.3,
                 label="95% interval across batches")
    axis.set_title(f"{name}\nD = {summary['dispersion']:.1f}, "
                   f"p = {summary['p_value']:.2g}")
    axis.set_xlabel("batch")
  axes[0].set_ylabel(f"{_ROW.value} score rate vs {_COLUMN.value}")
  axes[0].legend(fontsize=8)
  reporting.save_figure(fig, os.path.join(_OUTPUT_DIR.value,
                                          "stratego_match_spread.png"))


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  with cli.user_input("row"):
    row = agents.opponent(_ROW.value)
  with cli.user_input("column"):
    column = agents.opponent(_COLUMN.value)
  with cli.user_input("ply_limit"):
    game = open_spiel_ext.load_game(
        f"barrage_stratego(ply_limit={_PLY_LIMIT.value})")
  env = env_lib.StrategoEnv(game, relative_actions=True)
  _report(_play_batches(env, row, column))
  print(f"wrote {BATCHES_FILE} and stratego_match_spread.png to "
        f"{_OUTPUT_DIR.value}")


if __name__ == "__main__":
  cli.run(main)
