"""The example that exports the plugin's games to OpenSpiel
(`examples/upstream.py`): its refusal of Stratego and the files it lists. The
export itself is tested under tests/upstream/."""

import os
import re
import subprocess
import sys


def test_the_example_refuses_stratego_in_one_line(tmp_path):
  result = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.upstream",
       "--game=barrage_stratego", f"--output_dir={tmp_path}"],
      capture_output=True, text=True, timeout=300, check=False)
  assert result.returncode == 2
  assert result.stderr.count("\n") == 1
  assert result.stderr.startswith("upstream: error: --game: barrage_stratego")
  assert "copyright" in result.stderr
  assert not list(tmp_path.iterdir())


def test_the_example_writes_and_lists_the_files(tmp_path):
  result = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.upstream",
       "--game=perturbed_k_gmp", f"--output_dir={tmp_path}"],
      capture_output=True, text=True, timeout=300, check=True)
  written = re.findall(r"wrote (.*)", result.stdout)
  assert sorted(written) == sorted(
      str(path) for path in tmp_path.rglob("*") if path.is_file())
  assert {os.path.relpath(path, tmp_path) for path in written} == {
      "open_spiel/python/games/k_gmp.py",
      "open_spiel/python/games/k_gmp_test.py",
      "open_spiel/integration_tests/playthroughs/k_gmp.txt",
      "open_spiel/integration_tests/playthroughs/perturbed_k_gmp.txt",
      "open_spiel/integration_tests/playthroughs/clone_gmp.txt",
      "CHANGES/k_gmp.md"}
