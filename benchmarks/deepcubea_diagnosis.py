"""Why DeepCubeA's cost-to-go saturates, measured where the exact cost-to-go
is known (Lights Out over GF(2), the 2×2×2 cube's table:
`instances.exact_distances`).

Parts (--parts):
- scrambles: the true distances of DAVI's training states, K uniform in
  1..--max_scramble reverse moves, drawn as a walk (DeepCubeA's: repeats
  allowed) and with distinct moves: how much of training lies at each
  distance;
- model: --model's estimate (default the shipped one) by true distance
  (`deepcubea/value_error.py`): mean J, its error, and the share of states
  whose lowest-valued child is truly nearer the goal, beside a random
  move's; for a puzzle without an exact solver of many states (the 3×3×3
  cube) the only part, by scramble depth: mean J and the greedy policy's
  solve rate;
- training: each of --variants (changes to the shipped model's settings at
  --batch_size, below) trained from scratch for --minutes of this machine,
  in stages of --stage_minutes, the estimate by true distance measured
  after each (training minutes count each stage's compilation): how far
  the estimate reaches (the first distance it falls more than a move short
  of: `value_error.saturation`; the distances from 1 up at which its best
  child descends at least RANKING_MARGIN more often than a random move;
  and `value_error.ranking_score`, 1 for a perfect ordering of children).
  Each run resumes from its checkpoint, so the same command finishes an
  interrupted comparison;
- supervised: the same networks (--variants' network settings) fit to the
  exact cost-to-go itself, on distinct-move scrambles of every depth (or,
  --supervised_scramble=walk, the variant's own walks) labelled by the
  exact solver, for --minutes each (no Bellman targets, so
  no children to value: many more states a minute), measured the same way:
  whether the network can learn the function at all, the ceiling DAVI's
  bootstrapping works under. These short runs start afresh when rerun.

The measured states: walks and distinct-move scrambles of every depth up to
the puzzle's K (or its number of moves), --per_depth of each, and --per_depth
test instances (`instances.scrambled_states`), grouped by true distance.
Prints the tables, writes deepcubea_diagnosis.json and a PNG.

  python benchmarks/deepcubea_diagnosis.py --puzzle=lights_out --size=7 \\
      --parts=scrambles,model,training --minutes=20 \\
      --output_dir=benchmark_results/deepcubea_diagnosis
"""

import dataclasses
import json
import os
import time
from typing import Any, Sequence

from absl import app
from absl import flags
import jax
import jax.numpy as jnp
import numpy as np

from open_spiel_ext.algorithms.deepcubea import bwas
from open_spiel_ext.algorithms.deepcubea import davi
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.algorithms.deepcubea import value_error
from open_spiel_ext.experiments import puzzle_recipes
from open_spiel_ext.experiments.puzzle_references import instances
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting

PARTS = ("scrambles", "model", "training", "supervised")
RANKING_MARGIN = 0.2  # Over a random move's share of descents.
# Changes to the shipped model's settings (`puzzle_recipes.DAVI_SHIPPED`, the flags of
# the shipped runs: docs/puzzles.md) that each training variant makes.
VARIANTS = {
    "shipped": {},
    "walk_49": {"max_scramble": 49},
    "distinct": {"scramble": "distinct", "max_scramble": 49},
    "paper_threshold": {"loss_threshold": 0.05, "check_every": 500},
    "wide": {"hidden_sizes": (3000, 600)},
}
_PARTS = cli.define_choice_list("parts", PARTS, ["scrambles", "model"],
                                "What to measure.")
_PUZZLE = flags.DEFINE_enum("puzzle", "lights_out", puzzles.PUZZLES,
                            "A puzzle with an exact solver of many states.")
_SIZE = flags.DEFINE_integer("size", 7, "The puzzle's size parameter.")
_MODEL = flags.DEFINE_string("model", None, "model: a model file (default: "
                             "the shipped one).")
_MAX_SCRAMBLE = flags.DEFINE_integer(
    "max_scramble", None, "scrambles: K (default: the shipped model's).")
_VARIANTS = cli.define_choice_list(
    "variants", list(VARIANTS), list(VARIANTS),
    "training, supervised: the settings compared.")
_MINUTES = flags.DEFINE_float("minutes", 20.0,
                              "training: minutes of each variant.")
_STAGE_MINUTES = flags.DEFINE_float("stage_minutes", 5.0,
                                    "training: minutes between measurements.")
