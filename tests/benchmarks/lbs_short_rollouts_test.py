"""The short-rollout benchmark at tiny scale: every life lost is counted
once, under one cause."""

import json
import os
import subprocess
import sys

import pytest

from open_spiel_ext.games.hanabi import engine as engine_lib

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


@pytest.mark.slow  # About a minute: two small games with exact beliefs.
def test_lives_lost_by_cause_add_up_to_the_lives_gone(tmp_path):
  subprocess.run(
      [sys.executable, "benchmarks/lbs_short_rollouts.py", "--preset=small",
       "--blueprint=rules", "--depths=1", "--games=2", "--rollouts=100",
       f"--output_dir={tmp_path}"],
      cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=600)
  lives = engine_lib.Rules.from_preset("small").max_life_tokens
  results = json.loads((tmp_path / "results.json").read_text())
  for game in results["1"]["games"]:
    assert sum(game["lives_lost"].values()) == lives - game["lives_left"]
  assert (tmp_path / "short_rollouts.png").stat().st_size > 0
