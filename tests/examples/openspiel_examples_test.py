"""OpenSpiel's own example binaries on the plugin's games, through
`python -m open_spiel_ext MODULE` (open_spiel_ext/__main__.py)."""

import subprocess
import sys

import pytest

from open_spiel_ext import __main__ as runner


def _run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-m", "open_spiel_ext", *args],
                        capture_output=True, text=True, check=check,
                        timeout=300)


def test_openspiels_example_plays_a_plugin_game():
  output = _run("example", "--game_string=xdo_clone_leduc(clones=2)").stdout
  # A random game of 2-Clone Leduc: clone indices 0 or 1, opposite returns.
  assert "Clone indices:" in output
  utilities = [float(line.split()[-1]) for line in output.splitlines()
               if line.startswith("Utility for player")]
  assert len(utilities) == 2 and sum(utilities) == 0


def test_openspiels_cfr_variants_solve_a_plugin_poker_game():
  """1-Clone Leduc is Leduc: OpenSpiel's discounted CFR starts from
  uniform play's exploitability there, 4.7472 / 2 chips, and lowers it."""
  output = _run("discounted_cfr", "--game=xdo_clone_leduc(clones=1)",
                "--iterations=3", "--print_freq=1").stdout
  values = [float(line.split()[-1]) for line in output.splitlines()
            if line.startswith("Iteration")]
  assert len(values) == 3
  assert values[0] == pytest.approx(4.747222 / 2, abs=1e-5)
  assert values[-1] < values[0]


def test_openspiels_dotted_module_measures_a_plugin_game():
  output = _run("open_spiel.python.examples.uniform_policy_exploitability",
                "--game=k_gmp").stdout
  # Uniform play is k-GMP's equilibrium.
  assert float(output.split("Exploitability:")[1].split()[0]) == (
      pytest.approx(0, abs=1e-9))


def test_bad_modules_and_the_modules_exit_codes_pass_through():
  unknown = _run("no_such_example", check=False)
  assert unknown.returncode == 2
  assert "no module 'no_such_example'" in unknown.stderr
  # absl's usage error in the module run: its own exit code, 1.
  failed = _run("example", "--game_string=no_such_game", check=False)
  assert failed.returncode == 1
  assert runner.resolve("cfr_example") == (
      "open_spiel.python.examples.cfr_example")
  assert runner.resolve("xdo") == "open_spiel_ext.examples.xdo"
  with pytest.raises(ValueError, match="open_spiel_ext.examples.nothing"):
    runner.resolve("nothing")
