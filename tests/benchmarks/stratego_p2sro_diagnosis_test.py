"""The P2SRO diagnosis of issue 44 item 3, end to end on a tiny Stratego run:
every part measures the run it is given."""

import json

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
