"""Where a P2SRO round's time goes on Barrage Stratego, and what a change of
settings saves, measured one run after the other.

Parts (--parts):
- mixture: seconds per batched learner step (the round's tasks) against a
  mixture of m members, for each m of --mixture_sizes (new networks of the
  run's architecture; a mixture draws a member per game, and every member
  that plays some game runs its network on the whole batch);
- rounds (needs --run_dir, a stratego_p2sro run's population/ folder):
  from that run's checkpoint (its game, learners and settings), --rounds
  rounds with its own settings, then
  --rounds rounds with the settings changed as --after says (forks, in
  --output_dir/before and after; the run itself is left alone): seconds per
  round split into tasks, payoff entries and checkpoints, episodes per
  round, seconds per episode, entry games per round;
- entries (needs --run_dir): seconds per payoff-entry game for each
  number of slots in --entry_batches (a call's games played at once; the
  run's entry_batch by default) and each value of --games_per_slot (games a
  call deals per slot as they free up), side by side in one process: the
  run's newest member against every member, at most --entry_games games an
  entry, fewer once its standard error is at most --entry_standard_error
  (each call's end is where an entry may stop);
- history (needs --run_dir): the run's own rounds, their time split as the
  population grew (its metrics.jsonl, next to population/), and a table of
  them by bands of --history_band population sizes.

Prints the tables and writes stratego_round_profile.json and a PNG.

  python benchmarks/stratego_round_profile.py --parts=mixture
  python benchmarks/stratego_round_profile.py --parts=rounds,history \\
      --run_dir=stratego_p2sro_output/population --rounds=3 \\
      --after=task_opponents=4,entry_standard_error=0.05,entry_batch=100
"""

import dataclasses
import json
import os
import shutil
import time
from typing import Any, Optional, Sequence

from absl import app
from absl import flags
import jax
import numpy as np

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.rl import population as population_lib
from open_spiel_ext.experiments import stratego_recipes
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

PARTS = ("mixture", "rounds", "entries", "history")
_PARTS = cli.define_choice_list("parts", PARTS, ["mixture"], "What to measure.")
_GAME = flags.DEFINE_string("game", stratego_recipes.GAME, "A Stratego game.")
_MIXTURE_SIZES = flags.DEFINE_list("mixture_sizes", ["1", "2", "4", "8", "16"],
                                   "Members of the mixtures timed.")
_NUM_ENVS = flags.DEFINE_integer(
    "num_envs", stratego_recipes.P2SRO_DEVICES["cpu"]["num_envs"],
    "mixture: games a learner plays at once.")
_STEPS = flags.DEFINE_integer("steps", 32, "mixture: batched steps timed "
                              "(after as many that compile).")
_RUN_DIR = flags.DEFINE_string("run_dir", None, "rounds, history: a run's "
                               "population/ folder.")
_ROUNDS = flags.DEFINE_integer("rounds", 3, "rounds: rounds per setting.")
_AFTER = flags.DEFINE_list(
    "after", ["task_opponents=4", "entry_standard_error=0.05",
              "entry_batch=100"],
    "rounds: the changed settings, name=value of p2sro.Config's fields.")
_GAMES_PER_SLOT = flags.DEFINE_list(
    "games_per_slot", ["1", "3"], "entries: entry_games_per_slot values.")
_ENTRY_BATCHES = flags.DEFINE_list(
    "entry_batches", [], "entries: slots an entry's call plays at once "
    "(default: the run's entry_batch).")
_ENTRY_GAMES = flags.DEFINE_integer(
    "entry_games", 600, "entries: games an entry plays at most (rounded up "
    "to whole calls).", lower_bound=1)
_ENTRY_STANDARD_ERROR = flags.DEFINE_float(
    "entry_standard_error", 0.0, "entries: an entry stops after the call "
    "that brings its standard error to at most this (0: every game).",
    lower_bound=0.0)
_HISTORY_BAND = flags.DEFINE_integer(
    "history_band", 5, "history: population sizes a row of its table "
    "covers.", lower_bound=1)
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the forks, JSON and PNG go.")
cli.define_executor_flags(workers=2)


