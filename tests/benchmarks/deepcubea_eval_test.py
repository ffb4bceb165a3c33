"""The DeepCubeA evaluation resumes where it stopped: the instances it
recorded are not searched again, and another run's settings are refused."""

import json
import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _evaluate(output_dir, *flags):
  return subprocess.run(
      [sys.executable, "benchmarks/deepcubea_eval.py",
       "--models=rubiks_cube_2", "--settings=1.0:100", "--max_nodes=20000",
       f"--output_dir={output_dir}", *flags],
      cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_an_interrupted_evaluation_resumes_where_it_stopped(tmp_path):
  first = _evaluate(tmp_path, "--count=3")
  assert first.returncode == 0, first.stderr
  runs_path = tmp_path / "deepcubea_eval_runs.jsonl"
  with open(runs_path, encoding="utf-8") as f:
    lines = f.readlines()
  assert [json.loads(line)["index"] for line in lines] == [0, 1, 2]
  with open(tmp_path / "deepcubea_eval.json", encoding="utf-8") as f:
    complete = json.load(f)["runs"]
  # An interruption after the first instance, in the middle of writing the
  # second's line.
  with open(runs_path, "w", encoding="utf-8") as f:
    f.write(lines[0] + lines[1][:20])
  again = _evaluate(tmp_path, "--count=3")
  assert again.returncode == 0, again.stderr
  assert "resuming: 1 instances already searched" in again.stdout
  assert "#0:" not in again.stdout and "#1:" in again.stdout
  with open(tmp_path / "deepcubea_eval.json", encoding="utf-8") as f:
    resumed = json.load(f)["runs"]
  for run in complete + resumed:
    del run["seconds"]  # The only thing a search repeated may change.
  assert resumed == complete


@pytest.mark.slow
def test_an_evaluation_of_other_settings_is_refused(tmp_path):
  assert _evaluate(tmp_path, "--count=1").returncode == 0
  other = _evaluate(tmp_path, "--count=2")
  assert other.returncode != 0
  assert "count=1 there, 2 here" in other.stderr
