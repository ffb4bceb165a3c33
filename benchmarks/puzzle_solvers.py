"""Exact puzzle solvers: the figures issue 5 asks for, measured in one run.

1. 15-puzzle: IDA* with the 6-6-3 additive pattern databases on the seeded
   test set (1,000-10,000 random moves each): mean optimal length, nodes
   and nodes per second. The tables are built on first use and cached.
2. Lights Out 7×7: the GF(2) solver on uniformly random solvable boards,
   each solution checked by pressing it.
3. 2×2×2 cube: the breadth-first distance table in the quarter- and
   half-turn metrics: God's number and the distance distribution.
4. 3×3×3 cube: IDA* with the corner table on random scrambles of growing
   length, until a solve needs more than --cube_max_nodes: where its limit is.

Prints tables and writes puzzle_solvers.png.

  python benchmarks/puzzle_solvers.py --output_dir=/tmp/puzzle_solvers
"""

import os
import time
from typing import Sequence

from absl import app
from absl import flags
import numpy as np

from open_spiel_ext.experiments.puzzle_references import cube_solvers
from open_spiel_ext.experiments.puzzle_references import instances
from open_spiel_ext.experiments.puzzle_references import lights_out_gf2
from open_spiel_ext.experiments.puzzle_references import sliding_solvers
from open_spiel_ext.games.puzzles import lights_out
from open_spiel_ext.games.puzzles import rubiks_cube
from open_spiel_ext.utils import cli
from open_spiel_ext.utils import reporting


_OUTPUT_DIR = flags.DEFINE_string("output_dir", "benchmark_results",
                                  "Where the PNG is written.")
_FIFTEEN = flags.DEFINE_integer("fifteen_puzzles", 100,
                                "Random 15-puzzles solved optimally.")
_LIGHTS = flags.DEFINE_integer("lights_out_boards", 1000,
                               "Random 7x7 Lights Out boards solved.")
_CUBE_LENGTHS = flags.DEFINE_list("cube_scramble_lengths",
                                  ["8", "10", "12", "13", "14", "15", "16"],
                                  "3x3x3 scramble lengths tried, in order.")
_CUBE_PER_LENGTH = flags.DEFINE_integer("cubes_per_length", 3,
                                        "3x3x3 scrambles per length.")
_CUBE_MAX_NODES = flags.DEFINE_integer(
    "cube_max_nodes", 200_000_000, "Give up on a 3x3x3 solve after this many "
    "nodes, and on longer scrambles.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the test sets.")


def fifteen_puzzle() -> list[int]:
  """Optimal lengths of the seeded 15-puzzle test set."""
  began = time.perf_counter()
  heuristic = sliding_solvers.AdditivePatternDatabase(
      4, sliding_solvers.FIFTEEN_PUZZLE_PARTITION)
  print(f"\n15-puzzle: 6-6-3 pattern databases ready in "
        f"{time.perf_counter() - began:.1f} s (built or loaded from cache)")
  lengths, nodes, seconds = [], 0, 0.0
  for index, board in enumerate(
      instances.scrambled_states("sliding_puzzle", 4, _FIFTEEN.value,
                                 _SEED.value)):
    result = sliding_solvers.solve(board, 4, heuristic)
    lengths.append(len(result.actions))
    nodes += result.nodes
    seconds += result.seconds
    if (index + 1) % 10 == 0:
      print(f"  {index + 1} solved, mean optimal length "
            f"{np.mean(lengths):.2f}, {nodes / seconds:,.0f} nodes/s",
            flush=True)
  print("instances | mean optimal length | min | max | mean nodes | "
        "nodes/s | total s")
  print(f"{len(lengths)} | {np.mean(lengths):.2f} | {min(lengths)} | "
        f"{max(lengths)} | {nodes / len(lengths):,.0f} | "
        f"{nodes / seconds:,.0f} | {seconds:.1f}")
  return lengths


