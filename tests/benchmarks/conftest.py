"""What the benchmark scripts' end-to-end tests share: running a script or
module as a user does, and a tiny Stratego P2SRO run to measure."""

import os
import subprocess
import sys

import pytest

from open_spiel_ext.algorithms.deepcubea import free_labels
from open_spiel_ext.experiments import puzzle_recipes

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _run_python(*args: str) -> str:
  """`python ARGS` from the repository root; its stdout (it must succeed)."""
  return subprocess.run([sys.executable, *args], cwd=REPO_ROOT,
                        capture_output=True, text=True, check=True,
                        timeout=900).stdout


@pytest.fixture(name="run_python", scope="session")
def run_python_fixture():
  """`run_python(*args)`: runs `python ARGS` from the repository root and
  returns its stdout (it must succeed)."""
  return _run_python


@pytest.fixture(name="tiny_stratego_run", scope="session")
def tiny_stratego_run_fixture(tmp_path_factory):
  """The population/ folder of a P2SRO run on 30-ply Barrage Stratego with
  tiny networks, grown to 3 or more members (made once per session)."""
  directory = tmp_path_factory.mktemp("stratego_p2sro") / "run"
  _run_python("-m", "open_spiel_ext.examples.stratego_p2sro",
              "--game=barrage_stratego(ply_limit=30)", "--max_episodes=24",
              "--chunk_steps=24", "--min_steps=4", "--plateau_gain=10",
              "--num_envs=4", "--hidden_sizes=4,4", "--games_per_entry=4",
              "--entry_batch=4", "--eval_games=2", "--bots=random,scout",
              "--workers=1", f"--output_dir={directory}")
  return directory / "population"


@pytest.fixture(name="lights_out_3_model", scope="session")
def lights_out_3_model_fixture(tmp_path_factory):
  """A 3×3 Lights Out pressed-set model.npz that solves every board greedily
  and optimally (seconds of training; see free_labels_test.py)."""
  directory = tmp_path_factory.mktemp("lights_out_3")
  config = puzzle_recipes.replace(
      puzzle_recipes.free_label_config("lights_out", 3), walks=200,
      hidden_sizes=(128,), num_blocks=1)
  free_labels.train(config, free_labels.RunConfig(
      iterations=300, output_dir=str(directory), log_every=0, eval_every=0),
                    log=lambda line: None)
  return directory / free_labels.MODEL
