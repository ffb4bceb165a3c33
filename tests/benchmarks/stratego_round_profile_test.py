"""The round profile of issue 44 item 1, end to end on a tiny Stratego run:
its entries part times each number of slots and games-per-slot value on the
run's members."""

import json
import math

import pytest


@pytest.mark.slow
def test_entries_are_timed_for_each_slot_count_and_games_per_slot(
    run_python, tiny_stratego_run, tmp_path):
  output = run_python("benchmarks/stratego_round_profile.py", "--parts=entries",
                      f"--run_dir={tiny_stratego_run}",
                      "--entry_batches=4,6", "--games_per_slot=1,3",
                      "--entry_games=12", f"--output_dir={tmp_path / 'out'}")
  assert "ms / game" in output
  rows = json.loads((tmp_path / "out" / "stratego_round_profile.json")
                    .read_text())["entries"]
  # Slots as asked, but no more than a call's games need: 12 games at 3 a
  # slot fill 4 of 6.
  assert [(row["slots"], row["games_per_slot"]) for row in rows] == [
      (4, 1), (4, 3), (6, 1), (4, 3)]
  for row in rows:
    # The newest member against each member, 12 games an entry in whole
    # calls of slots x games a slot.
    call = row["slots"] * row["games_per_slot"]
    assert row["games"] == math.ceil(12 / call) * call * row["members"]
    # Payoffs of whole games of returns in [-1, 1].
    assert all(-1 <= payoff <= 1 for payoff in row["payoffs"])
  assert (tmp_path / "out" / "stratego_round_profile.png").exists()


@pytest.mark.slow
def test_entries_stop_at_the_standard_error(run_python, tiny_stratego_run,
                                            tmp_path):
  # A seat-averaged mean of returns in [-1, 1] over a call of 4 games has a
  # standard error of at most 1, so every entry stops after its first call.
  run_python("benchmarks/stratego_round_profile.py", "--parts=entries",
             f"--run_dir={tiny_stratego_run}", "--entry_batches=4",
             "--games_per_slot=1", "--entry_games=12",
             "--entry_standard_error=1", f"--output_dir={tmp_path / 'out'}")
  row, = json.loads((tmp_path / "out" / "stratego_round_profile.json")
                    .read_text())["entries"]
  assert row["games"] == 4 * row["members"]


_BANDS_OF_A_TINY_LOG = """
import json, sys
sys.path.insert(0, "benchmarks")
import stratego_round_profile as profile
# Cumulative records: the start, then four rounds with populations 1, 1,
# 2, 3 after them.
with open(sys.argv[1], "w") as f:
  for fixed, wall, tasks, entries, episodes, entry_games in (
      (1, 0, 0, 0, 0, 0), (1, 10, 6, 4, 100, 20), (1, 30, 18, 12, 300, 50),
      (2, 60, 30, 30, 400, 90), (3, 100, 50, 50, 800, 140)):
    f.write(json.dumps({"fixed": fixed, "wall_time": wall,
                        "task_time": tasks, "entry_time": entries,
                        "episodes": episodes,
                        "entry_games": entry_games}) + "\\n")
print(json.dumps(profile.history_bands(profile.history(sys.argv[1]), 2)))
"""


def test_the_history_is_summed_by_bands_of_population_sizes(run_python,
                                                             tmp_path):
  low, high = json.loads(run_python("-c", _BANDS_OF_A_TINY_LOG,
                                    str(tmp_path / "metrics.jsonl")))
  # Bands of two sizes: rounds 1-2 end at population 1, rounds 3-4 at 2
  # and 3.
  assert low["populations"] == [1, 1] and low["rounds"] == 2
  assert low["wall_time"] == 15 and low["task_time"] == 9
  assert low["entry_games"] == 25 and low["ms_per_episode"] == 100
  assert high["populations"] == [2, 3] and high["rounds"] == 2
  assert high["wall_time"] == 35 and high["entry_time"] == 19
  assert high["episodes"] == 250 and high["ms_per_episode"] == 140
