"""The round profile of issue 44 item 1, end to end on a tiny Stratego run:
its entries part times each games-per-slot value on the run's members."""

import json

import pytest


@pytest.mark.slow
def test_entries_are_timed_for_each_games_per_slot(run_python,
                                                  tiny_stratego_run,
                                                  tmp_path):
  output = run_python("benchmarks/stratego_round_profile.py", "--parts=entries",
                      f"--run_dir={tiny_stratego_run}",
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
