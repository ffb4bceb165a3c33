"""Multi-seed runs of the cooperative-game experiments, shared by the CAPI
and baselines examples and the CAPI benchmark.

CAPI seeds (each writing its metrics, a summary and a plot, with the game's
published reference values drawn), and tables of the tabular baselines over
games and algorithms (a job per game and algorithm), run as tasks on an
executor (`utils/executors.py`). Importing it registers the PuB-MDPs built
from a game's rules (`pub_mdp_rules`: Trade Comm's), in the workers too.
"""

import dataclasses
import json
import os
import re
from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from open_spiel_ext.algorithms import coop_baselines
from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.algorithms.capi import capi
from open_spiel_ext.algorithms.capi import config as capi_config
from open_spiel_ext.experiments import pub_mdp_rules  # pylint: disable=unused-import
from open_spiel_ext.experiments import references
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import executors
from open_spiel_ext.utils import reporting
import pyspiel


# Values are float32 sums (about 1e-6 off on Trade Comm's 144 deals); a
# run has reached its target when within this (relative) distance of it.
_TOLERANCE = 1e-4


def run_seed(game: str, config: capi_config.Config, target: float,
             output_dir: str, stop_when_solved: bool = False
            ) -> dict[str, Any]:
  """One CAPI run; prints progress, writes its metrics, returns its summary.

  The run checkpoints at each evaluation (checkpoint_seed<S>.pkl) and
  resumes from there when run again with the same settings. With
  `stop_when_solved` the run ends at the first evaluation reaching `target`,
  so its seconds are the time to solve.
  """
  mdp = pub_mdp.build(pyspiel.load_game(game))
  checkpoint = checkpoint_path(output_dir, config.seed)
  if os.path.exists(checkpoint):
    print(f"seed {config.seed}: resuming from {checkpoint}", flush=True)
  metrics = reporting.JsonLinesWriter(
      os.path.join(output_dir, f"metrics_seed{config.seed}.jsonl"))
  solved_at: Optional[int] = None
  solved_seconds: Optional[float] = None
  best, entry = -np.inf, None
  for entry in capi.train(mdp, config, checkpoint):
    metrics.write(reporting.as_record(entry))
    best = max(best, entry.search_value, entry.greedy_value)
    if solved_at is None and best >= target - _TOLERANCE * max(1, abs(target)):
      solved_at, solved_seconds = entry.episode, entry.seconds
    parts = " ".join(f"{name} {seconds:.0f}s" for name, seconds in
                     entry.seconds_by_part.items())
    print(f"seed {config.seed} episode {entry.episode}: search "
          f"{entry.search_value:.4f} greedy {entry.greedy_value:.4f} "
          f"episode return {entry.episode_return:.4f} root q* "
          f"{entry.root_q:.4f} value loss {entry.value_loss:.4f} | "
          f"{entry.distinct_next_beliefs} next beliefs, "
          f"{entry.seconds:.0f}s ({parts})", flush=True)
    if stop_when_solved and solved_at is not None:
      break
  metrics.close()
  return {"seed": config.seed, "best_value": float(best),
          "solved_at_episode": solved_at, "solved_at_seconds": solved_seconds,
          "seconds": entry.seconds,
          "episodes": entry.episode}


def known_values(game: str) -> dict[str, float]:
  """Published values worth drawing beside a game's runs."""
  if game != references.TINY_BRIDGE:
    return {}
  no_coordination = references.TINY_BRIDGE_NO_COORDINATION
  return {f"best without coordination {no_coordination:g}": no_coordination}


def reference_lines(pending: "PendingSeeds") -> dict[str, float]:
  """The values drawn across a plot of the seeds: their target and the
  game's known values ({label: value})."""
  return {f"target {pending.target:g}": pending.target,
          **known_values(pending.game)}


def value_floor(game: str) -> Optional[float]:
  """Where a plot of a game's runs cuts its value axis, if anywhere: on Tiny
  Bridge the runs pass 18 within the first hour and then differ by tenths
  near the published values, which a full axis (from about -10) flattens."""
  return 18.0 if game == references.TINY_BRIDGE else None


def checkpoint_path(output_dir: str, seed: int) -> str:
  return os.path.join(output_dir, f"checkpoint_seed{seed}.pkl")


