"""The SmartBot benchmark end to end on a few decks: every row, a table
that names them, and a rerun that plays nothing again."""

import json

import pytest


@pytest.mark.slow
def test_rows_table_and_resume(run_python, tmp_path):
  flags = ("benchmarks/hanabi_smartbot.py", "--decks=6", "--ablation_decks=3",
           "--agreement_games=1", "--batch=6", f"--output_dir={tmp_path}")
  output = run_python(*flags)
  assert "| smartbot | 6 |" in output and "| rule bot | 6 |" in output
  assert output.count("| without ") == 7
  assert "pyspiel SmartBot = batched blueprint on 1 of 1 games" in output
  again = run_python(*flags)
  assert " games, mean " not in again  # Nothing played again.
  result = json.loads((tmp_path / "hanabi_smartbot.json").read_text())
  assert result["rows"]["agreement"]["agreeing_games"] == 1
  assert (tmp_path / "hanabi_smartbot.png").exists()
