"""The GPU DeepCubeA script, run end to end at tiny scale on the CPU (so that
its first GPU run is its real one): it continues the shipped 2x2x2 model and
writes a model that `deepcubea_solve --model=` solves with."""

import json
import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


@pytest.mark.slow
def test_the_script_writes_a_model_that_deepcubea_solve_loads(tmp_path):
  out = tmp_path / "out"
  result = subprocess.run(
      ["bash", "benchmarks/deepcubea_gpu.sh", "--puzzle=rubiks_cube",
       "--size=2", "--batch_size=64", "--minutes=0.3", "--eval_states=10",
       f"--run_dir={tmp_path / 'run'}", f"--output_dir={out}"],
      cwd=REPO_ROOT, env={**os.environ, "PYTHON": sys.executable},
      capture_output=True, text=True, check=True, timeout=600)
  assert "greedy solve rate by scramble depth" in result.stdout
  assert sorted(os.listdir(out)) == ["metrics.jsonl", "model.npz",
                                     "training.png", "verdict.json"]
  assert os.path.getsize(out / "model.npz") <= 16 * 2**20
  verdict = json.loads((out / "verdict.json").read_text())
  assert len(verdict["candidate_solved"]) == len(verdict["depths"]) == 10
  solved = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.deepcubea_solve",
       "--puzzle=rubiks_cube", "--size=2", "--scramble=4",
       f"--model={out / 'model.npz'}"],
      cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=300)
  assert "checked in pyspiel" in solved.stdout
