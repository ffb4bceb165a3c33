"""Pytest setup: the tests import the source tree they sit in (pytest.ini puts
the repository root first on sys.path; the examples' subprocesses and the
executors' workers get it through PYTHONPATH), whether the package is
installed with `pip install .`, `pip install -e .` or not at all; the tests and
the workers they spawn share a JAX compilation cache."""

import os

import pytest

import open_spiel_ext
from open_spiel_ext.algorithms.rl import learner as learner_lib

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

if os.path.dirname(os.path.abspath(open_spiel_ext.__file__)) != os.path.join(
    REPO_ROOT, "open_spiel_ext"):
  raise RuntimeError(
      f"the tests imported open_spiel_ext from {open_spiel_ext.__file__}, not "
      f"from the repository at {REPO_ROOT}: run `pytest` from the repository "
      "root")

os.environ["PYTHONPATH"] = os.pathsep.join(
    [REPO_ROOT] + [path for path in os.environ.get("PYTHONPATH", "").split(
        os.pathsep) if path])


@pytest.fixture(autouse=True, scope="session")
def _share_jax_compilations(tmp_path_factory):
  """The test processes (one per xdist worker) and the worker processes
  their tests spawn (they inherit the environment) keep their JAX
  compilations in one cache for the run, so that the same training step
  built again (by another learner, test, worker or resumed run) is loaded,
  not compiled again."""
  run_directory = tmp_path_factory.getbasetemp()
  if os.environ.get("PYTEST_XDIST_WORKER"):
    run_directory = run_directory.parent  # Shared by the run's workers.
  cache = run_directory / "jax_cache"
  cache.mkdir(exist_ok=True)
  os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", str(cache))
  os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "1")
  learner_lib.share_compilations(os.environ["JAX_COMPILATION_CACHE_DIR"])
