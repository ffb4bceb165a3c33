"""The P2SRO diagnosis of issue 44 item 3, end to end on a tiny Stratego run:
every part measures the run it is given."""

import json
import subprocess

import pytest


@pytest.mark.slow
def test_each_part_measures_the_run(run_python, tiny_stratego_run, tmp_path):
  output = run_python(
      "benchmarks/stratego_p2sro_diagnosis.py",
      f"--run_dir={tiny_stratego_run}",
      "--parts=plateau,hold,precision,members", "--rounds=1", "--samples=10",
      "--games=2", "--bots=random,scout,heuristic", "--workers=1",
      f"--output_dir={tmp_path / 'out'}")
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


@pytest.mark.slow
def test_the_hold_fork_resumes_where_it_stopped(run_python, tiny_stratego_run,
                                                tmp_path):
  flags = (f"--run_dir={tiny_stratego_run}", "--parts=hold", "--workers=1",
           f"--output_dir={tmp_path / 'out'}")
  run_python("benchmarks/stratego_p2sro_diagnosis.py", "--rounds=1", *flags)
  first = json.loads(
      (tmp_path / "out" / "stratego_p2sro_diagnosis.json").read_text())["hold"]
  output = run_python("benchmarks/stratego_p2sro_diagnosis.py", "--rounds=2",
                      *flags)
  again = json.loads(
      (tmp_path / "out" / "stratego_p2sro_diagnosis.json").read_text())["hold"]
  # The same fork, one round further: its first round kept, not replayed.
  assert again["fork_starts_after"] == first["fork_starts_after"]
  assert again["rounds"][-1] == first["rounds"][-1] + 1
  assert again["mean_returns"][:-1] == first["mean_returns"]
  assert output.count("hold: round") == 1


@pytest.mark.slow
def test_the_members_part_plays_only_members_not_yet_measured(
    run_python, tiny_stratego_run, tmp_path):
  flags = (f"--run_dir={tiny_stratego_run}", "--parts=members", "--games=2",
           "--bots=random,scout", "--workers=1",
           f"--output_dir={tmp_path / 'out'}")
  run_python("benchmarks/stratego_p2sro_diagnosis.py", *flags)
  first = json.loads(
      (tmp_path / "out" / "stratego_p2sro_diagnosis.json").read_text())
  records = tmp_path / "out" / "members.jsonl"
  lines = records.read_text().splitlines()
  assert len(lines) == len(first["members"]["scores"])
  # As if interrupted before the last member ended.
  records.write_text("\n".join(lines[:-1]) + "\n")
  output = run_python("benchmarks/stratego_p2sro_diagnosis.py", *flags)
  again = json.loads(
      (tmp_path / "out" / "stratego_p2sro_diagnosis.json").read_text())
  assert output.count("members: policy") == 1
  assert again["members"] == first["members"]
  # A record of another policy under a member's number is refused.
  other = json.loads(lines[0]) | {"fingerprint": "0" * 16}
  records.write_text(json.dumps(other) + "\n")
  with pytest.raises(subprocess.CalledProcessError) as refused:
    run_python("benchmarks/stratego_p2sro_diagnosis.py", *flags)
  assert "measured another policy 0" in refused.value.stderr


_PLATEAU_OF_PERFECT_ROUNDS = """
import json, sys
sys.path.insert(0, "benchmarks")
import stratego_p2sro_diagnosis as diagnosis
from open_spiel_ext.algorithms import p2sro
# A learner that won every game of its last two rounds, then was fixed.
log = [p2sro.LogEntry(r, 1 + (r == 3), int(r == 3), 0, 40 * r, 0.0, 0.0,
                      (ret,), None, task_episodes=(40,))
       for r, ret in ((1, 0.5), (2, 1.0), (3, 1.0))]
print(json.dumps(diagnosis.plateau(log, p2sro.Config(method="p2sro"))))
"""


def test_the_plateau_part_reads_rounds_without_error(run_python):
  # Rounds won in every game have no sampling error: the rule reads them
  # exactly, where a division by that error used to stop the benchmark.
  row, = json.loads(run_python("-c", _PLATEAU_OF_PERFECT_ROUNDS))
  assert row["fixed_at"] == 3 and row["last_gain_error"] == 0.0
  assert row["fix_chance_at_no_gain"] == 1.0
  assert row["fix_chance_at_twice_the_gain"] == 0.0