def check_distinct(seeds: Sequence[int]) -> None:
  """ValueError if a seed comes twice: each seed is one run, the only writer
  of its checkpoint and metrics."""
  repeated = sorted({seed for seed in seeds if list(seeds).count(seed) > 1})
  if repeated:
    raise ValueError(f"seed {repeated[0]} is given more than once; each seed "
                     "is one run with its own checkpoint")


def check_resumable(output_dir: str, game: str, seeds: Sequence[int],
                    make_config) -> None:
  """ValueError, before any run starts, if a seed's checkpoint in
  output_dir was made for another game or with other settings."""
  mdp = pub_mdp.build(pyspiel.load_game(game))
  for seed in seeds:
    path = checkpoint_path(output_dir, seed)
    if os.path.exists(path):
      checkpoints.restore(path, capi.run_record(mdp, make_config(seed)))


def read_seed_metrics(output_dir: str, seed: int) -> list[dict[str, Any]]:
  """A CAPI seed's evaluations, as `run_seed` wrote them."""
  return reporting.read_json_lines(
      os.path.join(output_dir, f"metrics_seed{seed}.jsonl"))


def best_so_far(records: Sequence[dict[str, Any]]) -> np.ndarray:
  """The best value (search or greedy) found by each evaluation."""
  return np.maximum.accumulate([max(r["search_value"], r["greedy_value"])
                                for r in records])


def draw_lines(axis: Any, lines: dict[str, float]) -> None:
  """Horizontal black lines across `axis`, one style each ({label: value})."""
  for number, (label, value) in enumerate(lines.items()):
    axis.axhline(value, color="black", linewidth=1,
                 linestyle=("--", ":", "-.")[number % 3], label=label)


def plot_capi(output_dir: str, seeds: Sequence[int], title: str,
              lines: Optional[dict[str, float]] = None,
              floor: Optional[float] = None) -> None:
  """The best value found so far (solid; search or greedy) and the search
  value (faint) against episodes and hours, a colour per seed, with
  horizontal `lines` ({label: value}); the value axis starts at `floor`
  if given."""
  plt = reporting.plt
  fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
  for index, seed in enumerate(seeds):
    records = read_seed_metrics(output_dir, seed)
    if not records:
      continue
    best = best_so_far(records)
    for axis, x in zip(axes, ([r["episode"] for r in records],
                              [r["seconds"] / 3600 for r in records])):
      axis.plot(x, best, color=f"C{index}", label=f"seed {seed}")
      axis.plot(x, [r["search_value"] for r in records], color=f"C{index}",
                alpha=0.25, linewidth=0.8)
  for axis, label in zip(axes, ("episodes", "hours")):
    draw_lines(axis, lines or {})
    axis.set_xlabel(label)
    axis.grid(alpha=0.3)
  if floor is not None:
    axes[0].set_ylim(bottom=floor)
  axes[0].set_ylabel("best expected return so far (faint: search value)")
  axes[0].legend(fontsize="small")
  fig.suptitle(title)
  reporting.save_figure(fig, os.path.join(output_dir, "capi.png"))


class PendingSeeds(NamedTuple):
  """CAPI seeds submitted to an executor, not yet collected."""
  game: str
  seeds: Sequence[int]
  target: float
  config: dict[str, Any]
  output_dir: str
  stop_when_solved: bool
  futures: list[executors.Future]


def default_target(game: str) -> float:
  """What a CAPI run on `game` must reach to count as solved, unless told:
  the best value a joint policy is known to reach (`references`), else the
  game's maximum payoff."""
  known = references.best_known_value(game)
  return pyspiel.load_game(game).max_utility() if known is None else known


def submit_seeds(game: str, seeds: Sequence[int],
                 executor: executors.Executor, make_config,
                 target: Optional[float], output_dir: str,
                 stop_when_solved: bool = False) -> PendingSeeds:
  """Submits a CAPI run per seed to `executor`; `collect_seeds` waits for
  them (so other tasks can be submitted to the same executor meanwhile).
  ValueError for a seed given twice (`check_distinct`)."""
  check_distinct(seeds)
  os.makedirs(output_dir, exist_ok=True)
  if target is None:
    target = default_target(game)
  config = dataclasses.asdict(make_config(seeds[0]))
  config.pop("seed")
  futures = [executor.submit(run_seed, game, make_config(seed), target,
                             output_dir, stop_when_solved) for seed in seeds]
  return PendingSeeds(game, seeds, target, config, output_dir,
                      stop_when_solved, futures)


