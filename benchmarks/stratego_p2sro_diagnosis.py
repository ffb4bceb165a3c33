"""Why a P2SRO population's meta-Nash does not hold against the scripted
bots on Barrage Stratego: measurements of a run (`stratego_p2sro`'s
population/ folder, --run_dir), each a part (--parts):

- plateau: from the run's log, each fixed policy's rounds as a learner, its
  round-on-round return gains against their sampling error, and how many
  rounds it spent at the lowest level before the plateau rule fixed it: a
  rule that fires on gains within the noise fixes policies at random, still
  improving or not;
- hold: a fork of the run (--output_dir/hold; the run itself is left alone)
  whose plateau rule never fires, for --rounds rounds: does the lowest
  learner's return keep rising after the round the rule would have fixed it
  (marked)? The same command resumes an interrupted fork (its own
  checkpoint, and the round it forked at in hold/forked.json, written once
  its first round is saved);
- precision: the payoff table redrawn within its entries' standard errors
  (--samples tables), solved by the run's meta-solver, for each population
  size: how far the meta-Nash moves, and how exploitable the meta-Nash of
  the measured table is in the redrawn ones: whether the entries are
  precise enough for the meta-solver;
- members: each policy alone against every bot (--games a bot, seats
  alternated) and against the policy before it (with warm starts, its
  learner began as a copy of that policy's learner): whether warm starts
  copy the newest policy's weaknesses (consecutive policies' scores
  against the bots differ less than distant ones'). Each member's scores
  are kept in --output_dir/members.jsonl as they end: the same command
  resumes, and on the grown population of the same run plays only the new
  members.

Prints a table per part and writes stratego_p2sro_diagnosis.json and a PNG.

  python benchmarks/stratego_p2sro_diagnosis.py \\
      --run_dir=run_state/stratego_p2sro/population \\
      --parts=plateau,precision,members --output_dir=benchmark_results
"""

import dataclasses
import json
import math
import os
import shutil
from typing import Any, Sequence

from absl import app
from absl import flags
import jax
import numpy as np
from scipy import stats

import open_spiel_ext
from open_spiel_ext.algorithms import meta_solvers
from open_spiel_ext.algorithms import normal_form_psro
from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.rl import networks
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.stratego import arena
from open_spiel_ext.algorithms.stratego import bots
from open_spiel_ext.games.stratego import env as env_lib
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

PARTS = ("plateau", "hold", "precision", "members")
MEMBERS_FILE = "members.jsonl"
# A rule that never fires: no learner trains this many steps.
NEVER = 10**12
_PARTS = cli.define_choice_list("parts", PARTS, ["plateau", "precision"],
                                "What to measure.")
_RUN_DIR = flags.DEFINE_string("run_dir", None,
                               "A stratego_p2sro run's population/ folder.")
_ROUNDS = flags.DEFINE_integer("rounds", 8, "hold: rounds of the fork.",
                               lower_bound=1)
_SAMPLES = flags.DEFINE_integer("samples", 200,
                                "precision: redrawn tables.", lower_bound=1)
_GAMES = flags.DEFINE_integer("games", 200,
                              "members: games against each bot.",
                              lower_bound=2)
_BOTS = flags.DEFINE_list("bots", list(bots.BOTS), "members: the bots.")
_SEED = flags.DEFINE_integer("seed", 0, "Of the redrawn tables and games.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the fork, JSON and PNG go.")
cli.define_executor_flags(workers=2)


def round_error(mean_return: float, episodes: int) -> float:
  """A round's mean return's standard error, at most: outcomes in [-1, 1]
  (Stratego's; the learners' shaping sums to 0 over a game) of mean m vary
  by at most 1 − m²."""
  return float(np.sqrt(max(1.0 - mean_return**2, 0.0) / max(episodes, 1)))


def plateau(log: list[p2sro.LogEntry],
            config: p2sro.Config) -> list[dict[str, Any]]:
  """Each fixed policy's last gain, its error, and its rounds at level 0."""
  rows = []
  histories = [h for h in p2sro.learner_histories(log, config)
               if h.fixed_at is not None]
  for policy, history in enumerate(histories, start=1):
    returns = np.array(history.mean_returns)
    errors = np.array(_errors(history, log))
    gain_error = float(np.hypot(errors[-1], errors[-2]))
    gain = float(returns[-1] - returns[-2])
    # Rounds won or lost in every game have no error: the rule reads them
    # exactly.
    threshold_in_errors = (config.plateau_gain / gain_error if gain_error
                           else np.inf)
    rows.append({
        "policy": policy, "fixed_at": history.fixed_at,
        "rounds": len(history.rounds),
        "rounds_at_level_0": history.levels.count(0),
        "mean_returns": returns.tolist(), "errors": errors.tolist(),
        "rounds_list": history.rounds, "last_gain": gain,
        "last_gain_error": gain_error,
        # The chance a round of no true gain reads as a plateau, and of one
        # that truly gains twice the threshold.
        "fix_chance_at_no_gain": float(stats.norm.cdf(threshold_in_errors)),
        "fix_chance_at_twice_the_gain": float(
            stats.norm.cdf(-threshold_in_errors))})
  return rows


