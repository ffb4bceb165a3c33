"""The second reliability sweep (issue 71): inputs a hostile new user tried.

Each input here failed before: a traceback, a silent wrong number, or a run
with no bound. Now every bad input to a program is one line on stderr naming
it, exit code 2; every bad argument to a library function a ValueError or
TypeError naming it; and every search bounded. (The stop signals are
tests/examples/stop_signals_test.py.)
"""

import os
import pathlib
import re
import subprocess
import sys
import time

import numpy as np
import pytest

import open_spiel_ext
from open_spiel_ext.algorithms import xdo
from open_spiel_ext.algorithms.hanabi import belief_model
from open_spiel_ext.algorithms.stratego import agents
from open_spiel_ext.algorithms.tree import cfr
from open_spiel_ext.algorithms.tree import game_tree
from open_spiel_ext.algorithms.tree import sweeps
from open_spiel_ext.experiments import cfr_timing
from open_spiel_ext.experiments import coop_runs
from open_spiel_ext.games import engines
from open_spiel_ext.utils import cli
import pyspiel

_ROOT = pathlib.Path(__file__).resolve().parents[2]
_HANABI = _ROOT / "algorithms" / "hanabi" / "weights"
_BELIEF = str(_HANABI / "small_rules_belief.npz")
_BLUEPRINT = str(_HANABI / "small_strong.npz")
_POPULATION = agents.shipped_path()
_CUBE = ("--puzzle=rubiks_cube", "--size=2")

# (program, its flags, what its one-line error says). "{tmp}" is a fresh
# folder of the test's own.
_BAD_INPUTS = {
    "empty variants, no C++": (
        "cfr", ["--game=kuhn_poker", "--variants=", "--noopenspiel_cpp"],
        "no solver to run"),
    "empty game": ("cfr", ["--game="], "the game string '' is empty"),
    "empty output folder": ("cfr", ["--output_dir="], "is empty"),
    "empty output file": ("puzzle_test_set", ["--output="], "is empty"),
    "belief model as a blueprint": (
        "hanabi_play", ["--preset=small", f"--blueprint={_BELIEF}",
                        "--games=1", "--output_dir={tmp}"],
        "is a Hanabi belief model file, not a Hanabi blueprint weights"),
    "blueprint as a belief model": (
        "hanabi_play", ["--preset=small", "--search=lbs",
                        f"--belief_model={_BLUEPRINT}", "--games=1",
                        "--output_dir={tmp}"],
        "is a Hanabi blueprint weights file, not a Hanabi belief model"),
    "Hanabi weights as a puzzle model": (
        "deepcubea_solve", [*_CUBE, f"--model={_BLUEPRINT}"],
        "is a Hanabi blueprint weights file, not a free-label puzzle model "
        "or DeepCubeA model file"),
    "Stratego population as a puzzle model": (
        "deepcubea_solve", [*_CUBE, f"--model={_POPULATION}"],
        "is a stratego population file"),
    "belief model to start DAVI from": (
        "deepcubea_train", [*_CUBE, f"--init_model={_BELIEF}",
                            "--output_dir={tmp}"],
        "is a Hanabi belief model file"),
    "widths below 1": (
        "deepcubea_train", [*_CUBE, "--hidden_sizes=0,-5",
                            "--output_dir={tmp}"],
        "need hidden_sizes >= 1"),
    "a folder where a result file goes": (
        "xdo", ["--game=kuhn_poker", "--output_dir={tmp}/with_folder"],
        "policy.json is a folder where a result file may be written"),
    "mirror folder that is a file": (
        "deepcubea_train", [*_CUBE, "--output_dir={tmp}/out",
                            "--mirror_dir={tmp}/a_file"],
        "a_file is a file, not a folder"),
    "a game too big to load": (
        "games_tour", ["--games=k_gmp(k=2000000000)"], "lower k or actions"),
}
# (MODULE argument of `python -m open_spiel_ext`, what its error says).
_NOT_RUNNABLE = {
    "library module": ("open_spiel.python.policy", "is a library module"),
    "package": ("open_spiel.python", "is a package with no __main__"),
    "missing script": ("no_such_script.py", "no file 'no_such_script.py'"),
}


def _prepared(tmp_path: pathlib.Path, flags: list[str]) -> list[str]:
  (tmp_path / "with_folder" / "policy.json").mkdir(parents=True)
  (tmp_path / "a_file").write_text("not a folder")
  return [flag.replace("{tmp}", str(tmp_path)) for flag in flags]


def _assert_one_line(result: subprocess.CompletedProcess, program: str,
                     says: str) -> None:
  assert result.returncode == cli.USAGE_ERROR_EXIT_CODE, result.stderr[-3000:]
  assert "Traceback" not in result.stderr, result.stderr[-3000:]
  last = result.stderr.strip().splitlines()[-1]
  assert last.startswith(f"{program}: error: ") and says in last, last


