"""The P2SRO diagnosis of issue 44 item 3, end to end on a tiny Stratego run:
every part measures the run it is given."""

import json
import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _run(*args):
  return subprocess.run([sys.executable, *args], cwd=REPO_ROOT,
                        capture_output=True, text=True, check=True,
                        timeout=900).stdout


@pytest.mark.slow
def test_each_part_measures_the_run(tmp_path):
  _run("-m", "open_spiel_ext.examples.stratego_p2sro",
       "--game=barrage_stratego(ply_limit=30)", "--max_episodes=24",
       "--chunk_steps=24", "--min_steps=4", "--plateau_gain=10",
       "--num_envs=4", "--hidden_sizes=4,4", "--games_per_entry=4",
       "--eval_games=2", "--bots=random,scout", "--workers=1",
       f"--output_dir={tmp_path / 'run'}")
  output = _run("benchmarks/stratego_p2sro_diagnosis.py",
                f"--run_dir={tmp_path / 'run' / 'population'}",
                "--parts=plateau,hold,precision,members", "--rounds=1",
                "--samples=10", "--games=2", "--bots=random,scout,heuristic",
                "--workers=1", f"--output_dir={tmp_path / 'out'}")
  for part in ("plateau:", "hold:", "precision:", "members:"):
    assert part in output
  results = json.loads(
      (tmp_path / "out" / "stratego_p2sro_diagnosis.json").read_text())
  members = len(results["members"]["scores"])
  assert members >= 3
  # A row per fixed policy (the first member is no learner's), per
  # population of two or more.
  assert len(results["plateau"]) == len(results["precision"]) == members - 1
  # The fork held its lowest learner back for one more round than the run.
  assert results["hold"]["rounds"][-1] == (
      results["hold"]["fork_starts_after"] + 1)
  assert (tmp_path / "out" / "stratego_p2sro_diagnosis.png").exists()
