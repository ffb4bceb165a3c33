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
