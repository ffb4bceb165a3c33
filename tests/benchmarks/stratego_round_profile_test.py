"""The round profile of issue 44 item 1, end to end on a tiny Stratego run:
its entries part times each games-per-slot value on the run's members."""

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
def test_entries_are_timed_for_each_games_per_slot(tmp_path):
  _run("-m", "open_spiel_ext.examples.stratego_p2sro",
       "--game=barrage_stratego(ply_limit=30)", "--max_episodes=12",
       "--chunk_steps=24", "--min_steps=4", "--plateau_gain=10",
       "--num_envs=4", "--hidden_sizes=4,4", "--games_per_entry=4",
       "--entry_batch=4", "--eval_games=2", "--bots=random", "--workers=1",
       f"--output_dir={tmp_path / 'run'}")
  output = _run("benchmarks/stratego_round_profile.py", "--parts=entries",
                f"--run_dir={tmp_path / 'run' / 'population'}",
                "--games_per_slot=1,3", "--entry_games=12",
                f"--output_dir={tmp_path / 'out'}")
  assert "ms / game" in output
  rows = json.loads((tmp_path / "out" / "stratego_round_profile.json")
                    .read_text())["entries"]
  assert [row["games_per_slot"] for row in rows] == [1, 3]
  for row in rows:
    # The newest member against each member, 12 games an entry.
    assert row["games"] == 12 * row["members"]
    # Payoffs of whole games of returns in [-1, 1].
    assert all(-1 <= payoff <= 1 for payoff in row["payoffs"])
  assert (tmp_path / "out" / "stratego_round_profile.png").exists()
