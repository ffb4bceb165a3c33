"""The files of an export (`open_spiel_ext/upstream/writing.py`), checked
against the installed OpenSpiel.

Every candidate's module is exported once into a temporary tree. Then, in
processes that never import the plugin (both register the same short names):
the exported absltest runs, with `from open_spiel.python.games import
<module>` finding the exported file (the tree's games folder is added to
`open_spiel.python.games.__path__`); and each exported playthrough replays
with OpenSpiel's `generate_playthrough.replay` to the same lines. Here, the
plugin's own playthroughs of the same game strings and seed equal the
exported ones, so the exported games play exactly as the plugin's.
"""

import ast
import functools
import io
import os
import re
import subprocess
import sys

import pytest

from open_spiel.python.algorithms import generate_playthrough
from open_spiel_ext import upstream

try:
  # pylint: disable=g-import-not-at-top
  from pyflakes import api as pyflakes_api
  from pyflakes import reporter as pyflakes_reporter
  # pylint: enable=g-import-not-at-top
except ImportError:  # pyflakes checks the modules where it is installed.
  pyflakes_api = pyflakes_reporter = None

# Exported module -> the first of its games.
MODULES = {}
for _name in upstream.candidates():
  MODULES.setdefault(upstream.module_name(_name), _name)

# Runs an exported test file as OpenSpiel would, finding the exported module
# among OpenSpiel's games.
_RUN_TEST = """\
import runpy, sys
from open_spiel.python import games
games.__path__.append(sys.argv[1])
path = sys.argv[2]
sys.argv = [path]
try:
  runpy.run_path(path, run_name="__main__")
finally:
  if "open_spiel_ext" in sys.modules:
    sys.exit("the plugin was imported")
"""

# Replays playthroughs as OpenSpiel's playthrough_test does, after importing
# the exported module.
_REPLAY = """\
import importlib, os, sys
from absl import flags
from open_spiel.python import games
games.__path__.append(sys.argv[1])
importlib.import_module("open_spiel.python.games." + sys.argv[2])
from open_spiel.python.algorithms import generate_playthrough
flags.FLAGS.mark_as_parsed()  # replay reads one of OpenSpiel's flags.
for path in sys.argv[3:]:
  original, regenerated = generate_playthrough.replay(path)
  for number, (old, new) in enumerate(
      zip(original.split("\\n"), regenerated.split("\\n")), 1):
    if old != new:
      sys.exit(f"{path}:{number}: {old!r} != {new!r}")
  if original != regenerated:
    sys.exit(f"{path}: the replay has other lines after line {number}")
  print("replayed", os.path.basename(path))
if "open_spiel_ext" in sys.modules:
  sys.exit("the plugin was imported")
"""


class _Exports:
  """Each module exported once, on first use, under one temporary root."""

  def __init__(self, root: str):
    self.root = root

  @functools.lru_cache(maxsize=None)
  def get(self, module: str) -> upstream.Export:
    export = upstream.export(MODULES[module])
    export.write(self.root)
    return export

  def path(self, *parts: str) -> str:
    return os.path.join(self.root, *parts)


@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> _Exports:
  return _Exports(str(tmp_path_factory.mktemp("upstream")))


def _in_openspiel(exports: _Exports, script: str,
                  *args: str) -> subprocess.CompletedProcess:
  """Runs `script` in the export's root, with OpenSpiel installed but neither
  the plugin imported nor its source tree on the path."""
  return subprocess.run(
      [sys.executable, "-c", script, *args], capture_output=True, text=True,
      timeout=300, check=False, cwd=exports.root,
      env=upstream.openspiel_environment())


def _source(exports: _Exports, module: str) -> str:
  exports.get(module)
  with open(exports.path(upstream.GAMES_DIR, f"{module}.py"),
            encoding="utf-8") as f:
    return f.read()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_the_exported_test_passes_on_openspiel(exports, module):
  exports.get(module)
  games = exports.path(upstream.GAMES_DIR)
  result = _in_openspiel(exports, _RUN_TEST, games,
                         os.path.join(games, f"{module}_test.py"))
  assert result.returncode == 0, result.stderr[-3000:]
  ran = int(re.search(r"Ran (\d+) tests", result.stderr).group(1))
  game_strings = {game for name in upstream.family(MODULES[module])
                  for game in (name, upstream.ENTRIES[name].playthrough)}
  assert ran >= 4 * len(game_strings)  # Four tests per game string.
  assert result.stderr.rstrip().endswith("OK")


