"""Pytest setup: the tests run against the installed package, never the
sources (except under `bazel test`, whose runfiles are the package the
BUILD file declares); the tests and the workers they spawn share a JAX
compilation cache."""

import os
import sys

import pytest

import open_spiel_ext
from open_spiel_ext.algorithms.rl import learner as learner_lib

_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_UNDER_BAZEL = "TEST_SRCDIR" in os.environ

if not _UNDER_BAZEL and os.path.abspath(open_spiel_ext.__file__).startswith(
    os.path.join(_REPO_ROOT, "open_spiel_ext")):
  sys.exit("Tests must import the installed open_spiel_ext, not the source "
           "folder: install it with `pip install .` and run `pytest` (not "
           "`python -m pytest`, which puts the repository on sys.path).")


@pytest.fixture(autouse=True, scope="session")
def _share_jax_compilations(tmp_path_factory):
  """This test process and the worker processes its tests spawn (they
  inherit the environment) keep their JAX compilations in one cache for the
  session, so that the same training step built again (by another learner,
  test, worker or resumed run) is loaded, not compiled again."""
  os.environ.setdefault("JAX_COMPILATION_CACHE_DIR",
                        str(tmp_path_factory.mktemp("jax_cache")))
  os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "1")
  learner_lib.share_compilations(os.environ["JAX_COMPILATION_CACHE_DIR"])