def _errors(history: p2sro.LearnerHistory,
            log: list[p2sro.LogEntry]) -> list[float]:
  """The standard errors of a learner's rounds' mean returns (its games of
  a round as logged, or in older logs the round's games shared evenly)."""
  errors = []
  for number, mean, episodes in zip(history.rounds, history.mean_returns,
                                    history.episodes):
    if episodes is None:
      entry = log[number - 1]
      before = log[number - 2].episodes if number > 1 else 0
      episodes = (entry.episodes - before) // len(entry.mean_returns)
    errors.append(round_error(mean, episodes))
  return errors


def hold(run: p2sro.SavedRun, run_dir: str) -> dict[str, Any]:
  """--rounds rounds of a fork whose rule never fixes: the lowest
  learner's returns, and the round the run's rule would have fixed it."""
  directory = os.path.join(_OUTPUT_DIR.value, "hold")
  forked_path = os.path.join(directory, "forked.json")
  if os.path.exists(forked_path):
    with open(forked_path, encoding="utf-8") as f:
      forked = json.load(f)
    if forked["run_dir"] != os.path.abspath(run_dir):
      raise ValueError(f"{directory} holds a fork of {forked['run_dir']}, "
                       f"not of --run_dir={run_dir}: give another "
                       "--output_dir")
  else:  # A new fork (none or half made).
    shutil.rmtree(directory, ignore_errors=True)
  config = dataclasses.replace(run.config, min_steps=NEVER)
  pipeline = p2sro.Pipeline(open_spiel_ext.load_game(run.game),
                            run.learner_config, config, directory,
                            cli.executor_from_flags, evaluator=None,
                            engine_options=run.engine_options,
                            fork_from=run_dir)
  with pipeline:
    if not os.path.exists(forked_path):
      forked = {"run_dir": os.path.abspath(run_dir),
                "round": len(pipeline.log)}
    start = forked["round"]
    if start + _ROUNDS.value < len(pipeline.log):
      raise ValueError(f"--rounds={_ROUNDS.value}: the fork in {directory} "
                       f"has played {len(pipeline.log) - start} already")
    for entry in pipeline.run(max_rounds=start + _ROUNDS.value):
      print(f"hold: round {entry.round}, lowest learner's return "
            f"{entry.mean_returns[0]:+.3f}", flush=True)
      if not os.path.exists(forked_path):  # The fork's first round saved.
        with open(forked_path, "w", encoding="utf-8") as f:
          json.dump(forked, f)
  history = p2sro.learner_histories(pipeline.log, config)
  lowest = next(h for h in history if h.rounds and h.rounds[-1] ==
                pipeline.log[-1].round and h.levels[-1] == 0)
  returns = lowest.mean_returns
  steps = [run.config.chunk_steps * (i + 1) for i in range(len(returns))]
  would_fix = next(
      (r for i, r in enumerate(lowest.rounds)
       if i and r > start and lowest.levels[i] == 0 and
       steps[i] >= run.config.min_steps and
       returns[i] - returns[i - 1] < run.config.plateau_gain), None)
  return {"rounds": lowest.rounds, "mean_returns": returns,
          "errors": _errors(lowest, pipeline.log),
          "fork_starts_after": start, "rule_would_fix_at": would_fix}


def precision(payoffs: np.ndarray, errors: np.ndarray,
              config: p2sro.Config) -> list[dict[str, Any]]:
  """For each population size: the meta-Nash's spread over redrawn tables
  and the measured meta-Nash's exploitability in them."""
  rows = []
  for size in range(2, len(payoffs) + 1):
    table = payoffs[:size, :size]
    measured = config.solve(table)
    redrawn = meta_solvers.redrawn_tables(
        table, errors[:size, :size], _SAMPLES.value, seed=_SEED.value + size)
    moved = [0.5 * np.abs(config.solve(t) - measured).sum() for t in redrawn]
    exploited = [normal_form_psro.exploitability(t, measured)
                 for t in redrawn]
    rows.append({
        "population": size, "meta_nash": measured.tolist(),
        "mean_entry_error": float(errors[:size, :size][
            np.triu_indices(size, 1)].mean()),
        "total_variation": float(np.mean(moved)),
        "total_variation_95": float(np.quantile(moved, 0.95)),
        "exploitability": float(np.mean(exploited)),
        "exploitability_95": float(np.quantile(exploited, 0.95))})
  return rows