_BATCH_SIZE = flags.DEFINE_integer("batch_size", 1_000,
                                   "training: states per iteration.")
_PER_DEPTH = flags.DEFINE_integer("per_depth", 30,
                                  "Measured states per depth.")
_SUPERVISED_SCRAMBLE = flags.DEFINE_enum(
    "supervised_scramble", "distinct", ["distinct", "walk"],
    "supervised: the states fit, distinct-move scrambles of every depth up "
    "to the puzzle's number of moves (every distance of Lights Out alike), "
    "or the variant's own walks, K uniform in 1..its max_scramble (on the "
    "cube, where distinct moves stay near the goal, they reach its far "
    "states).")
_SAMPLES = flags.DEFINE_integer("samples", 20_000,
                                "scrambles: training states drawn.")
_SEED = flags.DEFINE_integer("seed", 0, "Of the measured states.")
_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the runs, JSON and PNG go.")


def _exact(states: Any) -> np.ndarray:
  distances = instances.exact_distances(_PUZZLE.value, _SIZE.value,
                                        np.asarray(states))
  if distances is None:
    raise ValueError(f"no exact solver of many states for {_PUZZLE.value} "
                     f"size {_SIZE.value}: the diagnosis needs one")
  return distances


def base_config() -> davi.Config:
  """The shipped model's settings at --batch_size; for a size that ships
  none (a smaller Lights Out, to see how learning scales with the board),
  those of the puzzle's largest shipped size, at --size."""
  sizes = [size for puzzle, size in puzzle_recipes.DAVI_SHIPPED
           if puzzle == _PUZZLE.value]
  if not sizes:
    raise ValueError(f"no shipped model of {_PUZZLE.value} to take the "
                     "settings from")
  size = _SIZE.value if _SIZE.value in sizes else max(sizes)
  shipped = bwas.shipped_model(_PUZZLE.value, size).config
  return dataclasses.replace(shipped, size=_SIZE.value,
                             batch_size=_BATCH_SIZE.value)


def scrambles(max_scramble: int) -> dict[str, Any]:
  """Histograms of the true distances of training states, as walks and as
  distinct-move scrambles."""
  engine = puzzles.make_engine(_PUZZLE.value, _SIZE.value)
  key = jax.random.PRNGKey(_SEED.value)
  out = {"max_scramble": max_scramble}
  for name, distinct, k in (
      ("walk", False, max_scramble),
      ("distinct", True, min(max_scramble, engine.num_actions))):
    depths = jax.random.randint(key, (_SAMPLES.value,), 1, k + 1)
    states = davi.scramble(engine, key, depths, k, distinct)
    distances = _exact(states)
    out[name] = {"k": k, "histogram": np.bincount(distances).tolist(),
                 "mean": float(distances.mean())}
  return out


def measured_states() -> np.ndarray:
  """Walks and distinct-move scrambles of every depth, and test
  instances."""
  engine = puzzles.make_engine(_PUZZLE.value, _SIZE.value)
  k = base_config().max_scramble
  key = jax.random.PRNGKey(_SEED.value + 1)
  parts = []
  for distinct, top in ((False, k), (True, min(k, engine.num_actions))):
    depths = jnp.repeat(jnp.arange(1, top + 1), _PER_DEPTH.value)
    parts.append(np.asarray(davi.scramble(
        engine, jax.random.fold_in(key, distinct), depths, top, distinct)))
  parts.append(np.stack(instances.scrambled_states(
      _PUZZLE.value, _SIZE.value, _PER_DEPTH.value, _SEED.value)))
  return np.concatenate(parts).astype(parts[0].dtype)


def has_exact() -> bool:
  """Whether the puzzle has an exact solver of many states."""
  goal = np.asarray(puzzles.make_engine(_PUZZLE.value, _SIZE.value).goal)
  return instances.exact_distances(_PUZZLE.value, _SIZE.value,
                                   goal[None]) is not None


