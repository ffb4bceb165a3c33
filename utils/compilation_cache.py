"""JAX's persistent compilation cache, on by default, so that the programs an
example, a benchmark, a test or a worker process compiled once are loaded
from disk by the next process instead of compiled again.

The cache lives in the plugin's cache directory,
`$XDG_CACHE_HOME/open_spiel_ext/jax` (`~/.cache/open_spiel_ext/jax`), or
where the environment variable OPEN_SPIEL_EXT_JAX_CACHE says;
OPEN_SPIEL_EXT_JAX_CACHE=off turns it off, and it stays off under a JAX
older than 0.10.2 (`supported`). A cache JAX was already given
(JAX_COMPILATION_CACHE_DIR, `jax.config`) is left as it is. Every program
is written, however quickly it compiled (`MIN_COMPILE_SECONDS`): the main
job's 13 programs take 168 KB, and with JAX's default of 1 s the small ones
kept half a second of compiling in every warm run.

`cli.run` enables it for every example and benchmark, `tests/conftest.py`
for the test suite, and trainers that start worker processes enable it in
each worker (`enable(fallback)`: where the plugin's cache is off, those
workers still share their run's own cache).
"""

import os
from typing import Optional

import jax

ENVIRONMENT_VARIABLE = "OPEN_SPIEL_EXT_JAX_CACHE"
OFF = ("off", "0", "false", "no", "")
MIN_COMPILE_SECONDS = 0.0


def default_directory() -> Optional[str]:
  """The plugin's cache directory, or None where the environment turns the
  cache off."""
  value = os.environ.get(ENVIRONMENT_VARIABLE)
  if value is not None:
    return None if value.strip().lower() in OFF else os.path.expanduser(value)
  base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
      os.path.expanduser("~"), ".cache")
  return os.path.join(base, "open_spiel_ext", "jax")


def supported() -> bool:
  """Whether this JAX loads cached CPU programs quietly: from 0.9.0 to
  0.10.1 (measured here), jaxlib's XLA:CPU loader logged a false
  machine-type mismatch ("could lead to execution errors such as SIGILL")
  on stderr for every program it loaded, on the machine that compiled it."""
  return tuple(int(part) for part in jax.__version__.split(".")[:3]
               if part.isdigit()) >= (0, 10, 2)


def enable(fallback: Optional[str] = None) -> Optional[str]:
  """Points this process's JAX at a persistent compilation cache: one JAX
  already has, else the plugin's (`default_directory`), else `fallback`
  (None: no cache; also where this JAX is not `supported`). Returns the
  directory in use, or None."""
  current = jax.config.jax_compilation_cache_dir
  if current:
    return current
  if not supported():
    return None
  directory = default_directory() or fallback
  if directory:
    os.makedirs(directory, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", directory)
    jax.config.update("jax_persistent_cache_min_compile_time_secs",
                      MIN_COMPILE_SECONDS)
  return directory