def members(run: p2sro.SavedRun, state: dict[str, Any]) -> dict[str, Any]:
  """Each member alone against every bot; how far apart consecutive
  members' scores are, against distant members'.

  Each member's scores go to --output_dir/members.jsonl as they end, named
  by the member's fingerprint, so that the same command, interrupted or
  run again on the grown population of the same run, plays only the
  members not yet measured (refusing records of other members)."""
  game = open_spiel_ext.load_game(run.game)
  learner = run.learner_config
  policy = networks.build_policy(learner.network, learner.hidden_sizes,
                                 game.num_distinct_actions(),
                                 learner.shared_trunk)
  env = env_lib.StrategoEnv(game, relative_actions=True)
  settings = {"part": "members", "bots": list(_BOTS.value),
              "games": _GAMES.value, "seed": _SEED.value}
  measured = {record["member"]: record for record in
              reporting.finished_records(_OUTPUT_DIR.value, settings,
                                         MEMBERS_FILE)}
  path = os.path.join(_OUTPUT_DIR.value, MEMBERS_FILE)
  # Drops a line an interruption cut short.
  reporting.keep_json_lines(path, lambda record: True)
  records = reporting.JsonLinesWriter(path, append=True)
  scores = []
  for index, params in enumerate(state["members"]):
    alone = opponents.network(
        policy.apply, jax.tree.map(lambda x: np.asarray(x)[None], params),
        [1.0])
    digest = opponents.fingerprint(alone)
    if index in measured:
      if measured[index]["fingerprint"] != digest:
        raise ValueError(
            f"{path} measured another policy {index} (fingerprint "
            f"{measured[index]['fingerprint']}, here {digest}): give "
            "another --output_dir for another run")
      scores.append(measured[index]["scores"])
      continue
    row = []
    for number, name in enumerate(_BOTS.value):
      rate = arena.win_rate(arena.play(
          env, alone, bots.bot(name), _GAMES.value,
          jax.random.PRNGKey(_SEED.value * 10_000 + 100 * index + number)))
      row.append(float(rate.rate))
    records.write({"member": index, "fingerprint": digest, "scores": row})
    scores.append(row)
    print(f"members: policy {index}: " + ", ".join(
        f"{name} {score:.3f}" for name, score in zip(_BOTS.value, row)),
          flush=True)
  records.close()
  scores = np.array(scores)
  apart = lambda i, j: float(np.abs(scores[i] - scores[j]).mean())
  pairs = [(i, j) for i in range(1, len(scores)) for j in range(1, i)]
  return {
      "bots": list(_BOTS.value), "scores": scores.tolist(),
      "payoff_against_previous": [float(state["payoffs"][k, k - 1])
                                  for k in range(1, len(scores))],
      "consecutive_difference": _mean_or_none(
          [apart(i, j) for i, j in pairs if i - j == 1]),
      "distant_difference": _mean_or_none(
          [apart(i, j) for i, j in pairs if i - j >= 3])}


def _mean_or_none(values: list[float]) -> Any:
  return float(np.mean(values)) if values else None


def plot(results: dict[str, Any], path: str) -> None:
  panels = [name for name in PARTS if name in results]
  fig, axes = reporting.plt.subplots(1, len(panels),
                                     figsize=(5.5 * len(panels), 4.2),
                                     squeeze=False)
  for axis, name in zip(axes[0], panels):
    if name == "plateau":
      for row in results["plateau"]:
        line = axis.errorbar(row["rounds_list"], row["mean_returns"],
                             row["errors"], linewidth=1)
        axis.plot(row["rounds_list"][-1], row["mean_returns"][-1], "x",
                  color=line[0].get_color())
      axis.set_xlabel("round")
      axis.set_ylabel("learner's mean return (x: fixed)")
      axis.set_title("Each fixed policy's rounds as a learner")
    elif name == "hold":
      cell = results["hold"]
      axis.errorbar(cell["rounds"], cell["mean_returns"], cell["errors"],
                    marker="o")
      axis.axvline(cell["fork_starts_after"] + 0.5, color="grey",
                   linestyle=":", label="fork starts")
      if cell["rule_would_fix_at"] is not None:
        axis.axvline(cell["rule_would_fix_at"], color="C3",
                     label="the rule would fix it")
      axis.set_xlabel("round")
      axis.set_ylabel("lowest learner's mean return")
      axis.set_title("The plateau rule held off")
      axis.legend()
    elif name == "precision":
      rows = results["precision"]
      sizes = [r["population"] for r in rows]
      axis.plot(sizes, [r["total_variation"] for r in rows], marker="o",
                label="meta-Nash moved (total variation)")
      axis.plot(sizes, [r["exploitability"] for r in rows], marker="s",
                label="measured meta-Nash's exploitability")
      axis.set_xlabel("population")
      axis.set_title(f"Tables redrawn within their errors "
                     f"({_SAMPLES.value})")
      axis.legend()
    else:
      cell = results["members"]
      scores = np.array(cell["scores"])
      for column, bot in enumerate(cell["bots"]):
        axis.plot(scores[:, column], marker="o", label=f"vs {bot}")
      axis.axhline(0.65, color="gray", linestyle="--",
                   label="target against a scripted bot")
      axis.set_xticks(range(0, len(scores), math.ceil(len(scores) / 15)))
      axis.set_xlabel("policy")
      axis.set_ylabel("score rate alone")
      axis.set_title(f"Each policy against the bots ({_GAMES.value} games)")
      axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3,
                  fontsize="small")
    axis.grid(True, alpha=0.3)
  reporting.save_figure(fig, path)


