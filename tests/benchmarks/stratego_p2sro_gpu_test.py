"""The GPU P2SRO script for Barrage Stratego, run end to end at tiny scale
on the CPU (so that its first GPU run is its real one): interrupted at its
time limit, it leaves in $OUT a run the next call resumes and a population
that `play_stratego` plays."""

import os
import pickle
import shutil
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TINY = ["--game=barrage_stratego(ply_limit=30)", "--chunk_steps=4",
        "--min_steps=4", "--plateau_gain=10", "--num_envs=4",
        "--hidden_sizes=4,4", "--games_per_entry=4", "--eval_games=2",
        "--bots=random", "--workers=1"]


def _call(tmp_path, name, resume):
  """One device call: a fresh machine (its own run folder), $OUT empty."""
  out = tmp_path / name
  result = subprocess.run(
      ["bash", "benchmarks/stratego_p2sro_gpu.sh", *TINY], cwd=REPO_ROOT,
      env={**os.environ, "PYTHON": sys.executable, "MINUTES": "3",
           "OUT": str(out), "RUN_DIR": str(tmp_path / f"{name}_machine"),
           "RESUME_DIR": str(resume)},
      capture_output=True, text=True, check=True, timeout=600)
  return out, result.stdout


@pytest.mark.slow  # Two calls of 3 minutes (compiling, then rounds).
def test_the_script_leaves_a_run_to_resume_and_a_population_to_play(
    tmp_path):
  out, printed = _call(tmp_path, "first", tmp_path / "none")
  assert "fixed policy 1: payoff" in printed and "stopped after" in printed
  files = {os.path.relpath(os.path.join(d, f), out)
           for d, _, names in os.walk(out) for f in names}
  assert {"population/state.pkl", "metrics.jsonl", "bots.jsonl",
          "population.npz"} <= files
  assert len(files) <= 8 and all(f.count("/") <= 2 for f in files)
  carries = [f for f in files if f.startswith("population/learners/")]
  assert carries and all(  # Portable: no games in progress travel.
      pickle.loads((out / f).read_bytes())["tree"].env is None
      for f in carries)
  kept = tmp_path / "kept"  # As the closing lines of the script say.
  shutil.copytree(out, kept)
  rounds = len((out / "metrics.jsonl").read_text().splitlines())
  again, printed = _call(tmp_path, "second", kept)
  assert "resuming the run kept in" in printed
  assert printed.count("round    1 ") == 1  # Replayed, not played again.
  assert len((again / "metrics.jsonl").read_text().splitlines()) > rounds
  played = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.play_stratego",
       f"--bot={again / 'population.npz'}"], input="quit\n", cwd=REPO_ROOT,
      capture_output=True, text=True, timeout=300, check=True)
  assert "bye" in played.stdout
