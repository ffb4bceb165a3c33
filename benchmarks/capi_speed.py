"""Where a CAPI episode's time goes on Abstracted Tiny Bridge, and how long.

  python benchmarks/capi_speed.py --output_dir=/tmp/capi_speed \
      --compare_with=/tmp/older   # pip install --no-deps --target=/tmp/older .

Runs CAPI in the paper's Tiny Bridge configuration (tabular policy, the
10,000 most likely prescriptions, values squashed into the payoff range) for
--warmup_episodes (compilations, and a policy past its uniform start), then
times --episodes more: milliseconds per episode in all and per part (policy,
acquisition, rewards, next beliefs, value network, training, and the rest of
the episode's loop), with decisions and distinct next beliefs per episode.
With --compare_with, the same measurement runs first on another version of
the package (a folder holding an `open_spiel_ext` package, e.g. from
`pip install --no-deps --target=DIR .` in a checkout of an earlier commit),
in its own process, one after the other on one core, so the two columns are
measured side by side. Prints a table and writes capi_speed.png and
capi_speed.json.
"""

import json
import os
import subprocess
import sys
import time
from typing import Any, Optional, Sequence

from absl import app
from absl import flags

from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.algorithms.capi import capi
from open_spiel_ext.algorithms.capi import config as capi_config
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting
import pyspiel

_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the PNG and JSON are written.")
_WARMUP = flags.DEFINE_integer("warmup_episodes", 300,
                               "Episodes played before timing.")
_EPISODES = flags.DEFINE_integer("episodes", 500, "Episodes timed.")
_SEED = flags.DEFINE_integer("seed", 0, "CAPI seed.")
_COMPARE_WITH = flags.DEFINE_string(
    "compare_with", None, "A folder holding another version of the "
    "open_spiel_ext package, measured first in its own process.")
_MEASURE_TO = flags.DEFINE_string(
    "measure_to", None, "Internal: measure in this process only and write "
    "the result to this JSON file.")

GAME = "tiny_bridge_2p(abstracted=True)"
# Settings every version of CAPI's config has (so an older one can be timed).
SETTINGS = dict(policy="tabular", acquisition="most_likely",
                squash_values=True, num_prescriptions=10_000,
                updates_per_episode=4)
PARTS = ("policy", "acquisition", "rewards", "next_beliefs", "value_network",
         "training")
OTHER = "other"  # What the learner's timers leave out: the episode's loop.


def measure(warmup: int, episodes: int, seed: int) -> dict[str, Any]:
  """Per-episode milliseconds, in all and by part, after the warm-up."""
  mdp = pub_mdp.build(pyspiel.load_game(GAME))
  learner = capi.Capi(mdp, capi_config.Config(seed=seed, **SETTINGS))
  for _ in range(warmup):
    learner.train_on(learner.play_episode())
  learner.timers = dict.fromkeys(learner.timers, 0.0)
  beliefs_before = learner.distinct_next_beliefs
  decisions = 0
  start = time.perf_counter()
  for _ in range(episodes):
    played = learner.play_episode()
    decisions += len(played)
    learner.train_on(played)
  seconds = time.perf_counter() - start
  by_part = {part: 1000 * learner.timers.get(part, 0.0) / episodes
             for part in PARTS}
  by_part[OTHER] = 1000 * seconds / episodes - sum(by_part.values())
  return {
      "source": os.path.dirname(os.path.dirname(os.path.dirname(
          capi.__file__))),
      "ms_per_episode": 1000 * seconds / episodes,
      "ms_by_part": by_part,
      "decisions_per_episode": decisions / episodes,
      "next_beliefs_per_episode":
          (learner.distinct_next_beliefs - beliefs_before) / episodes,
  }


def measure_elsewhere(package_root: str, path: str) -> dict[str, Any]:
  """Runs `measure` in a child process that imports the package from
  `package_root`."""
  env = dict(os.environ, PYTHONPATH=os.path.abspath(package_root))
  subprocess.run([sys.executable, os.path.abspath(__file__),
                  f"--measure_to={path}", f"--warmup_episodes={_WARMUP.value}",
                  f"--episodes={_EPISODES.value}", f"--seed={_SEED.value}"],
                 env=env, check=True, cwd="/")
  with open(path, encoding="utf-8") as f:
    return json.load(f)


def print_table(columns: dict[str, dict[str, Any]]) -> None:
  names = list(columns)
  print("| ms per episode | " + " | ".join(names) + " |")
  print("|---" * (len(names) + 1) + "|")
  for part in PARTS + (OTHER,):
    print(f"| {part} | " + " | ".join(
        f"{columns[n]['ms_by_part'][part]:.1f}" for n in names) + " |")
  print("| **total** | " + " | ".join(
      f"**{columns[n]['ms_per_episode']:.1f}**" for n in names) + " |")
  print("| ms per decision | " + " | ".join(
      f"{c['ms_per_episode'] / c['decisions_per_episode']:.2f}"
      for c in columns.values()) + " |")
  for key in ("decisions_per_episode", "next_beliefs_per_episode"):
    print(f"| {key.replace('_', ' ')} | " + " | ".join(
        f"{columns[n][key]:.0f}" for n in names) + " |")
  if len(names) == 2:
    before, after = (columns[n]["ms_per_episode"] for n in names)
    print(f"\n{names[1]} takes {after / before:.2f}× the time of {names[0]} "
          f"per episode ({before / after:.2f}× faster)")


def plot(columns: dict[str, dict[str, Any]], path: str) -> None:
  """Stacked bars: each version's milliseconds per episode, by part."""
  plt = reporting.plt
  fig, axis = plt.subplots(figsize=(6, 4.5))
  names = list(columns)
  bottoms = [0.0] * len(names)
  for part in PARTS + (OTHER,):
    heights = [columns[n]["ms_by_part"][part] for n in names]
    axis.bar(names, heights, bottom=bottoms, label=part.replace("_", " "))
    bottoms = [b + h for b, h in zip(bottoms, heights)]
  axis.axhline(40, color="black", linestyle="--", linewidth=1,
               label="target 40 ms")
  axis.set_ylabel("milliseconds per episode")
  axis.set_title("CAPI on Abstracted Tiny Bridge (K = 10,000)")
  axis.legend(fontsize="small")
  reporting.save_figure(fig, path)


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  if _MEASURE_TO.value:
    result = measure(_WARMUP.value, _EPISODES.value, _SEED.value)
    with open(_MEASURE_TO.value, "w", encoding="utf-8") as f:
      json.dump(result, f)
    return
  os.makedirs(_OUTPUT_DIR.value, exist_ok=True)
  columns: dict[str, dict[str, Any]] = {}
  compared: Optional[str] = _COMPARE_WITH.value
  if compared:
    if not os.path.isdir(os.path.join(compared, "open_spiel_ext")):
      raise app.UsageError(f"--compare_with={compared!r} holds no "
                           "open_spiel_ext package")
    columns["compared"] = measure_elsewhere(
        compared, os.path.join(_OUTPUT_DIR.value, "compared.json"))
  columns["this version"] = measure(_WARMUP.value, _EPISODES.value,
                                    _SEED.value)
  print_table(columns)
  with open(os.path.join(_OUTPUT_DIR.value, "capi_speed.json"), "w",
            encoding="utf-8") as f:
    json.dump(columns, f, indent=1)
  plot(columns, os.path.join(_OUTPUT_DIR.value, "capi_speed.png"))


if __name__ == "__main__":
  cli.run(main)