def lights_out_boards() -> None:
  boards = lights_out_gf2.random_reachable_boards(7, _LIGHTS.value,
                                                  _SEED.value)
  table = lights_out.toggle_table(7)
  began = time.perf_counter()
  presses = [lights_out_gf2.solve(board, 7) for board in boards]
  seconds = time.perf_counter() - began
  solved = sum(not ((b + p @ table) % 2).any() for b, p in zip(boards, presses))
  print(f"\nLights Out 7x7: {solved}/{len(boards)} boards turned off; mean "
        f"presses {np.mean([p.sum() for p in presses]):.2f}, max "
        f"{max(p.sum() for p in presses)}; {seconds / len(boards) * 1e3:.2f} "
        "ms per board")


def two_by_two() -> dict[str, dict[int, int]]:
  distributions = {}
  for metric in ("quarter", "half"):
    began = time.perf_counter()
    distribution = cube_solvers.distance_distribution(
        cube_solvers.two_by_two_table(metric))
    distributions[metric] = distribution
    print(f"\n2x2x2 {metric}-turn metric: God's number {max(distribution)}, "
          f"{sum(distribution.values()):,} positions, table built in "
          f"{time.perf_counter() - began:.1f} s")
    print("distance | positions")
    for depth, count in distribution.items():
      print(f"{depth} | {count:,}")
  return distributions


def three_by_three() -> list[tuple[int, int, int, float]]:
  """(scramble length, optimal length, nodes, seconds) per solve."""
  cube = rubiks_cube.RubiksCube(3)
  rng = np.random.RandomState(_SEED.value)
  rows = []
  print("\n3x3x3 IDA* with the corner table\nscramble | optimal | nodes | "
        "s | nodes/s")
  for length in map(int, _CUBE_LENGTHS.value):
    for _ in range(_CUBE_PER_LENGTH.value):
      state = _scramble_without_cancelling(cube, length, rng)
      try:
        result = cube_solvers.solve_three_by_three(
            state, max_nodes=_CUBE_MAX_NODES.value)
      except RuntimeError as error:
        print(f"{length} | gave up | {error}")
        return rows
      rows.append((length, len(result.actions), result.nodes, result.seconds))
      print(f"{length} | {len(result.actions)} | {result.nodes:,} | "
            f"{result.seconds:.1f} | {result.nodes_per_second:,.0f}",
            flush=True)
  return rows


def _scramble_without_cancelling(cube: rubiks_cube.RubiksCube, length: int,
                                 rng: np.random.RandomState) -> np.ndarray:
  """Random quarter turns, never a move followed by its inverse."""
  state, last = cube.goal, -1
  for _ in range(length):
    action = rng.choice([a for a in range(12)
                         if a != rubiks_cube.inverse_move(last)])
    state, last = cube.next_state(state, action), action
  return state


def main(argv: Sequence[str]) -> None:
  if len(argv) > 1:
    raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
  lengths = fifteen_puzzle()
  lights_out_boards()
  distributions = two_by_two()
  cube_rows = three_by_three()
  figure, axes = reporting.plt.subplots(1, 3, figsize=(15, 4))
  axes[0].hist(lengths, bins=range(min(lengths), max(lengths) + 2),
               align="left")
  axes[0].set(title=f"15-puzzle optimal lengths (mean {np.mean(lengths):.2f})",
              xlabel="moves", ylabel="instances")
  for metric, distribution in distributions.items():
    axes[1].semilogy(list(distribution), list(distribution.values()), "o-",
                     label=f"{metric} turns")
  axes[1].set(title="2x2x2 positions per distance", xlabel="distance")
  axes[1].legend()
  if cube_rows:
    optimal = [row[1] for row in cube_rows]
    axes[2].semilogy(optimal, [row[3] for row in cube_rows], "o")
  axes[2].set(title="3x3x3 IDA* (corner table)", xlabel="optimal length",
              ylabel="seconds")
  path = os.path.join(_OUTPUT_DIR.value, "puzzle_solvers.png")
  reporting.save_figure(figure, path, dpi=120)
  print(f"wrote {path}")


if __name__ == "__main__":
  cli.run(main)
