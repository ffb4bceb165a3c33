"""The DeepCubeA diagnosis at tiny scale: Lights Out 4x4, a size that ships
no model (the 7x7 settings at its size), its scrambles and a supervised fit
measured against the GF(2) solver."""

import json
import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


@pytest.mark.slow
def test_a_supervised_fit_on_a_small_board_is_measured_by_distance(tmp_path):
  subprocess.run(
      [sys.executable, "benchmarks/deepcubea_diagnosis.py",
       "--puzzle=lights_out", "--size=4", "--parts=scrambles,supervised",
       "--variants=shipped", "--minutes=0.2", "--stage_minutes=0.1",
       "--samples=2000", "--per_depth=5", f"--output_dir={tmp_path}"],
      cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=600)
  with open(tmp_path / "deepcubea_diagnosis_lights_out_4.json",
            encoding="utf-8") as f:
    results = json.load(f)
  # 4x4 boards lie at most 7 presses away.
  assert len(results["scrambles"]["distinct"]["histogram"]) <= 8
  stages = results["supervised"]["shipped"]
  assert len(stages) == 2
  distances = [row["distance"] for row in stages[-1]["rows"]]
  assert distances == list(range(1, max(distances) + 1))
  assert -1.0 <= stages[-1]["ranking_score"] <= 1.0
  assert os.path.exists(tmp_path / "deepcubea_diagnosis_lights_out_4.png")


def _supervised_on_the_small_cube(output_dir, scramble):
  subprocess.run(
      [sys.executable, "benchmarks/deepcubea_diagnosis.py",
       "--puzzle=rubiks_cube", "--size=2", "--parts=supervised",
       "--variants=walk_49", "--minutes=0.1", "--stage_minutes=0.1",
       "--batch_size=64", "--per_depth=3",
       f"--supervised_scramble={scramble}", f"--output_dir={output_dir}"],
      cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=600)
  with open(output_dir / "deepcubea_diagnosis_rubiks_cube_2.json",
            encoding="utf-8") as f:
    return json.load(f)["supervised"]["walk_49"][-1]


@pytest.mark.slow
def test_walks_fit_the_small_cube_farther_from_the_goal_than_distinct_moves(
    tmp_path):
  # Distinct moves (at most the cube's 12) leave 99% of 2x2x2 states within
  # 10 moves, where most of its positions lie 11-12 away; walks of up to 49
  # moves reach them.
  distinct = _supervised_on_the_small_cube(tmp_path / "distinct", "distinct")
  walk = _supervised_on_the_small_cube(tmp_path / "walk", "walk")
  assert distinct["fit_mean_distance"] < 6 < 8 < walk["fit_mean_distance"]