def _print_tables(results: dict[str, Any]) -> None:
  if "plateau" in results:
    print("plateau:\n" + reporting.markdown_table(
        ["policy", "fixed at round", "rounds trained", "at level 0",
         "last gain ± error", "P(fixed | no gain)",
         "P(fixed | gain 2× threshold)"],
        [[r["policy"], r["fixed_at"], r["rounds"], r["rounds_at_level_0"],
          f"{r['last_gain']:+.3f} ± {r['last_gain_error']:.3f}",
          f"{r['fix_chance_at_no_gain']:.2f}",
          f"{r['fix_chance_at_twice_the_gain']:.2f}"]
         for r in results["plateau"]]))
  if "hold" in results:
    cell = results["hold"]
    print(f"hold: the rule would have fixed the lowest learner at round "
          f"{cell['rule_would_fix_at']}\n" + reporting.markdown_table(
              ["round", "lowest learner's return"],
              [[r, f"{m:+.3f} ± {e:.3f}"] for r, m, e in zip(
                  cell["rounds"], cell["mean_returns"], cell["errors"])]))
  if "precision" in results:
    print("precision:\n" + reporting.markdown_table(
        ["population", "mean entry error", "meta-Nash moved (mean, 95%)",
         "measured meta-Nash's exploitability (mean, 95%)"],
        [[r["population"], f"{r['mean_entry_error']:.3f}",
          f"{r['total_variation']:.2f}, {r['total_variation_95']:.2f}",
          f"{r['exploitability']:.3f}, {r['exploitability_95']:.3f}"]
         for r in results["precision"]]))
  if "members" in results:
    cell = results["members"]
    print("members:\n" + reporting.markdown_table(
        ["policy", *cell["bots"], "vs the one before"],
        [[k, *[f"{s:.3f}" for s in row],
          "–" if k == 0 else f"{cell['payoff_against_previous'][k - 1]:+.2f}"]
         for k, row in enumerate(cell["scores"])]))
    print(f"mean difference of two policies' scores against a bot (the "
          f"random network, policy 0, left out): consecutive ones "
          f"{_maybe(cell['consecutive_difference'])}, three or more apart "
          f"{_maybe(cell['distant_difference'])}")


def _maybe(value: Any) -> str:
  return "–" if value is None else f"{value:.3f}"


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  parts = _PARTS.value
  with cli.user_input("run_dir"):
    if not _RUN_DIR.value:
      raise ValueError("--run_dir is required: a stratego_p2sro run's "
                       "population/ folder")
    run = p2sro.saved_run(_RUN_DIR.value)
    if run.config.anchors:
      raise ValueError(f"{_RUN_DIR.value} is a run with anchors "
                       f"{run.config.anchors}; these parts measure P2SRO "
                       "runs without")
    path = os.path.join(_RUN_DIR.value, p2sro.STATE_FILE)
    saved = checkpoints.restore(path, checkpoints.saved_config(path)).extra
  with cli.user_input("bots"):
    for name in _BOTS.value:
      bots.bot(name)
  population = saved["population"]
  results = {}
  if "plateau" in parts:
    results["plateau"] = plateau(saved["log"], run.config)
  if "hold" in parts:
    results["hold"] = hold(run, _RUN_DIR.value)
  if "precision" in parts:
    results["precision"] = precision(population["payoffs"],
                                     population["standard_errors"],
                                     run.config)
  if "members" in parts:
    results["members"] = members(run, population)
  _print_tables(results)
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  with open(os.path.join(_OUTPUT_DIR.value, "stratego_p2sro_diagnosis.json"),
            "w", encoding="utf-8") as f:
    json.dump(results, f, indent=1)
  plot(results, os.path.join(_OUTPUT_DIR.value,
                             "stratego_p2sro_diagnosis.png"))
  print(f"wrote stratego_p2sro_diagnosis.json and .png to "
        f"{_OUTPUT_DIR.value}")


if __name__ == "__main__":
  cli.run(main)
