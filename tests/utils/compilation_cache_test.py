"""JAX's persistent compilation cache: where it goes, how it is turned off,
and that a second process loads what the first compiled."""

import os
import subprocess
import sys

import pytest

from open_spiel_ext.utils import compilation_cache

pytestmark = pytest.mark.skipif(
    not compilation_cache.supported(),
    reason="the cache stays off under this JAX (compilation_cache.supported)")

# Enables the cache as an example would (`fallback` given or not), compiles
# one program and prints the directory in use and the cache hits.
_PROGRAM = """
import sys
import jax
from open_spiel_ext.utils import compilation_cache
hits = []
jax.monitoring.register_event_listener(
    lambda event, **kwargs: hits.append(event)
    if event == "/jax/compilation_cache/cache_hits" else None)
print(compilation_cache.enable(sys.argv[1] or None))
jax.jit(lambda x: jax.numpy.sin(x) * 3.0 + x)(jax.numpy.ones(7)).block_until_ready()
print(len(hits))
"""


def _run(tmp_path, fallback="", **environment):
  env = {key: value for key, value in os.environ.items()
         if key not in ("JAX_COMPILATION_CACHE_DIR",
                        compilation_cache.ENVIRONMENT_VARIABLE,
                        "XDG_CACHE_HOME")}
  env.update(environment)
  result = subprocess.run([sys.executable, "-c", _PROGRAM, fallback],
                          capture_output=True, text=True, check=True,
                          env=env, cwd=tmp_path, timeout=120)
  directory, hits = result.stdout.split()
  return directory, int(hits)


def test_the_plugins_cache_is_on_by_default_and_a_second_process_hits_it(
    tmp_path):
  environment = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
  expected = str(tmp_path / "xdg" / "open_spiel_ext" / "jax")
  assert _run(tmp_path, **environment) == (expected, 0)
  written = os.listdir(expected)
  directory, hits = _run(tmp_path, **environment)
  # The programs the first process wrote (the jitted function and the ops
  # around it), loaded.
  assert directory == expected and 0 < hits <= len(written)


def test_the_environment_moves_or_turns_off_the_cache(tmp_path):
  moved = str(tmp_path / "moved")
  assert _run(tmp_path, OPEN_SPIEL_EXT_JAX_CACHE=moved)[0] == moved
  # Off: a trainer's own cache for its workers still applies, else none.
  run_cache = str(tmp_path / "run_cache")
  assert _run(tmp_path, run_cache,
              OPEN_SPIEL_EXT_JAX_CACHE="off")[0] == run_cache
  assert _run(tmp_path, OPEN_SPIEL_EXT_JAX_CACHE="off")[0] == "None"
  # A cache JAX was given stays.
  given = str(tmp_path / "given")
  assert _run(tmp_path, run_cache, JAX_COMPILATION_CACHE_DIR=given,
              OPEN_SPIEL_EXT_JAX_CACHE=moved)[0] == given
