"""Pytest setup: the tests import the source tree they sit in (pytest.ini puts
the repository root first on sys.path; the examples' subprocesses and the
executors' workers get it through PYTHONPATH), whether the package is
installed with `pip install .`, `pip install -e .` or not at all; the tests and
the workers they spawn share JAX's persistent compilation cache."""

import os

import pytest

import open_spiel_ext
from open_spiel_ext.utils import compilation_cache

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
  """The test processes (one per xdist worker) and the processes their
  tests spawn (they inherit the environment) keep their JAX compilations in
  the plugin's persistent cache (`utils/compilation_cache.py`), so that a
  program compiled once, in this run or an earlier one, is loaded, not
  compiled again; with OPEN_SPIEL_EXT_JAX_CACHE=off, in one cache for the
  run only."""
  run_directory = tmp_path_factory.getbasetemp()
  if os.environ.get("PYTEST_XDIST_WORKER"):
    run_directory = run_directory.parent  # Shared by the run's workers.
  directory = compilation_cache.enable(str(run_directory / "jax_cache"))
  if directory:  # None under a JAX the cache does not support.
    os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", directory)
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
                          str(compilation_cache.MIN_COMPILE_SECONDS))
