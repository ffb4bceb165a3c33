"""The free-label campaign resumes by the same command, from its mirror on a
new machine, and its GPU script (run on the CPU at tiny scale, so that its
first GPU run is its real one) writes models `deepcubea_solve` searches."""

import json
import os
import shutil
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
_TINY = ("--runs=rubiks_cube:2:last_move,lights_out:3:pressed",
         "--minutes=0.1,0.05", "--snapshots=0.05", "--eval_count=2",
         "--eval_beam=16")


def _records(folder):
  return [json.loads(line) for line in
          (folder / "campaign.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_the_campaign_resumes_from_its_mirror_on_a_new_machine(run_python,
                                                               tmp_path):
  run_python("benchmarks/free_label_campaign.py", *_TINY,
             f"--output_dir={tmp_path / 'state'}",
             f"--mirror_dir={tmp_path / 'mirror'}")
  records = _records(tmp_path / "mirror")
  assert [(r["run"], r["minutes"]) for r in records] == [
      ("rubiks_cube_2_last_move", 0.05), ("rubiks_cube_2_last_move", 0.1),
      ("lights_out_3_pressed", 0.05)]
  assert records[1]["examples"] > records[0]["examples"]
  assert sorted(os.listdir(tmp_path / "mirror" / "snapshots")) == [
      "lights_out_3_pressed_0.05min.npz",
      "rubiks_cube_2_last_move_0.05min.npz",
      "rubiks_cube_2_last_move_0.1min.npz"]
  assert (tmp_path / "mirror" / "campaign.png").exists()
  # A new machine: the state is gone, a longer budget continues the run
  # from the mirrored checkpoint, the stages done are not trained again.
  shutil.rmtree(tmp_path / "state")
  output = run_python("benchmarks/free_label_campaign.py",
                      "--runs=rubiks_cube:2:last_move", "--minutes=0.15",
                      "--snapshots=0.05,0.1", "--eval_count=2",
                      "--eval_beam=16", f"--output_dir={tmp_path / 'state'}",
                      f"--mirror_dir={tmp_path / 'mirror'}")
  assert "took the checkpoint mirrored" in output
  assert "training to 0.1 minutes" not in output
  resumed = _records(tmp_path / "mirror")[-1]
  assert resumed["minutes"] == 0.15
  assert resumed["iterations"] > records[1]["iterations"]


@pytest.mark.slow
def test_the_gpu_script_writes_models_that_deepcubea_solve_searches(
    tmp_path):
  subprocess.run(
      ["bash", "benchmarks/free_label_gpu.sh", *_TINY],
      cwd=REPO_ROOT, env={**os.environ, "PYTHON": sys.executable,
                          "OUT": str(tmp_path),
                          "RUN_DIR": str(tmp_path / "run")},
      capture_output=True, text=True, check=True, timeout=600)
  mirror = tmp_path / "free_label_gpu"
  assert len(_records(mirror)) == 3
  snapshot = mirror / "snapshots" / "lights_out_3_pressed_0.05min.npz"
  assert os.path.getsize(snapshot) <= 16 * 2**20
  solved = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.deepcubea_solve",
       "--puzzle=lights_out", "--size=3", "--search=greedy",
       "--state=000/010/000", f"--model={snapshot}"],
      cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
  assert solved.returncode in (0, 1), solved.stderr
  assert "greedy search, pressed model" in solved.stdout
