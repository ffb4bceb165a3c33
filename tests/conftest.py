"""Pytest setup: the tests run against the installed package, never the
sources; spawned workers share a JAX compilation cache."""

import os
import sys

import pytest

import open_spiel_ext

_REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

if os.path.abspath(open_spiel_ext.__file__).startswith(
    os.path.join(_REPO_ROOT, "open_spiel_ext")):
  sys.exit("Tests must import the installed open_spiel_ext, not the source "
           "folder: install it with `pip install .` and run `pytest` (not "
           "`python -m pytest`, which puts the repository on sys.path).")


@pytest.fixture(autouse=True, scope="session")
def _share_jax_compilations_with_workers(tmp_path_factory):
  """Worker processes the tests spawn (they inherit the environment) keep
  their JAX compilations in one cache for the session, so that each
  executor's workers do not compile the same training step again."""
  os.environ.setdefault("JAX_COMPILATION_CACHE_DIR",
                        str(tmp_path_factory.mktemp("jax_cache")))
  os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "1")