def depth_rows(model: davi.CostToGo) -> list[dict[str, Any]]:
  """Without exact distances: the model's mean estimate, how far its DAVI
  target (`value_error.bellman_targets`) lies above it on the same states
  (about 0 at the model's own fixed point), and its greedy policy's solve
  rate, by scramble depth, 1..K (an upper bound on the distance),
  --per_depth scrambles each."""
  depths = tuple(range(1, model.config.max_scramble + 1))
  params, net_state = model.network_weights()
  key = jax.random.PRNGKey(_SEED.value)
  solved, values = model.davi.evaluate(params, net_state, key, depths,
                                       _PER_DEPTH.value)
  scrambled = np.repeat(depths, _PER_DEPTH.value)
  states = np.asarray(davi.scramble(model.engine, jax.random.fold_in(key, 1),
                                    jnp.asarray(scrambled), depths[-1]))
  gaps = value_error.bellman_targets(model, model.engine, states) - model(
      states)
  return [{"depth": depth, "mean_estimate": float(value),
           "target_gap": float(gaps[scrambled == depth].mean()),
           "greedy_solved": float(rate)}
          for depth, value, rate in zip(depths, np.asarray(values),
                                        np.asarray(solved))]


def model_rows(model: davi.CostToGo,
               states: np.ndarray) -> list[dict[str, Any]]:
  return [row._asdict() for row in value_error.by_distance(
      model, model.engine, states, _exact)]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
  """How far the estimate reaches, and how well it ranks children there."""
  typed = [value_error.DistanceRow(**row) for row in rows]
  uninformative = [r.distance for r in typed
                   if r.descent < r.random_descent + RANKING_MARGIN]
  return {"saturation": value_error.saturation(typed),
          # The distances from 1 up where its best child descends clearly
          # more often than a random move does.
          "ranks_children_to": (min(uninformative) - 1 if uninformative
                                else typed[-1].distance),
          "ranking_score": value_error.ranking_score(typed),
          "max_estimate": max(r.mean_estimate for r in typed)}


def train_variant(name: str, states: np.ndarray) -> list[dict[str, Any]]:
  """The variant's stages: trained up to each stage's minutes, measured."""
  config = dataclasses.replace(base_config(), **VARIANTS[name])
  directory = os.path.join(_OUTPUT_DIR.value, "runs", name)
  record_path = os.path.join(directory, "stages.jsonl")
  stages = reporting.read_json_lines(record_path)
  writer = reporting.JsonLinesWriter(record_path, append=bool(stages))
  total = int(round(_MINUTES.value / _STAGE_MINUTES.value))
  for stage in range(len(stages) + 1, total + 1):
    _, progress = davi.train(config, davi.RunConfig(
        iterations=10**12, output_dir=directory,
        max_seconds=stage * _STAGE_MINUTES.value * 60 - _seconds(stages),
        checkpoint_seconds=10**9, log_every=10**9, eval_every=0),
                             log=lambda line: None)
    model = davi.CostToGo.load(os.path.join(directory, davi.MODEL))
    rows = model_rows(model, states)
    record = {"stage": stage, "minutes": progress.seconds / 60,
              "iterations": progress.iteration,
              "target_updates": progress.target_updates, "rows": rows,
              **summary(rows)}
    writer.write(record)
    stages.append(record)
    print(f"training: {name}, {record['minutes']:.1f} min, "
          f"{record['iterations']} iterations, reaches "
          f"{record['saturation']}, ranks children to "
          f"{record['ranks_children_to']}", flush=True)
  writer.close()
  return stages


def supervised_variant(name: str, states: np.ndarray) -> list[dict[str, Any]]:
  """The variant's network fit to exact distances, measured each stage."""
  config = dataclasses.replace(base_config(), **VARIANTS[name])
  trainer = davi.Davi(config)
  engine = trainer.engine
  train_state = trainer.init()
  key = jax.random.PRNGKey(config.seed)
  distinct = _SUPERVISED_SCRAMBLE.value == "distinct"
  top = engine.num_actions if distinct else config.max_scramble
  stages, iteration, seconds, distance_sum = [], 0, 0.0, 0.0
  stage_seconds = _STAGE_MINUTES.value * 60
  total = int(round(_MINUTES.value / _STAGE_MINUTES.value))

  @jax.jit
  def draw(batch_key):
    depths = jax.random.randint(batch_key, (config.batch_size,), 1, top + 1)
    return davi.scramble(engine, batch_key, depths, top, distinct=distinct)

  for stage in range(1, total + 1):
    started = time.perf_counter()
    while seconds + time.perf_counter() - started < stage * stage_seconds:
      batch = draw(jax.random.fold_in(key, iteration))
      targets = _exact(batch).astype(np.float32)
      train_state, _ = trainer.regress(train_state, batch, targets)
      iteration += 1
      distance_sum += float(targets.mean())
    seconds += time.perf_counter() - started
    model = davi.CostToGo(config, train_state.params, train_state.net_state)
    rows = model_rows(model, states)
    stages.append({"stage": stage, "minutes": seconds / 60,
                   "iterations": iteration, "target_updates": 0,
                   "fit_mean_distance": distance_sum / max(iteration, 1),
                   "rows": rows, **summary(rows)})
    print(f"supervised: {name}, {seconds / 60:.1f} min, {iteration} "
          f"iterations (states fit {stages[-1]['fit_mean_distance']:.1f} "
          f"away on average), reaches {stages[-1]['saturation']}, ranks "
          f"children to {stages[-1]['ranks_children_to']}", flush=True)
  return stages