def mixture_costs(sizes: Sequence[int]) -> list[dict[str, Any]]:
  """Seconds per batched step of one learner against each mixture size."""
  config = stratego_recipes.ppo_config()
  trainer = p2sro.trainer_for(
      _GAME.value, config, _NUM_ENVS.value,
      tuple(sorted(stratego_recipes.ENGINE_OPTIONS.items())))
  carry = trainer.new_carry(0)
  rows = []
  for size in sizes:
    members = [trainer.new_params(seed) for seed in range(1, size + 1)]
    stacked, weights = p2sro.stack_mixture(members, np.ones(size))
    weights = weights.astype(np.float32)
    carry, _ = trainer.train_steps(carry, stacked, weights, _STEPS.value)
    jax.block_until_ready(carry)  # Compiled (per padded size), warmed.
    started = time.perf_counter()
    carry, _ = trainer.train_steps(carry, stacked, weights, _STEPS.value)
    jax.block_until_ready(carry)
    seconds = (time.perf_counter() - started) / _STEPS.value
    rows.append({"members": size, "seconds_per_step": seconds})
    print(f"mixture of {size:2d}: {seconds * 1e3:7.1f} ms a batched step",
          flush=True)
  for row in rows:
    row["times_one_member"] = row["seconds_per_step"] / rows[0][
        "seconds_per_step"]
  return rows


def _changes(texts: Sequence[str], base: p2sro.Config) -> dict[str, Any]:
  """--after's name=value items as values of `base`'s fields' types."""
  changes = {}
  for text in texts:
    name, _, value = text.partition("=")
    if not hasattr(base, name) or not value:
      raise ValueError(
          f"--after takes name=value of p2sro.Config's fields ("
          f"{', '.join(f.name for f in dataclasses.fields(base))}), got "
          f"{text!r}")
    kind = type(getattr(base, name))
    changes[name] = value in ("True", "true", "1") if kind is bool else (
        kind(value))
  return changes


def _rounds(label: str, run: p2sro.SavedRun,
            config: p2sro.Config) -> dict[str, Any]:
  """--rounds rounds forked from --run_dir under `config`, and their cost."""
  directory = os.path.join(_OUTPUT_DIR.value, label)
  shutil.rmtree(directory, ignore_errors=True)
  pipeline = p2sro.Pipeline(open_spiel_ext.load_game(run.game),
                            run.learner_config, config, directory,
                            cli.executor_from_flags, evaluator=None,
                            engine_options=run.engine_options,
                            fork_from=_RUN_DIR.value)
  start = pipeline.log[-1]
  with pipeline:
    for entry in pipeline.run(max_rounds=start.round + _ROUNDS.value):
      print(f"{label}: round {entry.round}, "
            f"{entry.wall_time - start.wall_time:.0f} s so far", flush=True)
  rounds = _ROUNDS.value
  episodes = entry.episodes - start.episodes
  seconds = {
      "round": (entry.wall_time - start.wall_time) / rounds,
      "tasks": (entry.task_time - start.task_time) / rounds,
      "entries": (entry.entry_time - start.entry_time) / rounds,
      # A round's entry counts the saves after the rounds before it.
      "checkpoints": (entry.checkpoint_time - start.checkpoint_time) /
                     max(rounds - 1, 1)}
  return {"settings": dataclasses.asdict(config), "population":
          entry.fixed, "seconds": seconds, "episodes_per_round":
          episodes / rounds, "seconds_per_episode":
          seconds["round"] * rounds / episodes if episodes else None,
          "entry_games_per_round": (entry.entry_games - start.entry_games) /
          rounds}


def entry_costs(batches: Sequence[Optional[int]],
                per_slot_values: Sequence[int]) -> list[dict[str, Any]]:
  """Seconds per entry game of the run's newest member against each member,
  for each number of slots (None: the run's) and games-per-slot value, one
  after the other."""
  run = p2sro.saved_run(_RUN_DIR.value)
  state_path = os.path.join(_RUN_DIR.value, p2sro.STATE_FILE)
  saved = checkpoints.restore(state_path,
                              checkpoints.saved_config(state_path))
  trainer = p2sro.trainer_for(
      run.game, run.learner_config, run.config.num_envs,
      tuple(sorted(run.engine_options.items())))
  members = saved.extra["population"]["members"]
  game = open_spiel_ext.load_game(run.game)

  def of_members(size, games_per_entry, batch, per_slot, standard_error=0.0):
    made = population_lib.Population(
        game, trainer.apply, trainer.env, games_per_entry=games_per_entry,
        exact=False, seed=run.config.seed,
        entry_standard_error=standard_error, entry_batch=batch,
        entry_games_per_slot=per_slot)
    made.restore({"members": members[:size], "tables": [],
                  "payoffs": np.zeros((size, size))})
    return made

  rows = []
  for batch in batches:
    for per_slot in per_slot_values:
      slots = population_lib.entry_slots(
          _ENTRY_GAMES.value, per_slot, batch or run.config.entry_batch)
      # One call against one member compiles the entry's games, warms them.
      of_members(1, slots * per_slot, slots, per_slot).payoffs_with(
          [members[-1]])
      population = of_members(len(members), _ENTRY_GAMES.value, slots,
                              per_slot, _ENTRY_STANDARD_ERROR.value)
      started = time.perf_counter()
      payoffs = population.payoffs_with([members[-1]])
      seconds = time.perf_counter() - started
      games = population.entry_games
      rows.append({"slots": slots, "games_per_slot": per_slot,
                   "members": len(population), "games": games,
                   "seconds": seconds, "seconds_per_game": seconds / games,
                   "payoffs": payoffs[-1, :-1].tolist()})
      print(f"{slots} slots, {per_slot} games a slot: {games} games in "
            f"{seconds:.0f} s, {seconds / games * 1e3:.0f} ms a game",
            flush=True)
  for row in rows:
    row["times_first"] = row["seconds_per_game"] / rows[0][
        "seconds_per_game"]
  return rows


