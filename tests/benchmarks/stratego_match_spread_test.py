"""The match-spread benchmark end to end on short games: a batch per key
and the pooled one recorded, the table of both spreads, and a rerun that
plays nothing again."""

import json

import pytest


@pytest.mark.slow
def test_batches_table_and_resume(run_python, tmp_path):
  flags = ("benchmarks/stratego_match_spread.py", "--row=random",
           "--column=heuristic", "--keys=3", "--games=4", "--ply_limit=20",
           f"--output_dir={tmp_path}")
  output = run_python(*flags)
  played = (tmp_path / "batches.jsonl").read_text()
  records = [json.loads(line) for line in played.splitlines()]
  assert [r["batch"] for r in records] == [0, 1, 2, "one key"]
  assert [len(r["results"]) for r in records] == [4, 4, 4, 12]
  assert all(set(r["results"]) <= {-1, 0, 1} for r in records)
  assert "| batches, a key each |" in output
  assert "| blocks of one key's batch |" in output
  assert (tmp_path / "stratego_match_spread.png").exists()
  again = run_python(*flags)
  assert (tmp_path / "batches.jsonl").read_text() == played  # None again.
  assert "| batches, a key each |" in again