def _seconds(stages: list[dict[str, Any]]) -> float:
  return stages[-1]["minutes"] * 60 if stages else 0.0


def plot(results: dict[str, Any], path: str) -> None:
  panels = [p for p in ("scrambles", "model", "model_by_depth")
            if p in results]
  for part in ("training", "supervised"):
    if part in results:
      panels += [(part, "reach"), (part, "end")]
  fig, axes = reporting.plt.subplots(1, len(panels),
                                     figsize=(5.5 * len(panels), 4.3),
                                     squeeze=False)
  for axis, name in zip(axes[0], panels):
    if name == "scrambles":
      for kind in ("walk", "distinct"):
        histogram = np.asarray(results["scrambles"][kind]["histogram"])
        axis.plot(histogram / histogram.sum(), marker=".",
                  label=f"{kind}, K ≤ {results['scrambles'][kind]['k']}")
      axis.set_xlabel("true distance")
      axis.set_ylabel("share of training states")
      axis.set_title("Where DAVI's training states lie")
    elif name == "model":
      _plot_rows(axis, results["model"]["rows"], "the model")
      axis.set_title("The model's estimate by true distance")
    elif name == "model_by_depth":
      rows = results["model_by_depth"]["rows"]
      depths = [r["depth"] for r in rows]
      axis.plot(depths, [r["mean_estimate"] for r in rows], marker=".",
                label="mean estimate")
      axis.plot(depths, depths, color="grey", linestyle=":",
                label="scramble depth")
      twin = axis.twinx()
      twin.plot(depths, [r["greedy_solved"] for r in rows], color="C2",
                label="greedy solved")
      twin.set_ylabel("share solved greedily")
      twin.legend(fontsize=8, loc="lower right")
      axis.set_xlabel("scramble depth")
      axis.set_title("The model's estimate by scramble depth")
    elif name[1] == "reach":
      for variant, stages in results[name[0]].items():
        axis.plot([s["minutes"] for s in stages],
                  [s["ranks_children_to"] for s in stages], marker="o",
                  label=variant)
      axis.set_xlabel("training minutes (this machine)")
      axis.set_ylabel("farthest distance ranked better than random")
      axis.set_title(f"{name[0]}: how far the estimate reaches")
    else:
      for variant, stages in results[name[0]].items():
        rows = stages[-1]["rows"]
        axis.plot([r["distance"] for r in rows],
                  [r["mean_estimate"] for r in rows], label=variant)
      top = max(r["distance"] for s in results[name[0]].values()
                for r in s[-1]["rows"])
      axis.plot([0, top], [0, top], color="grey", linestyle=":",
                label="exact")
      axis.set_xlabel("true distance")
      axis.set_ylabel("mean estimate")
      axis.set_title(f"{name[0]}: each variant's estimate at the end")
    axis.grid(True, alpha=0.3)
    axis.legend(fontsize=8)
  reporting.save_figure(fig, path)


def _plot_rows(axis: Any, rows: list[dict[str, Any]], label: str) -> None:
  distances = [r["distance"] for r in rows]
  axis.plot(distances, [r["mean_estimate"] for r in rows], marker=".",
            label=f"{label}: mean estimate")
  axis.plot(distances, distances, color="grey", linestyle=":",
            label="exact")
  twin = axis.twinx()
  twin.plot(distances, [r["descent"] for r in rows], color="C2",
            label="best child descends")
  twin.plot(distances, [r["random_descent"] for r in rows], color="C3",
            linestyle="--", label="a random move descends")
  twin.set_ylabel("share of states")
  twin.legend(fontsize=8, loc="lower right")
  axis.set_xlabel("true distance")
  axis.set_ylabel("moves")


