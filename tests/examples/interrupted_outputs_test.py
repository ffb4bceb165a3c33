"""Examples that write one output at the end keep their progress as they go.

`puzzle_test_set`, `generate_sokoban_levels` and `stratego_eval` used to hold
everything in memory until the end, so a Ctrl-C lost the whole run. Each
run here is interrupted by a real SIGINT sent from inside the example's own
work (at a chosen call of the function doing it), exits 130, and the same
command then finishes with the output of a run never stopped.
"""

import json
import subprocess
import sys

_INTERRUPTED_RUN = """
import importlib, os, signal, sys
module = importlib.import_module({module!r})
original = getattr(module, {function!r})
calls = 0
def interrupting(*args, **kwargs):
  global calls
  calls += 1
  if calls == {at}:
    os.kill(os.getpid(), signal.SIGINT)
  return original(*args, **kwargs)
setattr(module, {function!r}, interrupting)
from open_spiel_ext.utils import cli
example = importlib.import_module("open_spiel_ext.examples." + {example!r})
sys.argv = [{example!r}, *{flags!r}]
cli.run(example.main)
"""


def _run(example: str, *flags: str) -> subprocess.CompletedProcess:
  return subprocess.run(
      [sys.executable, "-m", f"open_spiel_ext.examples.{example}", *flags],
      capture_output=True, text=True, timeout=300)


def _run_interrupted(example: str, module: str, function: str, at: int,
                     *flags: str) -> subprocess.CompletedProcess:
  """`example` with a SIGINT sent at the `at`-th call of module.function."""
  code = _INTERRUPTED_RUN.format(module=module, function=function, at=at,
                                 example=example, flags=list(flags))
  return subprocess.run([sys.executable, "-c", code], capture_output=True,
                        text=True, timeout=300)


def test_puzzle_test_set_goes_on_after_an_interruption(tmp_path):
  settings = ["--puzzle=sliding_puzzle", "--size=3", "--count=5", "--seed=2"]
  interrupted = tmp_path / "interrupted.json"
  stopped = _run_interrupted(
      "puzzle_test_set", "open_spiel_ext.experiments.puzzle_references.instances",
      "optimal_solution", 3, *settings, f"--output={interrupted}")
  assert stopped.returncode == 130, stopped.stderr
  assert not interrupted.exists()
  assert (tmp_path / "interrupted.json.progress").exists()

  resumed = _run("puzzle_test_set", *settings, f"--output={interrupted}")
  assert resumed.returncode == 0, resumed.stderr
  assert "resuming: 2 instances already solved" in resumed.stdout
  assert resumed.stdout.count("optimal length") == 3  # Only those left.
  assert not (tmp_path / "interrupted.json.progress").exists()
  never_stopped = tmp_path / "never_stopped.json"
  _run("puzzle_test_set", *settings, f"--output={never_stopped}")
  assert json.loads(interrupted.read_text()) == json.loads(
      never_stopped.read_text())


def test_puzzle_test_set_refuses_another_runs_progress(tmp_path):
  output = tmp_path / "set.json"
  _run_interrupted(
      "puzzle_test_set", "open_spiel_ext.experiments.puzzle_references.instances",
      "optimal_solution", 2, "--puzzle=sliding_puzzle", "--size=3",
      "--count=3", "--seed=2", f"--output={output}")
  other = _run("puzzle_test_set", "--puzzle=sliding_puzzle", "--size=3",
               "--count=3", "--seed=7", f"--output={output}")
  assert other.returncode == 2
  assert "seed=7 here, 2 in the checkpoint" in other.stderr
  assert "Traceback" not in other.stderr


def test_sokoban_levels_go_on_after_an_interruption(tmp_path):
  settings = ["--num_levels=6", "--rows=8", "--cols=8", "--boxes=2",
              "--reverse_steps=100", "--seed=4"]
  interrupted = tmp_path / "interrupted.txt"
  stopped = _run_interrupted(
      "generate_sokoban_levels", "open_spiel_ext.games.puzzles."
      "sokoban_generator", "generate_level", 3, *settings,
      f"--output={interrupted}")
  assert stopped.returncode == 130, stopped.stderr
  assert not interrupted.exists()

  resumed = _run("generate_sokoban_levels", *settings,
                 f"--output={interrupted}")
  assert resumed.returncode == 0, resumed.stderr
  # The level being made when Ctrl-C came was finished and kept.
  assert "resuming: 3 levels already made" in resumed.stdout
  never_stopped = tmp_path / "never_stopped.txt"
  _run("generate_sokoban_levels", *settings, f"--output={never_stopped}")
  assert interrupted.read_text() == never_stopped.read_text()
  assert interrupted.read_text().count("; ") == 6


def test_stratego_eval_goes_on_from_the_matches_played(tmp_path):
  settings = ["--bots=random,heuristic,scout", "--games=4",
              "--ply_limit=40"]
  interrupted = tmp_path / "interrupted"
  stopped = _run_interrupted(
      "stratego_eval", "open_spiel_ext.algorithms.stratego.arena", "play", 2,
      *settings, f"--output_dir={interrupted}")
  assert stopped.returncode == 130, stopped.stderr
  assert len((interrupted / "matches.jsonl").read_text().splitlines()) == 1

  resumed = _run("stratego_eval", *settings, f"--output_dir={interrupted}")
  assert resumed.returncode == 0, resumed.stderr
  assert "resuming: 1 matches already played" in resumed.stdout
  assert resumed.stdout.count(" games\n") == 2  # The two matches left.
  never_stopped = tmp_path / "never_stopped"
  _run("stratego_eval", *settings, f"--output_dir={never_stopped}")
  assert json.loads((interrupted / "stratego_eval.json").read_text()) == (
      json.loads((never_stopped / "stratego_eval.json").read_text()))

  other = _run("stratego_eval", "--bots=random,heuristic,scout",
               "--games=6", "--ply_limit=40", f"--output_dir={interrupted}")
  assert other.returncode == 2
  assert "games=4 there, 6 here" in other.stderr