def collect_seeds(pending: PendingSeeds) -> list[dict[str, Any]]:
  """Waits for the seeds; writes summary.json as each run ends (the runs in
  seed order) and then the plot (the target and the game's known values
  drawn). Returns the runs' summaries in seed order."""
  summaries = [None] * len(pending.seeds)
  for future in executors.as_completed(pending.futures):
    summaries[pending.futures.index(future)] = future.result()
    with open(os.path.join(pending.output_dir, "summary.json"), "w",
              encoding="utf-8") as f:
      json.dump({"game": pending.game, "target": pending.target,
                 "config": pending.config,
                 "stop_when_solved": pending.stop_when_solved,
                 "runs": [s for s in summaries if s is not None]}, f,
                indent=1)
  plot_capi(pending.output_dir, pending.seeds, f"CAPI on {pending.game}",
            reference_lines(pending), value_floor(pending.game))
  return summaries


def run_seeds(game: str, seeds: Sequence[int], executor: executors.Executor,
              make_config, target: Optional[float], output_dir: str,
              stop_when_solved: bool = False) -> list[dict[str, Any]]:
  """`submit_seeds`, then `collect_seeds`."""
  return collect_seeds(submit_seeds(game, seeds, executor, make_config,
                                    target, output_dir, stop_when_solved))


def format_capi_table(summaries: Sequence[dict[str, Any]]) -> str:
  """Markdown: per seed, episodes, best value, the first evaluation that
  reached the target (if one did) and hours."""
  lines = ["| seed | episodes | best value | target first reached at | hours |",
           "|---|---|---|---|---|"]
  for run in summaries:
    reached = run["solved_at_episode"]
    lines.append(
        f"| {run['seed']} | {run['episodes']:,} | {run['best_value']:.4f} | "
        f"{'–' if reached is None else f'episode {reached:,}'} | "
        f"{run['seconds'] / 3600:.2f} |")
  return "\n".join(lines)


def optimal_value(mdp: pub_mdp.PubMdp) -> float:
  """The best joint policy's value, by dynamic programming over every belief.
  """
  return float(pub_mdp.belief_graph(mdp).optimal_values()[0])


def run_baselines(game: str, config: coop_baselines.Config,
                  runs: int, seed: int, optimum: float,
                  result_path: Optional[str] = None) -> dict[str, Any]:
  """One algorithm's runs on one game; prints each evaluation, returns its
  metrics records, its curve (episode, fraction optimal) and final values.
  With `result_path`, a result saved there by the same task is returned
  (a result of other settings is refused) and a new one is saved there."""
  task = {"game": game, "runs": runs, "seed": seed, "optimum": optimum,
          **dataclasses.asdict(config)}
  if result_path is not None and os.path.exists(result_path):
    return checkpoints.restore(result_path, task).extra
  result = _train_baselines(game, config, runs, seed, optimum)
  if result_path is not None:
    checkpoints.save(result_path, None, task, extra=result)
  return result


def _train_baselines(game: str, config: coop_baselines.Config,
                     runs: int, seed: int, optimum: float) -> dict[str, Any]:
  mdp = pub_mdp.build(pyspiel.load_game(game))
  records, curve = [], []
  for entry in coop_baselines.train(mdp, config, runs, seed):
    solved = int(np.sum(entry.values >= optimum - 1e-6))
    curve.append((entry.episode, solved / runs))
    records.append({"game": game, "algorithm": config.algorithm,
                    "episode": entry.episode,
                    "values": entry.values.tolist(), "solved": solved})
    print(f"{game} {config.algorithm} episode {entry.episode}: mean "
          f"greedy value {entry.values.mean():.4f} (optimum "
          f"{optimum:.4f}), {solved}/{runs} runs optimal", flush=True)
  return {"records": records, "curve": curve, "solved": solved,
          "mean_value": float(entry.values.mean())}


def _task_path(output_dir: str, game: str, algorithm: str) -> str:
  """Where run_table keeps one task's result (a file name of the game's
  string with its parameters)."""
  name = re.sub(r"[^\w.-]+", "_", f"{game}_{algorithm}")
  return os.path.join(output_dir, "tasks", f"{name}.pkl")


