"""The export of the plugin's games to OpenSpiel (`games/upstream.py`,
`examples/upstream.py`), checked against the installed OpenSpiel.

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
import base64
import functools
import io
import os
import re
import subprocess
import sys
import zlib

import pytest

import open_spiel_ext
from open_spiel.python.algorithms import generate_playthrough
from open_spiel_ext.games import upstream
from open_spiel_ext.games.puzzles import sokoban

try:
  # pylint: disable=g-import-not-at-top
  from pyflakes import api as pyflakes_api
  from pyflakes import reporter as pyflakes_reporter
  # pylint: enable=g-import-not-at-top
except ImportError:  # pyflakes checks the modules where it is installed.
  pyflakes_api = pyflakes_reporter = None

STRATEGO = ("stratego", "barrage_stratego")
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


def test_every_plugin_game_but_stratego_is_a_candidate():
  registered = set(open_spiel_ext.registered_games())
  assert set(STRATEGO) <= registered
  assert set(upstream.candidates()) == registered - set(STRATEGO)
  assert set(upstream.ENTRIES) == set(upstream.candidates())
  assert set(MODULES) == {
      "k_gmp", "lights_out", "loss_game", "rps_choice", "rubiks_cube",
      "sliding_puzzle", "sokoban", "tiny_hanabi_suite", "xdo_clone_leduc",
      "xdo_oshi_zumo"}


@pytest.mark.parametrize("name", STRATEGO)
def test_stratego_is_refused_for_copyright(name):
  with pytest.raises(ValueError, match="copyright.*#459 and #635"):
    upstream.export(name)


def test_the_example_refuses_stratego_in_one_line(tmp_path):
  result = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.upstream",
       "--game=barrage_stratego", f"--output_dir={tmp_path}"],
      capture_output=True, text=True, timeout=300, check=False)
  assert result.returncode == 2
  assert result.stderr.count("\n") == 1
  assert result.stderr.startswith("upstream: error: --game: barrage_stratego")
  assert "copyright" in result.stderr
  assert not list(tmp_path.iterdir())


def test_the_example_writes_and_lists_the_files(tmp_path):
  result = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.upstream",
       "--game=perturbed_k_gmp", f"--output_dir={tmp_path}"],
      capture_output=True, text=True, timeout=300, check=True)
  written = re.findall(r"wrote (.*)", result.stdout)
  assert sorted(written) == sorted(
      str(path) for path in tmp_path.rglob("*") if path.is_file())
  assert {os.path.relpath(path, tmp_path) for path in written} == {
      "open_spiel/python/games/k_gmp.py",
      "open_spiel/python/games/k_gmp_test.py",
      "open_spiel/integration_tests/playthroughs/k_gmp.txt",
      "open_spiel/integration_tests/playthroughs/perturbed_k_gmp.txt",
      "open_spiel/integration_tests/playthroughs/clone_gmp.txt",
      "CHANGES/k_gmp.md"}


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


def test_modules_with_several_games_export_them_together():
  assert upstream.family("perturbed_k_gmp") == ("clone_gmp", "k_gmp",
                                                "perturbed_k_gmp")
  assert upstream.module_name("clone_gmp") == "k_gmp"
  assert upstream.module_name("tiny_hanabi_c") == "tiny_hanabi_suite"
  assert upstream.family("tiny_hanabi_c") == tuple(
      f"tiny_hanabi_{letter}" for letter in "abcdef")
  assert upstream.module_name("xdo_oshi_zumo") == "xdo_oshi_zumo"


def _top_level_names(source: str) -> set[str]:
  names = set()
  for node in ast.parse(source).body:
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
      names.add(node.name)
    elif isinstance(node, ast.Assign):
      names.update(target.id for target in node.targets
                   if isinstance(target, ast.Name))
  return names


def test_tree_shaking_keeps_the_rules_and_drops_the_plugins_parts():
  names = _top_level_names(upstream.bundle("sokoban"))
  assert {"Sokoban", "SokobanGame", "PuzzleGame", "PuzzleState", "moves",
          "parse_level", "with_defaults"} <= names
  assert not names & {"BatchedSokoban", "BatchedPuzzle", "pulls",
                      "random_walk", "check_puzzle", "LEVEL_FILE"}
  leduc = upstream.bundle("xdo_clone_leduc")
  assert "register_clones" not in leduc and "_clones_of" not in leduc
  assert "pyspiel.register_game(_GAME_TYPE, CloneLeducGame)" in leduc


def test_sokobans_inlined_levels_are_the_shipped_ones():
  tree = ast.parse(upstream.bundle("sokoban"))
  value = next(node.value for node in tree.body
               if isinstance(node, ast.Assign) and
               ast.unparse(node.targets[0]) == "_LEVELS_ZLIB_BASE64")
  text = zlib.decompress(base64.b64decode(ast.literal_eval(value))).decode()
  assert sokoban.read_levels(text) == sokoban.shipped_levels()


def test_check_imports_refuses_what_openspiel_lacks():
  upstream.check_imports(
      "import functools\nimport numpy as np\n"
      "from open_spiel.python import observation\nimport pyspiel\n", "ok")
  for line, refused in (("import jax.numpy as jnp", "jax.numpy"),
                        ("from open_spiel_ext.games import registry",
                         "open_spiel_ext.games"),
                        ("from . import sibling", "."),
                        ("import scipy", "scipy")):
    with pytest.raises(ValueError,
                       match=rf"^my_game: imports {re.escape(refused)},"):
      upstream.check_imports(f"def f():\n  {line}\n", "my_game")


def test_continuation_lines_follow_their_bracket():
  text = ('x = helper.call("a",\n'
          '                "b")\n'
          'y = [f(1),\n'
          '     2]')
  renamed = upstream._realigned(text, [(1, 4, 15, "call"), (3, 5, 6, "gg")])
  assert renamed == ('x = call("a",\n'
                     '         "b")\n'
                     'y = [gg(1),\n'
                     '     2]')


_PROBE_HELPER = '''\
"""A helper module."""

LIMIT = 3


def check(value):
  return value < LIMIT
'''

_PROBE_MAIN = '''\
"""A game module."""

from open_spiel_ext.games import registry
from open_spiel_ext.games import upstream_probe_helper as helper
import pyspiel

LIMIT = 10
_GAME_TYPE = pyspiel.GameType  # Stands for a game type here.


def passes(check):
  return helper.check(check) and check < LIMIT


class ProbeGame(pyspiel.Game):

  def __init__(self, params=None):
    super().__init__(_GAME_TYPE, passes(params),
                     params)


def unused():
  return helper.LIMIT


registry.register(_GAME_TYPE, ProbeGame)
registry.register_clones("probe", None)
'''


def test_names_that_collide_are_renamed(tmp_path):
  """Read, never run: the probe's registration does not happen here."""
  (tmp_path / "upstream_probe_helper.py").write_text(_PROBE_HELPER)
  (tmp_path / "upstream_probe_main.py").write_text(_PROBE_MAIN)
  open_spiel_ext.games.__path__.append(str(tmp_path))
  try:
    probe = upstream._Bundle("open_spiel_ext.games.upstream_probe_main",
                             {"ProbeGame"})
    body = probe.body()
  finally:
    open_spiel_ext.games.__path__.remove(str(tmp_path))
  assert "_upstream_probe_helper_LIMIT = 3\n" in body
  assert "def _upstream_probe_helper_check(value):" in body
  assert "return value < _upstream_probe_helper_LIMIT" in body
  assert ("return _upstream_probe_helper_check(check) and check < LIMIT"
          in body)
  assert "def unused" not in body and "register" not in body
  assert probe.registration_lines() == [
      "pyspiel.register_game(_GAME_TYPE, ProbeGame)"]