@pytest.mark.parametrize("module", sorted(MODULES))
def test_the_playthroughs_replay_on_openspiel(exports, module):
  export = exports.get(module)
  paths = [exports.path(path) for path in export.files
           if path.startswith(upstream.PLAYTHROUGH_DIR)]
  assert len(paths) == len(export.short_names)
  result = _in_openspiel(exports, _REPLAY, exports.path(upstream.GAMES_DIR),
                         module, *paths)
  assert result.returncode == 0, result.stderr[-3000:]
  assert result.stdout.count("replayed ") == len(paths)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_the_exported_games_play_as_the_plugins(exports, module):
  export = exports.get(module)
  for name in export.short_names:
    game_string = upstream.ENTRIES[name].playthrough
    path = os.path.join(upstream.PLAYTHROUGH_DIR, f"{game_string}.txt")
    assert path in export.files
    assert export.files[path].startswith(f"game: {game_string}\n")
    ours = generate_playthrough.playthrough(game_string, None,
                                            seed=upstream.PLAYTHROUGH_SEED)
    assert export.files[path] == ours, game_string


def _imports(source: str) -> list[str]:
  names = []
  for node in ast.walk(ast.parse(source)):
    if isinstance(node, ast.Import):
      names += [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
      names.append("." * node.level + (node.module or ""))
  return names


def _allowed(name: str) -> bool:
  root = name.split(".")[0]
  return (root in ("pyspiel", "numpy") or root in sys.stdlib_module_names or
          name == "open_spiel.python" or name.startswith("open_spiel.python."))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_the_exported_module_is_self_contained(exports, module):
  source = _source(exports, module)
  imports = _imports(source)
  assert "pyspiel" in imports
  assert all(_allowed(name) for name in imports), imports
  assert "open_spiel_ext" not in source
  assert not re.search(r"\bjax\b", source)
  assert source.startswith("# Copyright 2019 DeepMind Technologies Limited\n")
  assert "Apache License, Version 2.0" in source
  registered = re.findall(r"^pyspiel\.register_game\(", source, re.M)
  assert len(registered) == len(upstream.family(MODULES[module]))
  assert "registry" not in source
  if pyflakes_api is not None:  # No undefined names, no unused imports.
    out = io.StringIO()
    pyflakes_api.check(source, f"{module}.py",
                       pyflakes_reporter.Reporter(out, out))
    assert not out.getvalue(), out.getvalue()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_the_exported_test_imports_the_game_as_upstream(exports, module):
  exports.get(module)
  with open(exports.path(upstream.GAMES_DIR, f"{module}_test.py"),
            encoding="utf-8") as f:
    test = f.read()
  assert f"from open_spiel.python.games import {module}" in test
  assert "from absl.testing import absltest" in test
  assert "pyspiel.random_sim_test(" in test
  assert all(_allowed(name) or name.startswith("absl")
             for name in _imports(test))


def test_the_changes_say_what_goes_where(exports):
  export = exports.get("k_gmp")
  with open(exports.path(upstream.CHANGES_DIR, "k_gmp.md"),
            encoding="utf-8") as f:
    changes = f.read()
  assert "from open_spiel.python.games import k_gmp" in changes
  assert "games/k_gmp_test.py" in changes
  for name in ("k_gmp", "perturbed_k_gmp", "clone_gmp"):
    assert f'"{name}",' in changes
  rows = [line.strip() for line in changes.splitlines()
          if line.strip().startswith("🔶")]
  assert len(rows) == len(export.short_names) == 3
  for row in rows:  # Status, game, players, deterministic, perfect, text.
    cells = [cell.strip() for cell in row.split(" | ")]
    assert len(cells) == 6
    assert cells[2] == "2" and cells[3] == "❌" and cells[4] == "❌"
    assert "arxiv.org/abs/2103.06426" in cells[5]


def test_rows_follow_openspiels_columns():
  row = upstream.games_md_row("sokoban")
  cells = row.split(" | ")
  assert [len(cell) for cell in cells[:5]] == [70, 94, 7, 14, 12]
  assert [cell.strip() for cell in cells[2:5]] == ["1", "✅", "✅"]