@pytest.mark.parametrize("case", _BAD_INPUTS)
def test_a_bad_input_is_one_line_and_exit_code_2(case, tmp_path):
  program, flags, says = _BAD_INPUTS[case]
  result = subprocess.run(
      [sys.executable, "-m", f"open_spiel_ext.examples.{program}",
       *_prepared(tmp_path, flags)], capture_output=True, text=True,
      timeout=300, cwd=tmp_path)
  _assert_one_line(result, program, says)
  assert not (tmp_path / "metrics.jsonl").exists()  # Nothing in the cwd.


@pytest.mark.parametrize("case", _NOT_RUNNABLE)
def test_the_runner_refuses_what_cannot_run(case, tmp_path):
  module, says = _NOT_RUNNABLE[case]
  result = subprocess.run([sys.executable, "-m", "open_spiel_ext", module],
                          capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
  assert result.returncode == 2 and "Traceback" not in result.stderr
  assert result.stderr.startswith("open_spiel_ext: error: ")
  assert says in result.stderr.splitlines()[0]


@pytest.fixture(name="kuhn", scope="module")
def kuhn_fixture() -> sweeps.TreeSweeps:
  return sweeps.TreeSweeps(game_tree.build_tree(
      pyspiel.load_game("kuhn_poker")))


def _policies(legal: np.ndarray) -> dict[str, tuple[np.ndarray, str]]:
  uniform = legal / legal.sum(axis=1, keepdims=True)
  negative = uniform.copy()
  negative[0] = [1.5, -0.5]
  with_nan = uniform.copy()
  with_nan[3, 0] = np.nan
  return {
      "wrong shape": (np.full((2, 2), 0.5), "shape (2, 2)"),
      "all zero": (np.zeros_like(uniform), "do not sum to 1"),
      "negative": (negative, "a negative probability"),
      "unnormalised": (legal * 1.0, "do not sum to 1"),
      "not a number": (with_nan, "not a finite number"),
  }


@pytest.mark.parametrize("case", ["wrong shape", "all zero", "negative",
                                  "unnormalised", "not a number"])
def test_a_policy_that_is_no_distribution_is_refused(kuhn, case):
  policy, says = _policies(kuhn.tree.legal)[case]
  for measure in (kuhn.exploitability, kuhn.expected_value,
                  lambda p: kuhn.best_response(p, 0)):
    with pytest.raises(ValueError, match=re.escape(says)):
      measure(policy)


def test_cfr_runs_the_iterations_asked_and_no_negative_count(kuhn):
  points = list(cfr_timing.timed_runs(cfr_timing.ours(kuhn.tree.game, "cfr+"),
                                      10, iterations=5))
  assert [iteration for _, iteration, _ in points] == [5]
  points = list(cfr_timing.timed_runs(cfr_timing.ours(kuhn.tree.game, "cfr+"),
                                      10, iterations=25))
  assert [iteration for _, iteration, _ in points] == [10, 20, 25]
  solver = cfr.CFRSolver(kuhn)
  with pytest.raises(ValueError, match="cannot run -5 iterations"):
    solver.run(-5)
  with pytest.raises(TypeError, match="got 2.5"):
    solver.run(2.5)


@pytest.mark.parametrize("call,says", [
    (lambda: engines.make(None), "takes a pyspiel game or a game string"),
    (lambda: xdo.XDO("kuhn_poker"), "XDO takes a game's TreeSweeps"),
    (lambda: cfr.CFRSolver("kuhn_poker"), "CFRSolver takes a game's"),
    (lambda: game_tree.build_tree("kuhn_poker"), "takes a pyspiel game"),
    (lambda: open_spiel_ext.load_game(None), "takes a game string"),
], ids=["engines.make", "XDO", "CFRSolver", "build_tree", "load_game"])
def test_a_public_entry_point_names_the_type_it_takes(call, says):
  with pytest.raises(TypeError, match=says):
    call()


def test_an_empty_game_string_is_refused_by_name():
  with pytest.raises(ValueError, match="the game string '' is empty"):
    open_spiel_ext.load_game("")


def test_capi_counts_a_run_solved_at_the_games_best_value():
  """The default target was the maximum payoff, 3.0 on Tiny Hanabi A,
  whose best joint policy is worth 2.25: a solved run counted as unsolved.
  """
  assert coop_runs.default_target("tiny_hanabi_a") == 2.25
  assert coop_runs.default_target("tiny_hanabi_f") == pytest.approx(7 / 3)
  assert coop_runs.default_target("trade_comm") == 1.0  # Its maximum.


def test_a_loaded_file_of_another_kind_is_named():
  with pytest.raises(ValueError, match="is a stratego population file, not "
                     "a Hanabi belief model file"):
    belief_model.load(_POPULATION)


def test_the_solver_gives_up_at_its_time_bound(tmp_path):
  """BWAS on a 100-move cube used to search to 50 M nodes, unbounded."""
  began = time.monotonic()
  result = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.deepcubea_solve",
       "--puzzle=rubiks_cube", "--size=3", "--scramble=100",
       "--max_seconds=3"], capture_output=True, text=True, timeout=300,
      cwd=tmp_path)
  assert result.returncode == 1, result.stderr[-2000:]
  assert "no solution: time budget reached" in result.stdout
  assert time.monotonic() - began < 240  # Start-up and compiling included.
  assert not os.listdir(tmp_path)