def _print(results: dict[str, Any]) -> None:
  if "scrambles" in results:
    cell = results["scrambles"]
    rows = []
    for kind in ("walk", "distinct"):
      histogram = np.asarray(cell[kind]["histogram"], np.float64)
      share = np.cumsum(histogram) / histogram.sum()
      rows.append([f"{kind} (K ≤ {cell[kind]['k']})",
                   f"{cell[kind]['mean']:.1f}"] + [
                       f"{share[min(d, len(share) - 1)]:.0%}"
                       for d in (5, 10, 15, 20)])
    print("scrambles: true distances of training states\n" +
          reporting.markdown_table(
              ["scramble", "mean distance", "≤ 5", "≤ 10", "≤ 15", "≤ 20"],
              rows))
  if "model_by_depth" in results:
    print(f"model {results['model_by_depth']['path']} by scramble depth "
          f"(no exact distances):\n" + reporting.markdown_table(
              ["scramble depth", "mean J", "target − J", "greedy solved"],
              [[r["depth"], f"{r['mean_estimate']:.2f}",
                f"{r['target_gap']:+.2f}", f"{r['greedy_solved']:.0%}"]
               for r in results["model_by_depth"]["rows"]]))
  if "model" in results:
    print(f"model {results['model']['path']}: reaches "
          f"{results['model']['saturation']}, ranks children to "
          f"{results['model']['ranks_children_to']}, ranking score "
          f"{results['model']['ranking_score']:.2f}\n" +
          reporting.markdown_table(
              ["distance", "states", "mean J", "error", "RMSE",
               "target 1 + min J(child)", "best child descends",
               "random move descends"],
              [[r["distance"], r["states"], f"{r['mean_estimate']:.2f}",
                f"{r['mean_error']:+.2f}", f"{r['rmse']:.2f}",
                f"{r['mean_target']:.2f}", f"{r['descent']:.2f}",
                f"{r['random_descent']:.2f}"]
               for r in results["model"]["rows"]]))
  for part in ("training", "supervised"):
    if part in results:
      print(f"{part}:\n" + reporting.markdown_table(
          ["variant", "minutes", "iterations", "target updates",
           "reaches (saturation)", "ranks children to", "ranking score",
           "max mean J"],
          [[variant, f"{s['minutes']:.1f}", s["iterations"],
            s["target_updates"], s["saturation"], s["ranks_children_to"],
            f"{s['ranking_score']:.2f}", f"{s['max_estimate']:.1f}"]
           for variant, stages in results[part].items() for s in stages]))


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  parts = _PARTS.value
  with cli.user_input():
    for name in _VARIANTS.value if {"training", "supervised"} & set(
        parts) else ():
      dataclasses.replace(base_config(), **VARIANTS[name]).validate()
    if not has_exact() and set(parts) != {"model"}:
      raise ValueError(
          f"{_PUZZLE.value} size {_SIZE.value} has no exact solver of many "
          f"states: only --parts=model (by scramble depth) measures it")
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  results = {}
  if "scrambles" in parts:
    results["scrambles"] = scrambles(_MAX_SCRAMBLE.value or
                                     base_config().max_scramble)
  states = (measured_states() if has_exact() and
            {"model", "training", "supervised"} & set(parts) else None)
  if "model" in parts:
    with cli.user_input("model"):
      model = (davi.CostToGo.load(_MODEL.value) if _MODEL.value else
               bwas.shipped_model(_PUZZLE.value, _SIZE.value))
    if has_exact():
      rows = model_rows(model, states)
      results["model"] = {"path": _MODEL.value or "shipped", "rows": rows,
                          **summary(rows)}
    else:
      results["model_by_depth"] = {"path": _MODEL.value or "shipped",
                                   "rows": depth_rows(model)}
  if "training" in parts:
    results["training"] = {name: train_variant(name, states)
                           for name in _VARIANTS.value}
  if "supervised" in parts:
    results["supervised"] = {name: supervised_variant(name, states)
                             for name in _VARIANTS.value}
  _print(results)
  name = f"deepcubea_diagnosis_{_PUZZLE.value}_{_SIZE.value}"
  with open(os.path.join(_OUTPUT_DIR.value, f"{name}.json"), "w",
            encoding="utf-8") as f:
    json.dump(results, f, indent=1)
  plot(results, os.path.join(_OUTPUT_DIR.value, f"{name}.png"))
  print(f"wrote {name}.json and .png to {_OUTPUT_DIR.value}")


if __name__ == "__main__":
  cli.run(main)