class PendingTable(NamedTuple):
  """Baseline tasks submitted to an executor, not yet collected."""
  runs: int
  optima: dict[str, float]
  configs: Sequence[coop_baselines.Config]
  output_dir: str
  jobs: list[tuple[str, coop_baselines.Config]]
  futures: list[executors.Future]


def submit_table(games: Sequence[str],
                 configs: Sequence[coop_baselines.Config], runs: int,
                 seed: int, executor: executors.Executor, output_dir: str,
                 targets: Optional[dict[str, float]] = None) -> PendingTable:
  """Submits every algorithm on every game, a task each; `collect_table`
  waits for them. Each task's result is kept under output_dir/tasks/, so a
  rerun of an interrupted table runs only the tasks that had not ended.

  A run counts as optimal when its greedy value reaches the game's target:
  `targets[game]` if given, else the exact optimum (small games only).
  """
  os.makedirs(output_dir, exist_ok=True)
  optima = {game: (targets or {}).get(game) for game in games}
  for game, optimum in optima.items():
    if optimum is None:
      optima[game] = optimal_value(pub_mdp.build(pyspiel.load_game(game)))
  jobs = [(game, config) for game in games for config in configs]
  futures = [executor.submit(run_baselines, game, config, runs, seed,
                             optima[game],
                             _task_path(output_dir, game, config.algorithm))
             for game, config in jobs]
  return PendingTable(runs, optima, configs, output_dir, jobs, futures)


def collect_table(pending: PendingTable) -> dict[str, Any]:
  """Waits for the tasks; returns and writes the table (metrics.jsonl takes
  each task's records as it ends, then table.json and baselines.png)."""
  metrics = reporting.JsonLinesWriter(os.path.join(pending.output_dir,
                                                   "metrics.jsonl"))
  for future in executors.as_completed(pending.futures):
    for record in future.result()["records"]:
      metrics.write(record)
  metrics.close()
  table = {"runs": pending.runs, "optimal": pending.optima, "solved": {},
           "mean_value": {},
           "config": [dataclasses.asdict(c) for c in pending.configs]}
  curves = {}
  for (game, config), result in zip(pending.jobs,
                                    executors.results(pending.futures)):
    table["solved"].setdefault(config.algorithm, {})[game] = result["solved"]
    table["mean_value"].setdefault(config.algorithm, {})[game] = result[
        "mean_value"]
    curves[(game, config.algorithm)] = result["curve"]
  with open(os.path.join(pending.output_dir, "table.json"), "w",
            encoding="utf-8") as f:
    json.dump(table, f, indent=1)
  plot_baselines(curves, list(pending.optima),
                 [c.algorithm for c in pending.configs],
                 os.path.join(pending.output_dir, "baselines.png"))
  return table


def run_table(games: Sequence[str],
              configs: Sequence[coop_baselines.Config], runs: int, seed: int,
              executor: executors.Executor, output_dir: str,
              targets: Optional[dict[str, float]] = None) -> dict[str, Any]:
  """`submit_table`, then `collect_table`."""
  return collect_table(submit_table(games, configs, runs, seed, executor,
                                    output_dir, targets))


def plot_baselines(curves, games, algorithms, path: str) -> None:
  """Fraction of optimal runs against episodes, a panel per game."""
  plt = reporting.plt
  fig, axes = plt.subplots(1, len(games), figsize=(3.2 * len(games), 3.4),
                           squeeze=False, sharey=True)
  for axis, game in zip(axes[0], games):
    for algorithm in algorithms:
      episodes, solved = zip(*curves[(game, algorithm)])
      axis.plot(episodes, solved, label=algorithm)
    axis.set_title(game, fontsize="small")
    axis.set_xlabel("episodes")
    axis.grid(alpha=0.3)
  axes[0][0].set_ylabel("fraction of runs optimal")
  axes[0][-1].legend(fontsize="small")
  reporting.save_figure(fig, path)


def format_table(table: dict[str, Any]) -> str:
  """Markdown: runs reaching the optimum per algorithm and game."""
  games = list(table["optimal"])
  lines = ["| algorithm | " + " | ".join(g.replace("tiny_hanabi_", "")
                                          .upper() for g in games) + " |",
           "|---" * (len(games) + 1) + "|"]
  for algorithm, solved in table["solved"].items():
    lines.append(f"| {algorithm} | " + " | ".join(
        f"{solved[g]}/{table['runs']}" for g in games) + " |")
  return "\n".join(lines)
