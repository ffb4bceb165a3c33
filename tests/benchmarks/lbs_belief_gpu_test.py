"""The GPU belief-training script, run end to end at tiny scale on the CPU
(so that its first GPU run is its real one)."""

import json
import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


@pytest.mark.slow
def test_the_script_writes_a_model_that_lbs_plays_with(tmp_path):
  out = tmp_path / "out"
  result = subprocess.run(
      ["bash", "benchmarks/lbs_belief_gpu.sh", "--preset=small",
       "--device=cpu", "--width=16", "--num_envs=16", "--batch_size=4",
       "--minutes=0.2", "--checkpoint_minutes=0.05", "--eval_games=16",
       f"--run_dir={tmp_path / 'run'}", f"--output_dir={out}"],
      cwd=REPO_ROOT, env={**os.environ, "PYTHON": sys.executable},
      capture_output=True, text=True, check=True, timeout=600)
  assert "held-out cross-entropy" in result.stdout
  assert sorted(os.listdir(out)) == ["belief.npz", "checkpoint.pkl",
                                     "metrics.jsonl", "verdict.json"]
  verdict = json.loads((out / "verdict.json").read_text())
  # 0.2 minutes of a 16-wide model cannot beat the shipped model.
  assert not verdict["better"]
  assert verdict["shipped_cross_entropy"] < verdict["candidate_cross_entropy"]
  played = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.hanabi_play",
       "--preset=small", "--games=1", "--workers=1", "--search=lbs",
       "--rollout_depth=4", "--rollouts=100", "--batch=50",
       f"--belief_model={out / 'belief.npz'}",
       f"--output_dir={tmp_path / 'play'}"],
      cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=600)
  assert "paired gain" in played.stdout
