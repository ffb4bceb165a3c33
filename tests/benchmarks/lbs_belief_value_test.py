"""The belief-value benchmark at tiny scale where SPARTA refuses: LBS is
still scored, and the extrapolation aims at the break-even gain."""

import json
import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


@pytest.mark.slow  # About a minute: two small games searched with LBS.
def test_without_sparta_lbs_aims_at_breaking_even(tmp_path):
  model = os.path.join(REPO_ROOT, "algorithms", "hanabi", "weights",
                       "small_rules_belief.npz")
  result = subprocess.run(
      [sys.executable, "benchmarks/lbs_belief_value.py", "--preset=small",
       "--blueprint=rules", f"--models={model}", "--games=2",
       "--rollouts=100", "--batch=100", "--depth=4", "--max_belief_hands=1",
       f"--campaign_dir={tmp_path / 'campaign'}",
       f"--output_dir={tmp_path / 'value'}"],
      cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=600)
  assert "SPARTA refused" in result.stdout
  results = json.loads((tmp_path / "value" / "results.json").read_text())
  assert "refused" in results["SPARTA"]
  (label,) = [key for key in results
              if key not in ("SPARTA", "extrapolation")]
  assert results[label]["games"] == 2
  assert results[label]["cross_entropy"] > 0
  assert results["extrapolation"]["target_gain"] == 0
  assert results["extrapolation"]["aim"] == "a paired gain of +0.00"
  assert (tmp_path / "value" / "belief_value.png").stat().st_size > 0
