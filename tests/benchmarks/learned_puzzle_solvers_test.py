"""The side-by-side benchmark resumes per solver: the same command searches
nothing again, a command with one more model searches only that one, and
parts run in other output directories merge into one table."""

import json
import os
import shutil
import sys

import pytest

from tests.benchmarks.conftest import REPO_ROOT

sys.path.insert(0, os.path.join(REPO_ROOT, "benchmarks"))
import learned_puzzle_solvers  # pylint: disable=g-import-not-at-top,wrong-import-position

_COMMON = ("--puzzles=lights_out:3", "--count=3", "--beam_widths=4",
           "--davi_models=")


def test_a_warm_started_model_counts_the_minutes_of_its_start():
  info = {"training_seconds": 1800.0, "hardware": "cpu",
          "started_from": "distance_30min.npz", "started_from_seconds": 1800.0}
  assert (learned_puzzle_solvers._training(info) ==
          "60 min (30 of them distance_30min.npz), cpu")
  assert learned_puzzle_solvers._training(
      {"training_seconds": 600.0, "hardware": "cpu"}) == "10 min, cpu"


def test_a_trainers_generic_file_name_is_told_apart_by_its_folder():
  assert (learned_puzzle_solvers._label("DAVI", "runs/warm_davi/model.npz") ==
          "DAVI (warm_davi/model.npz)")
  assert (learned_puzzle_solvers._label("DAVI", "models/rubiks_cube_3.npz") ==
          "DAVI (rubiks_cube_3.npz)")


def _searched(output):
  return [line for line in output.splitlines()
          if line.startswith("lights_out_3 ")]


@pytest.mark.slow
def test_a_rerun_searches_only_the_solvers_it_has_not_run(
    run_python, lights_out_3_model, tmp_path):
  first = tmp_path / "first.npz"
  second = tmp_path / "second.npz"
  shutil.copy(lights_out_3_model, first)
  shutil.copy(lights_out_3_model, second)
  out = f"--output_dir={tmp_path / 'out'}"
  output = run_python("benchmarks/learned_puzzle_solvers.py", *_COMMON, out,
                      f"--free_label_models={first}")
  assert len(_searched(output)) == 6  # 3 boards, beam 4 and greedy.
  assert " length None " not in output
  output = run_python("benchmarks/learned_puzzle_solvers.py", *_COMMON, out,
                      f"--free_label_models={first}")
  assert "resuming: 6 runs already done" in output
  assert not _searched(output)
  output = run_python("benchmarks/learned_puzzle_solvers.py", *_COMMON, out,
                      f"--free_label_models={first},{second}")
  searched = _searched(output)
  assert len(searched) == 6 and all("second.npz" in line for line in searched)
  summary = json.loads((tmp_path / "out" / "learned_puzzle_solvers.json")
                       .read_text())["summary"]
  assert len(summary) == 4
  assert [row["% solved"] for row in summary] == ["100.00"] * 4


@pytest.mark.slow
def test_parts_run_apart_merge_into_one_table(run_python, lights_out_3_model,
                                              tmp_path):
  first = tmp_path / "first.npz"
  second = tmp_path / "second.npz"
  shutil.copy(lights_out_3_model, first)
  shutil.copy(lights_out_3_model, second)
  main, part = tmp_path / "main", tmp_path / "part"
  run_python("benchmarks/learned_puzzle_solvers.py", *_COMMON,
             f"--output_dir={main}", f"--free_label_models={first}")
  run_python("benchmarks/learned_puzzle_solvers.py", *_COMMON,
             f"--output_dir={part}", f"--free_label_models={second}")
  output = run_python("benchmarks/learned_puzzle_solvers.py", *_COMMON,
                      f"--output_dir={main}", f"--merge_runs_from={part}",
                      f"--free_label_models={first},{second}")
  assert f"merged 6 runs from {part}" in output
  assert not _searched(output)
  assert len((main / "runs.jsonl").read_text().splitlines()) == 12
  summary = json.loads((main / "learned_puzzle_solvers.json").read_text()
                       )["summary"]
  assert len(summary) == 4
