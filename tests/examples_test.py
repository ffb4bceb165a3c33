"""The example binaries run as a user runs them and print what they promise."""

import subprocess
import sys


def test_games_tour_describes_and_plays_each_game():
  result = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.games_tour",
       "--games=xdo_clone_leduc(clones=3)", "--games=tiny_hanabi_f",
       "--seed=5"],
      capture_output=True, text=True, check=True, timeout=120)
  output = result.stdout
  assert "=== xdo_clone_leduc(clones=3)" in output
  assert "9 distinct actions" in output
  assert "=== tiny_hanabi_f()" in output
  assert output.count("Returns: [") == 2


def test_games_tour_names_a_bad_game():
  result = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.games_tour",
       "--games=k_gmp(k=0)"],
      capture_output=True, text=True, timeout=120)
  assert result.returncode != 0
  assert "k=0" in result.stderr
