"""The DeepCubeA CPU campaign at tiny scale: its stages, their records and
plot, and the same command resuming (a finished campaign returns at once)."""

import json
import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _campaign(output_dir, *flags):
  return subprocess.run(
      [sys.executable, "benchmarks/deepcubea_campaign.py",
       "--puzzles=rubiks_cube:2", "--minutes=0.2", "--snapshots=0.1",
       "--batch_size=64", "--eval_depths=3", "--eval_states=10",
       f"--output_dir={output_dir}", *flags],
      cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_the_campaign_runs_its_stages_and_resumes(tmp_path):
  # A second stage of 24 s: on a loaded machine the first one's compiling
  # can run past 0.2 minutes, leaving a shorter second stage nothing to do.
  first = _campaign(tmp_path, "--minutes=0.5")
  assert first.returncode == 0, first.stderr
  with open(tmp_path / "campaign.jsonl", encoding="utf-8") as f:
    records = [json.loads(line) for line in f]
  assert [r["minutes"] for r in records] == [0.1, 0.5]
  assert records[1]["iterations"] > records[0]["iterations"] > 0
  assert not any(r["shipped"] for r in records)  # No --ship.
  assert len(records[0]["candidate_solved"]) == len(records[0]["depths"])
  assert os.path.exists(tmp_path / "campaign.png")
  again = _campaign(tmp_path, "--minutes=0.5")
  assert again.returncode == 0, again.stderr
  with open(tmp_path / "campaign.jsonl", encoding="utf-8") as f:
    assert len(f.readlines()) == 2
  assert "iteration" not in again.stdout  # Nothing trained again.


@pytest.mark.slow
def test_a_new_machine_resumes_the_campaign_from_its_mirror(tmp_path):
  mirror = tmp_path / "mirror"
  first = _campaign(tmp_path / "first", f"--mirror_dir={mirror}",
                    "--checkpoint_minutes=0.02")
  assert first.returncode == 0, first.stderr
  assert (mirror / "campaign.jsonl").exists()
  assert (mirror / "rubiks_cube_2" / "model.npz").exists()
  # A new machine: an empty --output_dir, one more stage.
  again = _campaign(tmp_path / "again", f"--mirror_dir={mirror}",
                    "--minutes=0.6", "--snapshots=0.1,0.2")
  assert again.returncode == 0, again.stderr
  assert "resumed from the model mirrored in" in again.stdout
  with open(tmp_path / "again" / "campaign.jsonl", encoding="utf-8") as f:
    records = [json.loads(line) for line in f]
  assert [r["minutes"] for r in records] == [0.1, 0.2, 0.6]
  assert records[2]["iterations"] > records[1]["iterations"]
  assert not (mirror / "rubiks_cube_2" / "snapshots").exists()  # Megabytes.


def test_a_puzzle_without_a_shipped_model_is_refused(tmp_path):
  result = _campaign(tmp_path, "--puzzles=lights_out:6", "--minutes=1")
  assert result.returncode != 0
  assert "no shipped model for puzzle='lights_out' size=6" in result.stderr
