"""Which of two cost-to-go models is better, and replacing a shipped one.

A model is judged by its greedy policy (always the child of lowest
cost-to-go, `davi.Davi.evaluate`) on the same scrambles for both models:
the solve rate at each of a spread of scramble depths, and their mean. The
GPU script and the CPU campaign ship a model only when it solves more than
the shipped one there by more than chance allows (`solves_more`).
"""

import math
import shutil
from typing import Any

import jax
import numpy as np

from open_spiel_ext.algorithms.deepcubea import davi

EVAL_KEY = 7  # Fixes the compared scrambles: the same for every model.
Z_ONE_SIDED_5_PERCENT = 1.645


def solves_more(candidate_rate: float, baseline_rate: float,
                trials: int) -> bool:
  """Whether a solve rate beats another on `trials` scrambles each by more
  than chance allows: a one-sided two-proportion z-test at 5%. The rates
  are treated as independent; the scrambles are shared, which makes the
  test err towards keeping the shipped model."""
  pooled = (candidate_rate + baseline_rate) / 2
  error = math.sqrt(pooled * (1 - pooled) * 2 / trials)
  return candidate_rate - baseline_rate > max(
      Z_ONE_SIDED_5_PERCENT * error, 0.0)


def greedy_solve_rates(model: davi.CostToGo, depths: tuple[int, ...],
                       per_depth: int) -> list[float]:
  """The greedy policy's solve rate at each depth, on scrambles fixed by
  EVAL_KEY (the same for every model of the puzzle)."""
  params, net_state = model.network_weights()
  solved, _ = model.davi.evaluate(params, net_state,
                                  jax.random.PRNGKey(EVAL_KEY), depths,
                                  per_depth)
  return np.asarray(solved).tolist()


def compare(candidate_path: str, baseline_path: str, depth_count: int,
            per_depth: int) -> dict[str, Any]:
  """The two models' greedy solve rates on the same scrambles, at
  `depth_count` depths spread over the baseline's training range;
  "better" when the candidate's mean is higher by more than chance allows
  (`solves_more` over all the scrambles). ValueError if either file is no
  model or they are of different puzzles."""
  candidate = davi.CostToGo.load(candidate_path)
  baseline = davi.CostToGo.load(baseline_path)
  puzzles = [(m.config.puzzle, m.config.size) for m in (candidate, baseline)]
  if puzzles[0] != puzzles[1]:
    raise ValueError(f"{candidate_path} is a model of {puzzles[0]}, "
                     f"{baseline_path} of {puzzles[1]}")
  depths = davi.eval_depths(baseline.config.max_scramble, depth_count)
  result = {"depths": list(depths), "states_per_depth": per_depth,
            "candidate": candidate_path, "baseline": baseline_path}
  for name, model in (("candidate", candidate), ("baseline", baseline)):
    result[f"{name}_solved"] = greedy_solve_rates(model, depths, per_depth)
    result[f"{name}_mean_solved"] = float(np.mean(result[f"{name}_solved"]))
  result["better"] = solves_more(result["candidate_mean_solved"],
                                 result["baseline_mean_solved"],
                                 len(depths) * per_depth)
  return result


def describe(result: dict[str, Any]) -> str:
  """`compare`'s result as a few lines of text (percent solved by depth)."""
  lines = ["greedy solve rate by scramble depth:",
           "  depth     " + "".join(f"{d:>6d}" for d in result["depths"])]
  for name in ("candidate", "baseline"):
    lines.append(f"  {name:9s} " + "".join(
        f"{100 * s:6.0f}" for s in result[f"{name}_solved"]) +
                 f"   mean {100 * result[f'{name}_mean_solved']:.1f}%")
  lines.append(
      f"the candidate is {'better' if result['better'] else 'not better'}")
  return "\n".join(lines)


def ship_if_better(result: dict[str, Any], shipped_path: str) -> bool:
  """Copies `compare`'s candidate over `shipped_path` if it was better
  than that baseline; returns whether it did."""
  if not result["better"]:
    return False
  if result["baseline"] != shipped_path:
    raise ValueError(f"the comparison's baseline {result['baseline']} is "
                     f"not the shipped model {shipped_path}")
  shutil.copyfile(result["candidate"], shipped_path)
  return True
