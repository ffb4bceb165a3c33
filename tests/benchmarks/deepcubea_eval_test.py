"""The DeepCubeA evaluation resumes where it stopped: the instances it
recorded are not searched again, and another run's settings are refused."""

import json
import subprocess

import pytest

_FLAGS = ("--models=rubiks_cube_2", "--settings=1.0:100", "--max_nodes=20000")


@pytest.mark.slow
def test_an_interrupted_evaluation_resumes_where_it_stopped(run_python,
                                                            tmp_path):
  run_python("benchmarks/deepcubea_eval.py", *_FLAGS, "--count=3",
             f"--output_dir={tmp_path}")
  runs_path = tmp_path / "deepcubea_eval_runs.jsonl"
  lines = runs_path.read_text().splitlines(keepends=True)
  assert [json.loads(line)["index"] for line in lines] == [0, 1, 2]
  complete = json.loads((tmp_path / "deepcubea_eval.json").read_text())["runs"]
  # An interruption after the first instance, in the middle of writing the
  # second's line.
  runs_path.write_text(lines[0] + lines[1][:20])
  output = run_python("benchmarks/deepcubea_eval.py", *_FLAGS, "--count=3",
                      f"--output_dir={tmp_path}")
  assert "resuming: 1 instances already searched" in output
  assert "#0:" not in output and "#1:" in output
  resumed = json.loads((tmp_path / "deepcubea_eval.json").read_text())["runs"]
  for run in complete + resumed:
    del run["seconds"]  # The only thing a search repeated may change.
  assert resumed == complete


@pytest.mark.slow
def test_an_evaluation_of_other_settings_is_refused(run_python, tmp_path):
  run_python("benchmarks/deepcubea_eval.py", *_FLAGS, "--count=1",
             f"--output_dir={tmp_path}")
  with pytest.raises(subprocess.CalledProcessError) as refused:
    run_python("benchmarks/deepcubea_eval.py", *_FLAGS, "--count=2",
               f"--output_dir={tmp_path}")
  assert "count=1 there, 2 here" in refused.value.stderr
