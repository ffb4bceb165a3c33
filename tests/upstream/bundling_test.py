"""The exported module, tree shaken from the plugin's modules
(`open_spiel_ext/upstream/bundling.py`)."""

import ast
import base64
import zlib

import open_spiel_ext
from open_spiel_ext import upstream
from open_spiel_ext.games.puzzles import sokoban
from open_spiel_ext.upstream import bundling


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
    probe = bundling.Bundle("open_spiel_ext.games.upstream_probe_main",
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