_HISTORY_FIELDS = ("wall_time", "task_time", "entry_time", "episodes",
                   "entry_games")


def history(metrics_path: str) -> list[dict[str, Any]]:
  """Per round of a run: its seconds split, from its metrics.jsonl."""
  rows, previous = [], None
  for record in reporting.read_json_lines(metrics_path):
    now = {name: record.get(name, 0.0) for name in _HISTORY_FIELDS}
    if previous is not None:
      rows.append({"population": record["fixed"], **{
          name: now[name] - previous[name] for name in _HISTORY_FIELDS}})
    previous = now
  return rows


def history_bands(rows: Sequence[dict[str, Any]],
                  band: int) -> list[dict[str, Any]]:
  """history's rounds summed by bands of `band` population sizes (the
  population at a round's end): per band its rounds, seconds per round
  split, episodes and entry games per round, ms per episode."""
  bands = {}
  for row in rows:
    bands.setdefault(row["population"] // band, []).append(row)
  summary = []
  for _, members in sorted(bands.items()):
    total = {name: sum(row[name] for row in members)
             for name in _HISTORY_FIELDS}
    count = len(members)
    summary.append({
        "populations": (min(row["population"] for row in members),
                        max(row["population"] for row in members)),
        "rounds": count,
        **{name: total[name] / count for name in _HISTORY_FIELDS},
        "ms_per_episode": (1e3 * total["wall_time"] / total["episodes"]
                           if total["episodes"] else None)})
  return summary


def plot(results: dict[str, Any], path: str) -> None:
  panels = [name for name in ("mixture", "rounds", "entries", "history")
            if name in results]
  fig, axes = reporting.plt.subplots(1, len(panels),
                                     figsize=(5.5 * len(panels), 4.2),
                                     squeeze=False)
  for axis, name in zip(axes[0], panels):
    if name == "mixture":
      rows = results["mixture"]
      axis.plot([r["members"] for r in rows],
                [r["seconds_per_step"] * 1e3 for r in rows], marker="o")
      axis.set_xlabel("members in the mixture")
      axis.set_ylabel("ms per batched learner step")
      axis.set_title("Opponent mixtures: a task's step")
    elif name == "rounds":
      labels = list(results["rounds"])
      bottom = np.zeros(len(labels))
      for part in ("tasks", "entries", "checkpoints"):
        values = np.array([results["rounds"][k]["seconds"][part]
                           for k in labels])
        axis.bar(labels, values, bottom=bottom, label=part)
        bottom += values
      axis.set_ylabel("seconds per round")
      axis.set_title("A round, before and after")
      axis.legend()
    elif name == "entries":
      rows = results["entries"]
      axis.bar([f"{r['slots']} × {r['games_per_slot']}" for r in rows],
               [r["seconds_per_game"] * 1e3 for r in rows])
      axis.set_xlabel("slots × games a call deals per slot")
      axis.set_ylabel("ms per entry game")
      axis.set_title(f"Payoff entries, {rows[0]['members']} members")
    else:
      rows = results["history"]
      x = np.arange(len(rows))
      for part, key in (("tasks", "task_time"), ("entries", "entry_time")):
        axis.plot(x, [r[key] for r in rows], label=part)
      axis.plot(x, [r["wall_time"] for r in rows], label="round")
      axis.set_xlabel("round")
      axis.set_ylabel("seconds")
      axis.set_title("The run's rounds")
      axis.legend()
    axis.grid(True, alpha=0.3)
  reporting.save_figure(fig, path)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  parts = _PARTS.value
  with cli.user_input("parts"):
    if {"rounds", "entries", "history"} & set(parts) and not _RUN_DIR.value:
      raise ValueError("rounds, entries and history need --run_dir")
  with cli.user_input("run_dir"):
    if _RUN_DIR.value and p2sro.saved_run(_RUN_DIR.value).config.anchors:
      raise ValueError(f"{_RUN_DIR.value} is a run with anchors; the "
                       "profile measures P2SRO runs without")
  results = {}
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  if "mixture" in parts:
    with cli.user_input("mixture_sizes"):
      sizes = [int(text) for text in _MIXTURE_SIZES.value]
    results["mixture"] = mixture_costs(sizes)
    print(reporting.markdown_table(
        ["members", "ms / batched step", "× one member"],
        [[r["members"], f"{r['seconds_per_step'] * 1e3:.1f}",
          f"{r['times_one_member']:.2f}"] for r in results["mixture"]]))
  if "rounds" in parts:
    with cli.user_input("run_dir"):
      run = p2sro.saved_run(_RUN_DIR.value)
    with cli.user_input("after"):
      after = dataclasses.replace(run.config,
                                  **_changes(_AFTER.value, run.config))
    results["rounds"] = {"before": _rounds("before", run, run.config),
                         "after": _rounds("after", run, after)}
    rows = []
    for label, cell in results["rounds"].items():
      split = cell["seconds"]
      rows.append([label, cell["population"], f"{split['round']:.0f}",
                   f"{split['tasks']:.0f}", f"{split['entries']:.0f}",
                   f"{split['checkpoints']:.1f}",
                   f"{cell['episodes_per_round']:.0f}",
                   "–" if cell["seconds_per_episode"] is None else
                   f"{cell['seconds_per_episode'] * 1e3:.1f}",
                   f"{cell['entry_games_per_round']:.0f}"])
    print(f"after: {', '.join(_AFTER.value)}\n" + reporting.markdown_table(
        ["settings", "population", "s / round", "tasks", "entries",
         "checkpoints", "episodes / round", "ms / episode",
         "entry games / round"], rows))
  if "entries" in parts:
    with cli.user_input("games_per_slot"):
      per_slot_values = [int(text) for text in _GAMES_PER_SLOT.value]
    with cli.user_input("entry_batches"):
      batches = [int(text) for text in _ENTRY_BATCHES.value] or [None]
      if any(batch < 2 for batch in batches if batch is not None):
        raise ValueError("slots must be at least 2 (a game per seat)")
    results["entries"] = entry_costs(batches, per_slot_values)
    print(reporting.markdown_table(
        ["slots", "games a slot", "members", "games", "s", "ms / game",
         "× the first row", "payoffs"],
        [[r["slots"], r["games_per_slot"], r["members"], r["games"],
          f"{r['seconds']:.0f}", f"{r['seconds_per_game'] * 1e3:.0f}",
          f"{r['times_first']:.2f}",
          " ".join(f"{p:+.2f}" for p in r["payoffs"])]
         for r in results["entries"]]))
  if "history" in parts:
    results["history"] = history(os.path.join(
        os.path.dirname(os.path.abspath(_RUN_DIR.value)), "metrics.jsonl"))
    results["history_bands"] = history_bands(results["history"],
                                             _HISTORY_BAND.value)
    print(reporting.markdown_table(
        ["population", "rounds", "s / round", "tasks", "entries",
         "episodes / round", "ms / episode", "entry games / round"],
        [["{}–{}".format(*r["populations"]), r["rounds"],
          f"{r['wall_time']:.0f}", f"{r['task_time']:.0f}",
          f"{r['entry_time']:.0f}", f"{r['episodes']:.0f}",
          "–" if r["ms_per_episode"] is None else
          f"{r['ms_per_episode']:.0f}", f"{r['entry_games']:.0f}"]
         for r in results["history_bands"]]))
  with open(os.path.join(_OUTPUT_DIR.value, "stratego_round_profile.json"),
            "w", encoding="utf-8") as f:
    json.dump(results, f, indent=1)
  plot(results, os.path.join(_OUTPUT_DIR.value,
                             "stratego_round_profile.png"))
  print(f"wrote stratego_round_profile.json and .png to {_OUTPUT_DIR.value}")


if __name__ == "__main__":
  cli.run(main)
