"""Exports a plugin game as a contribution to OpenSpiel, in OpenSpiel's layout.

OpenSpiel's developer guide ("Adding a game", for Python games) asks for a
module and its test under open_spiel/python/games/, an import in that folder's
__init__.py, the test in open_spiel/python/CMakeLists.txt, the short name in
the expected games of open_spiel/python/tests/pyspiel_test.py, a playthrough
under open_spiel/integration_tests/playthroughs/ and a row in docs/games.md.
`export(short_name)` makes all of them for the plugin module that registers
`short_name`, and `Export.write(output_dir)` writes them under output_dir:

- open_spiel/python/games/<module>.py: the game, self-contained: it imports
  only pyspiel, numpy, the standard library and open_spiel.python;
- open_spiel/python/games/<module>_test.py: its absltest, which imports the
  game as `from open_spiel.python.games import <module>`;
- open_spiel/integration_tests/playthroughs/<game string>.txt: one per game,
  made by OpenSpiel's `generate_playthrough` from the exported module, in a
  process that never imports the plugin (both register the same short names,
  and pyspiel refuses a second registration);
- CHANGES/<module>.md: the lines to add to open_spiel/python/games/__init__.py,
  open_spiel/python/CMakeLists.txt, open_spiel/python/tests/pyspiel_test.py
  and docs/games.md, each under the file it goes in.

One exported module per plugin module: exporting any of k_gmp,
perturbed_k_gmp and clone_gmp writes k_gmp.py, which registers all three (as
OpenSpiel's pokerkit_wrapper.py registers two games), and any game of the
Tiny Hanabi Suite writes tiny_hanabi_suite.py with the six; a module of one
game is named after it. Stratego is no candidate (`DECLINED`).

`bundle` builds the module by tree shaking: it parses the plugin module and
the plugin modules it imports (`ast`), starts from the registrations of its
games and keeps only the top-level statements they need, transitively
(so the JAX engines, `registry.register_clones` and other plugin bookkeeping
fall away), copies each kept statement's source text with its comments,
writes `helper.name` as a plain name (renamed where it would collide), and
replaces the registrations by `pyspiel.register_game(...)` at the end. The
result is compiled and refused (ValueError naming the module) if it imports
anything but the above (`check_imports`) or still speaks of the plugin.
Sokoban's level file is inlined, compressed (`_inlined_sokoban_levels`):
OpenSpiel's package ships only the Python files of open_spiel/python, so a
data file beside the module would be missing from its installs.
"""

import ast
import base64
import builtins
import collections
import copy
import dataclasses
import functools
import importlib.resources
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import tokenize
import zlib
from typing import Iterator, Optional

import pyspiel

from open_spiel_ext.games import registry
from open_spiel_ext.games.puzzles import sokoban

_STRATEGO_REASON = ("OpenSpiel declined Stratego for copyright reasons "
                    "(open_spiel issues #459 and #635)")
DECLINED = {"stratego": _STRATEGO_REASON, "barrage_stratego": _STRATEGO_REASON}
PLAYTHROUGH_SEED = 1234
GAMES_DIR = os.path.join("open_spiel", "python", "games")
PLAYTHROUGH_DIR = os.path.join("open_spiel", "integration_tests",
                               "playthroughs")
CHANGES_DIR = "CHANGES"

# OpenSpiel's header, as its Python games have it (all of them, including
# those added this year, keep the year 2019).
LICENSE_HEADER = """\
# Copyright 2019 DeepMind Technologies Limited
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""

_XDO = ("[McAleer et al. '21, XDO: A Double Oracle Algorithm for "
        "Extensive-Form Games](https://arxiv.org/abs/2103.06426)")
_TINY_HANABI = ("[Sokota et al. '21, Solving Common-Payoff Games with "
                "Approximate Policy Iteration]"
                "(https://arxiv.org/abs/2101.04237)")
_DEEPCUBEA = ("[Agostinelli et al. '19, Solving the Rubik's cube with deep "
              "reinforcement learning and search]"
              "(https://doi.org/10.1038/s42256-019-0070-z)")


@dataclasses.dataclass(frozen=True)
class Entry:
  """What OpenSpiel's files say of one game besides its code.

  Attributes:
    playthrough: the game string its playthrough plays: the defaults, unless
      they make a long file.
    title: its name in the Game column of docs/games.md (Markdown).
    description: the Description column, references included.
  """
  playthrough: str
  title: str
  description: str


def _tiny_hanabi(letter: str, shape: str) -> Entry:
  return Entry(
      f"tiny_hanabi_{letter}", f"Tiny Hanabi Suite game {letter.upper()}",
      f"Game {letter.upper()} of the Tiny Hanabi Suite ({shape}): OpenSpiel's "
      "`tiny_hanabi` with the suite's cards, actions and common payoffs. "
      f"References: {_TINY_HANABI}.")


ENTRIES = {
    "xdo_clone_leduc": Entry(
        "xdo_clone_leduc", "Clone Leduc poker",
        "Leduc poker with every fold/call/raise duplicated `clones` times; "
        "information states are Leduc's, histories grow with every cloned "
        f"decision (PSRO's pure strategies explode). References: {_XDO}."),
    "k_gmp": Entry(
        "k_gmp", "k Generalized Matching Pennies",
        "Chance picks one of `k` generalized matching pennies games (both "
        "players see it), then both move simultaneously (player 1 does not "
        f"see player 0's move). References: {_XDO}."),
    "perturbed_k_gmp": Entry(
        "perturbed_k_gmp", "Perturbed k Generalized Matching Pennies",
        "k Generalized Matching Pennies whose matching payoffs get seeded "
        "perturbations from (−1, 1), so each subgame has its own equilibrium. "
        f"References: {_XDO}."),
    "clone_gmp": Entry(
        "clone_gmp", "(k, m)-Clone Generalized Matching Pennies",
        "k Generalized Matching Pennies with `clones` copies of each of "
        f"`classes` actions; actions match when their classes do. References: "
        f"{_XDO}."),
    "rps_choice": Entry(
        "rps_choice", "Choice of Rock-Paper-Scissors games",
        "Player 0 picks one of `games` rock-paper-scissors games, then both "
        "play it simultaneously; player 1 has 3^`games` pure strategies, hard "
        f"for PSRO. References: {_XDO}."),
    "xdo_oshi_zumo": Entry(
        "xdo_oshi_zumo", "Turn-based Oshi-Zumo (XDO)",
        "OpenSpiel's `oshi_zumo` made turn-based, with an information-state "
        f"tensor and named presets of larger variants. References: {_XDO}."),
    "loss_game": Entry(
        "loss_game(bins=3,moves=2)", "Loss Game",
        "Both players move a point `x` in R^2 (or R^16) at once for `moves` "
        "steps on a grid of `bins` values per coordinate; player 0 earns "
        f"L(x) each step, player 1 −L(x). References: {_XDO} (NXDO)."),
    "tiny_hanabi_a": _tiny_hanabi("a", "2 cards, 2 actions"),
    "tiny_hanabi_b": _tiny_hanabi("b", "2 cards, 2 actions"),
    "tiny_hanabi_c": _tiny_hanabi("c", "2 cards, 2 actions"),
    "tiny_hanabi_d": _tiny_hanabi("d", "2 cards, 2 actions"),
    "tiny_hanabi_e": _tiny_hanabi("e", "2 cards, 3 actions"),
    "tiny_hanabi_f": _tiny_hanabi("f", "3 cards, 2 actions"),
    "lights_out": Entry(
        "lights_out(max_length=12)",
        "[Lights Out](https://en.wikipedia.org/wiki/Lights_Out_\\(game\\))",
        "Pressing a light toggles it and its neighbours; turn every light "
        "off. Starts from seeded random presses or a given board; reward −1 "
        f"per move. References: {_DEEPCUBEA}."),
    "rubiks_cube": Entry(
        "rubiks_cube(max_length=3,scramble_moves=5,seed=1)",
        "[Rubik's Cube](https://en.wikipedia.org/wiki/Rubik%27s_Cube)",
        "The 3×3×3 or 2×2×2 cube in the quarter-turn metric, from a seeded "
        f"scramble or a given position; reward −1 per move. References: "
        f"{_DEEPCUBEA}."),
    "sliding_puzzle": Entry(
        "sliding_puzzle(max_length=8,scramble_moves=6,seed=2,size=3)",
        "[Sliding puzzle](https://en.wikipedia.org/wiki/15_puzzle)",
        "The 8- to 48-puzzle: slide tiles into the blank to order them, from "
        "a seeded scramble or a given tray; reward −1 per move. References: "
        f"{_DEEPCUBEA}."),
    "sokoban": Entry(
        "sokoban(max_length=6)",
        "[Sokoban](https://en.wikipedia.org/wiki/Sokoban)",
        "Push every box onto a goal; 1,000 built-in 10×10 levels made by "
        "reverse play, or any level in the Boxoban notation; reward −1 per "
        f"move. References: {_DEEPCUBEA}."),
}

# Exported module names that are neither the game's nor the plugin module's.
_MODULE_NAMES = {"open_spiel_ext.games.tiny_hanabi": "tiny_hanabi_suite"}

_PUZZLE_GAME = """
As a pyspiel game: one player, deterministic, perfect information; reward −1
per move, the return is minus the number of moves; terminal at the goal,
after `max_length` moves, or where no move is legal. The observation tensor is
DeepCubeA's encoding of the state, the observation string its notation, and
the information-state string the moves made so far.

One of the puzzles of DeepCubeA: Agostinelli et al., "Solving the Rubik's
cube with deep reinforcement learning and search", Nature Machine
Intelligence 2019, https://doi.org/10.1038/s42256-019-0070-z."""

# Module docstrings replacing the plugin's where those speak of the plugin
# (its JAX engines, its registry, its files).
_DOCSTRINGS = {
    "open_spiel_ext.games.clone_leduc": """\
Clone Leduc poker: Leduc poker with every player action duplicated.

Every fold/call/raise of Leduc poker is duplicated `clones` times: action id
`a` is base action `a % 3` (0 fold, 1 call, 2 raise) played through clone
`a // 3`. Chance outcomes are Leduc's. Clones are indistinguishable to both
players, so information-state and observation strings and tensors are exactly
Leduc's (936 information states for any number of clones), while the number of
histories grows with every cloned decision (9,457 for one clone, 468,517 for
two). The rules are OpenSpiel's C++ `leduc_poker` state, held by each state.

The game where PSRO's pure strategies explode in McAleer et al., "XDO: A
Double Oracle Algorithm for Extensive-Form Games", NeurIPS 2021,
https://arxiv.org/abs/2103.06426.""",
    "open_spiel_ext.games.loss_game": """\
The Loss Game of the NXDO experiments, with binned actions.

Two players steer a point `x` in R^dims for `moves` steps. Each step both
choose a move at once, the sum of the two moves is added to `x`, and player 0
receives `L(x)` and player 1 `−L(x)`. Both observe `x` and `L(x)`. Two
variants, chosen by `dims`:

- dims=2: an action is a direction and a magnitude; the move is the step
  `alpha · magnitude` at the angle `2π · direction`, and
  `L(x) = sin x1 + sin x2`.
- dims=16: an action moves every coordinate by at most `max_move`, and
  `L(x) = sin(Σ xj) + Σ sin(xj) / 16`.

The game `loss_game(dims, bins, moves, alpha, max_move)` is simultaneous, with
`bins**dims` actions: the grid of `bins` evenly spaced values in [−1, 1] per
coordinate (action `a` is the grid point whose coordinate j has index digit j
of `a` in base `bins`, coordinate 0 the most significant). For dims=2 the two
values, mapped onto [0, 1], are the direction and the magnitude; for dims=16
value j times `max_move` is the move of coordinate j. Load it as
`turn_based_simultaneous_game(game=loss_game(...))` for methods that need
turns.

Information states are perfect recall (the string lists the player's own
actions and every point seen); the information-state tensor is the Markov
state that decides the rest of the game: the steps taken (one-hot), `x` and
`L(x)`. Observations are that state.

From McAleer et al., "XDO: A Double Oracle Algorithm for Extensive-Form
Games", NeurIPS 2021, https://arxiv.org/abs/2103.06426.""",
    "open_spiel_ext.games.puzzles.lights_out": """\
Lights Out, a one-player puzzle.

A size×size board of lights. Pressing light i toggles it and its orthogonal
neighbours; the goal is every light off. A state is `size²` values 0/1 in
reading order; pressing is XOR with row i of `toggle_table(size)`.

Notation: rows of `0`/`1` joined by `/`, top row first ("010/111/010").
Actions are the squares pressed, named by row and column (`r2c3`, 1-based).

Game: `lights_out(size=7, scramble_moves=20, seed=0, state="",
max_length=1000)`: the initial board is the goal after `scramble_moves`
seeded random presses, unless `state` gives one; the observation tensor is
the size² lights.
""" + _PUZZLE_GAME,
    "open_spiel_ext.games.puzzles.rubiks_cube": """\
Rubik's cube (3×3×3 and 2×2×2), a one-player puzzle.

A state is the colour of every sticker: 6·size² values in 0..5, faces in the
order U R F D L B and each face's stickers in reading order as seen from
outside in the usual net (U with B above it, D with F above it, the side faces
upright). Colour k is the colour of face k when solved.

Moves are the 12 quarter turns U U' D D' L L' R R' B B' F F' (action 2k is a
clockwise turn of a face seen from outside, action 2k+1 its inverse); half
turns are two moves (the quarter-turn metric). Every move is a sticker
permutation, `state[move_permutations(size)[a]]`, computed once from the
stickers' 3-D positions.

Goal: on 3×3×3 the solved cube in the standard orientation (centres never
move). The 2×2×2 has no centres, so its orientation is not a property of a
position: it is solved when every face shows one colour, in any of the 24
whole-cube orientations.

Notation: the six faces' colours as letters URFDLB, faces joined by `/` in
the order U R F D L B ("UUUUUUUUU/RRRRRRRRR/..." is solved); only positions
of a real cube are accepted.

Game: `rubiks_cube(size=3, scramble_moves=20, seed=0, state="",
max_length=1000)`: the initial cube is the goal after `scramble_moves` seeded
random moves, unless `state` gives one; the observation tensor is one-hot,
[6·size², 6].
""" + _PUZZLE_GAME,
    "open_spiel_ext.games.puzzles.sliding_puzzle": """\
Sliding n-puzzles (8, 15, 24, 35, 48), one-player puzzles.

A size×size tray with tiles 1..size²−1 and a blank (0). A state is the tile
on each cell in reading order; the goal is 1..size²−1 in reading order with
the blank last. Actions move the blank up, down, left or right (U D L R),
sliding the neighbouring tile into the hole; a move off the tray is not a
legal action. `blank_targets(size)[cell, action]` is the move table: the cell
the blank moves to, or −1.

Notation: rows of space-separated numbers joined by `/`, blank 0
("1 2 3/4 5 6/7 8 0" is the solved 8-puzzle). Only solvable arrangements are
accepted (the parity of the permutation, and on even widths the blank's row,
must match the goal's).

Game: `sliding_puzzle(size=4, scramble_moves=20, seed=0, state="",
max_length=1000)`: the initial tray is the goal after `scramble_moves` seeded
random moves, unless `state` gives one; the observation tensor is one-hot,
[size², size²]: row c is the tile on cell c.
""" + _PUZZLE_GAME,
    "open_spiel_ext.games.puzzles.sokoban": """\
Sokoban, a one-player puzzle: push-only box puzzles in the Boxoban format.

A state is one int8 per cell of a rows×cols board (10×10 for the built-in
levels), a sum of the bits WALL, GOAL, BOX and PLAYER, so that one array
carries the level (walls, goals) and the position (boxes, player). Actions
move the player up, down, left or right (U D L R) onto a free cell, or push a
box one cell on when the cell behind it is free; boxes are never pulled, so
deadlocks exist. Solved when every box is on a goal. Off the board counts as
wall.

Notation: Boxoban's characters (`#` wall, ` ` floor, `.` goal, `$` box,
`*` box on goal, `@` player, `+` player on goal), rows joined by `/`.

Game: `sokoban(level=0, state="", max_length=500)`: `level` numbers one of
the built-in levels (1,000 10×10 levels with 4 boxes, made by reverse play
from solved positions, so each can be solved; they are inlined below,
compressed, as the module ships without data files), `state` gives a level
instead. The observation tensor is 4 planes (wall, goal, box, player) of
rows×cols.
""" + _PUZZLE_GAME,
}

# Words a module's text must not contain: it is OpenSpiel's now.
_PLUGIN_MENTIONS = re.compile(
    r"open_spiel_ext|\bjax\b|\bjnp\b|\bbatched|\bregistry\.|\bengines?\b")

# Plugin module -> (text, replacement) of what its kept code says of the
# plugin (a text no longer there is skipped; the check above still runs).
_REWORDINGS = {
    "open_spiel_ext.games.loss_game": (
        ("`xp` is numpy or jax.numpy.", "`xp` is numpy, or a module like it."),
        ('f"here may have; use fewer bins, or the continuous environment of "'
         '\n        f"games/batched_loss_game.py")',
         '"here may have; use fewer bins")'),
    ),
}


def _inlined_sokoban_levels() -> str:
  """Source replacing `sokoban.shipped_levels`: the level file, inlined."""
  text = importlib.resources.files(sokoban.__package__).joinpath(
      "data", sokoban.LEVEL_FILE).read_text()
  blob = base64.b64encode(zlib.compress(text.encode(), 9)).decode()
  if zlib.decompress(base64.b64decode(blob)).decode() != text:
    raise AssertionError("the compressed levels do not decompress to the file")
  count = len(sokoban.read_levels(text))
  chunks = "\n".join(f'    "{chunk}"' for chunk in textwrap.wrap(blob, 72))
  return f'''\
import base64
import zlib

# The {count:,} built-in levels (`level` numbers them) in the Boxoban format
# ("; n" lines, then the rows), zlib-compressed and base64-encoded.
_LEVELS_ZLIB_BASE64 = (
{chunks})


@functools.lru_cache(maxsize=None)
def shipped_levels() -> tuple[str, ...]:
  """The built-in levels, in the notation (rows joined by `/`)."""
  text = zlib.decompress(base64.b64decode(_LEVELS_ZLIB_BASE64)).decode()
  return read_levels(text)
'''


# Plugin module -> {top-level name: source replacing its definition}.
_OVERRIDES = {
    "open_spiel_ext.games.puzzles.sokoban": {
        "shipped_levels": _inlined_sokoban_levels,
    },
}

# Exported module -> extra test methods for its absltest.
_EXTRA_TESTS = {
    "sokoban": """\
  def test_built_in_levels(self):
    \"\"\"The inlined levels are all there, and the last one loads.\"\"\"
    levels = sokoban.shipped_levels()
    self.assertLen(levels, {count})
    game = pyspiel.load_game(f"sokoban(level={{len(levels) - 1}})")
    self.assertEqual(str(game.new_initial_state()), levels[-1])
""",
}


# ---------------------------------------------------------------------------
# Which games, in which module.


def candidates() -> list[str]:
  """The short names of the plugin's games that may go to OpenSpiel."""
  return [name for name in registry.registered_games() if name not in DECLINED]


def check_candidate(short_name: str) -> None:
  """Raises ValueError, saying why, unless `short_name` is a candidate."""
  if short_name in DECLINED:
    raise ValueError(f"{short_name} is not exported: {DECLINED[short_name]}")
  if short_name not in candidates():
    raise ValueError(f"{short_name!r} is not one of the plugin's games; the "
                     f"candidates are {', '.join(candidates())}")


@functools.lru_cache(maxsize=None)
def _game_class(short_name: str) -> type:
  return type(pyspiel.load_game(short_name))


def family(short_name: str) -> tuple[str, ...]:
  """The candidates registered by the plugin module that registers
  `short_name` (they are exported together), sorted."""
  check_candidate(short_name)
  source = _game_class(short_name).__module__
  return tuple(name for name in candidates()
               if _game_class(name).__module__ == source)


def module_name(short_name: str) -> str:
  """The name of the exported module holding `short_name`."""
  names = family(short_name)
  source = _game_class(short_name).__module__
  if source in _MODULE_NAMES:
    return _MODULE_NAMES[source]
  return names[0] if len(names) == 1 else source.rsplit(".", 1)[1]


# ---------------------------------------------------------------------------
# Reading the plugin's modules.


@dataclasses.dataclass(frozen=True)
class _Import:
  """An import of something outside the plugin, under its local name."""
  module: str
  name: Optional[str] = None  # `from module import name`, else `import module`
  asname: Optional[str] = None

  def line(self) -> str:
    alias = f" as {self.asname}" if self.asname else ""
    if self.name is None:
      return f"import {self.module}{alias}"
    return f"from {self.module} import {self.name}{alias}"


def _is_plugin(module: str) -> bool:
  return module == "open_spiel_ext" or module.startswith("open_spiel_ext.")


def _is_module(name: str) -> bool:
  try:
    return importlib.util.find_spec(name) is not None
  except ModuleNotFoundError:
    return False


def _is_docstring(node: ast.stmt) -> bool:
  return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
          and isinstance(node.value.value, str))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _scope_locals(body: list[ast.AST]) -> set[str]:
  """The names a block of statements binds in its own scope."""
  names, declared = set(), set()
  stack = list(body)
  while stack:
    node = stack.pop()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
      names.add(node.name)
      continue
    if isinstance(node, _SCOPES):
      continue
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
      names.add(node.id)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
      names.update((alias.asname or alias.name).split(".")[0]
                   for alias in node.names)
    elif isinstance(node, ast.ExceptHandler) and node.name:
      names.add(node.name)
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
      declared.update(node.names)
    stack.extend(ast.iter_child_nodes(node))
  return names - declared


def _arguments(args: ast.arguments) -> list[ast.arg]:
  return (args.posonlyargs + args.args + args.kwonlyargs +
          [arg for arg in (args.vararg, args.kwarg) if arg])


class _Sites(ast.NodeVisitor):
  """The references of one top-level statement to module-level names.

  `names`: Name nodes of module-level names (or builtins), bindings at the top
  level included; `attributes`: `helper.name` nodes, `helper` a plugin module;
  `definitions`: the statement itself if it is a def or class; `strings`:
  string annotations with their parsed expressions, whose references are in
  `names` and `attributes` too (flagged in `in_string`). Each site keeps the
  local names visible where it is (`visible`).
  """

  def __init__(self, helpers: dict[str, str]):
    self._helpers = helpers
    self._scopes: list[tuple[set[str], bool]] = []
    self._in_string = False
    self.names: list[ast.Name] = []
    self.attributes: list[ast.Attribute] = []
    self.definitions: list[ast.stmt] = []
    self.strings: list[tuple[ast.Constant, ast.expr]] = []
    self.in_string: set[int] = set()
    self.visible: dict[int, set[str]] = {}

  def _visible_locals(self) -> set[str]:
    visible = set()
    for depth, (names, is_class) in enumerate(reversed(self._scopes)):
      if not is_class or depth == 0:  # Class scopes reach their body only.
        visible |= names
    return visible

  def _record(self, node: ast.AST, into: list) -> None:
    into.append(node)
    self.visible[id(node)] = self._visible_locals()
    if self._in_string:
      self.in_string.add(id(node))

  def _in_scope(self, names: set[str], body: list[ast.AST],
                is_class: bool = False) -> None:
    self._scopes.append((names, is_class))
    for node in body:
      self.visit(node)
    self._scopes.pop()

  def _annotation(self, node: Optional[ast.expr]) -> None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
      parsed = ast.parse(node.value, mode="eval").body
      self.strings.append((node, parsed))
      self._in_string = True
      self.visit(parsed)
      self._in_string = False
    elif node is not None:
      self.visit(node)

  def _arguments(self, args: ast.arguments) -> None:
    for default in args.defaults + [d for d in args.kw_defaults if d]:
      self.visit(default)
    for arg in _arguments(args):
      self._annotation(arg.annotation)

  def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
    if not self._scopes:
      self.definitions.append(node)
    for decorator in node.decorator_list:
      self.visit(decorator)
    self._arguments(node.args)
    self._annotation(node.returns)
    names = {arg.arg for arg in _arguments(node.args)}
    self._in_scope(names | _scope_locals(node.body), node.body)

  visit_AsyncFunctionDef = visit_FunctionDef

  def visit_Lambda(self, node: ast.Lambda) -> None:
    self._arguments(node.args)
    self._in_scope({arg.arg for arg in _arguments(node.args)}, [node.body])

  def visit_ClassDef(self, node: ast.ClassDef) -> None:
    if not self._scopes:
      self.definitions.append(node)
    for child in node.decorator_list + node.bases + [
        keyword.value for keyword in node.keywords]:
      self.visit(child)
    self._in_scope(_scope_locals(node.body), node.body, is_class=True)

  def _comprehension(self, node: ast.AST) -> None:
    generators = node.generators
    self.visit(generators[0].iter)  # Evaluated in the enclosing scope.
    targets = {name.id for generator in generators
               for name in ast.walk(generator.target)
               if isinstance(name, ast.Name)}
    inner = [generators[0].target] + generators[0].ifs
    for generator in generators[1:]:
      inner += [generator.target, generator.iter] + generator.ifs
    if isinstance(node, ast.DictComp):
      inner += [node.key, node.value]
    else:
      inner.append(node.elt)
    self._in_scope(targets, inner)

  visit_ListComp = visit_SetComp = visit_DictComp = _comprehension
  visit_GeneratorExp = _comprehension

  def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
    self.visit(node.target)
    self._annotation(node.annotation)
    if node.value is not None:
      self.visit(node.value)

  def visit_Name(self, node: ast.Name) -> None:
    if node.id not in self._visible_locals():
      self._record(node, self.names)

  def visit_Attribute(self, node: ast.Attribute) -> None:
    value = node.value
    if (isinstance(value, ast.Name) and value.id in self._helpers and
        value.id not in self._visible_locals()):
      self._record(node, self.attributes)
    else:
      self.generic_visit(node)


@dataclasses.dataclass
class _Statement:
  """A top-level statement: its node, the names it binds, its lines (1-based,
  leading comments and decorators included), and its references."""
  node: ast.stmt
  binds: frozenset[str]
  first_line: int
  last_line: int
  sites: Optional[_Sites] = None


def _top_level_binds(node: ast.stmt) -> frozenset[str]:
  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
    return frozenset([node.name])
  return frozenset(_scope_locals([node]))


def _splice(text: str, overrides: dict[str, str]) -> str:
  """`text` with the top-level definitions named in `overrides` replaced."""
  lines = text.splitlines()
  tree = ast.parse(text)
  for node in reversed(tree.body):
    names = _top_level_binds(node)
    replaced = [name for name in overrides if name in names]
    if replaced:
      first = min([node.lineno] + [decorator.lineno for decorator in
                                   getattr(node, "decorator_list", [])])
      lines[first - 1:node.end_lineno] = overrides[replaced[0]].splitlines()
  return "\n".join(lines) + "\n"


class _Module:
  """One plugin module, parsed: its imports and top-level statements."""

  def __init__(self, name: str):
    self.name = name
    with open(importlib.util.find_spec(name).origin, encoding="utf-8") as f:
      text = f.read()  # Read, not imported: nothing of it runs here.
    for old, new in _REWORDINGS.get(name, ()):
      text = text.replace(old, new)
    overrides = {key: make() for key, make in _OVERRIDES.get(name, {}).items()}
    if overrides:
      text = _splice(text, overrides)
    self.lines = text.splitlines()
    tree = ast.parse(text, filename=name)
    self.docstring: Optional[str] = None
    body = tree.body
    if body and _is_docstring(body[0]):
      self.docstring = "\n".join(
          self.lines[body[0].lineno - 1:body[0].end_lineno])
      body = body[1:]
    self.helpers: dict[str, str] = {}  # Alias -> plugin module.
    self.imported: dict[str, tuple[str, str]] = {}  # Alias -> (module, name).
    self.imports: dict[str, _Import] = {}  # Alias -> import of the rest.
    self.statements: list[_Statement] = []
    self.bindings: dict[str, int] = {}  # Name -> index in `statements`.
    for node in body:
      if isinstance(node, (ast.Import, ast.ImportFrom)):
        self._add_import(node)
      else:
        self._add_statement(node)

  def _add_import(self, node: ast.stmt) -> None:
    if isinstance(node, ast.ImportFrom):
      if node.level:
        raise ValueError(f"{self.name}: relative imports are not supported")
      for alias in node.names:
        local = alias.asname or alias.name
        full = f"{node.module}.{alias.name}"
        if not _is_plugin(node.module):
          self.imports[local] = _Import(node.module, alias.name, alias.asname)
        elif _is_module(full):
          self.helpers[local] = full
        else:
          self.imported[local] = (node.module, alias.name)
      return
    for alias in node.names:
      if _is_plugin(alias.name):
        if not alias.asname:
          raise ValueError(f"{self.name}: `import {alias.name}` is not "
                           "supported; import the module by name")
        self.helpers[alias.asname] = alias.name
      else:
        local = alias.asname or alias.name.split(".")[0]
        self.imports[local] = _Import(alias.name, None, alias.asname)

  def _add_statement(self, node: ast.stmt) -> None:
    first = min([node.lineno] + [decorator.lineno for decorator in
                                 getattr(node, "decorator_list", [])])
    while first > 1 and self.lines[first - 2].lstrip().startswith("#"):
      first -= 1
    statement = _Statement(node, _top_level_binds(node), first,
                           node.end_lineno)
    if self.statements and (self.statements[-1].last_line >= first):
      raise ValueError(f"{self.name}:{node.lineno}: one statement per line, "
                       "please")
    sites = _Sites(self.helpers)
    sites.visit(node)
    statement.sites = sites
    for name in statement.binds:
      self.bindings[name] = len(self.statements)
    self.statements.append(statement)

  def text(self, statement: _Statement) -> str:
    return "\n".join(self.lines[statement.first_line - 1:statement.last_line])


@functools.lru_cache(maxsize=None)
def _module(name: str) -> _Module:
  return _Module(name)


# ---------------------------------------------------------------------------
# Registrations.


def _substitute(node: ast.expr, mapping: dict[str, ast.expr],
                only_mapped: bool = False) -> ast.expr:
  """A copy of `node` with the names in `mapping` replaced; with
  `only_mapped`, ValueError if it names anything else."""

  class Substitute(ast.NodeTransformer):

    def visit_Name(self, name: ast.Name) -> ast.expr:
      if name.id in mapping:
        return copy.deepcopy(mapping[name.id])
      if only_mapped:
        raise ValueError(f"a registration helper names {name.id}, which is "
                         "none of its parameters")
      return name

  return Substitute().visit(copy.deepcopy(node))


def _call_target(module: _Module,
                 func: ast.expr) -> Optional[tuple[str, str]]:
  """(module, name) of the function a top-level call calls, if known."""
  if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and
      func.value.id in module.helpers):
    return module.helpers[func.value.id], func.attr
  if isinstance(func, ast.Name):
    if func.id in module.imported:
      return module.imported[func.id]
    if func.id in module.bindings:
      return module.name, func.id
  return None


def _call_registrations(
    module: _Module,
    call: ast.Call) -> Optional[list[tuple[ast.expr, ast.expr]]]:
  """The (game type, game class) expressions a call registers, or None.

  `registry.register(T, C)` and `pyspiel.register_game(T, C)` register
  (T, C); so does a call of a function whose body is one such call on its
  parameters (`single_player.register`).
  """
  func = call.func
  if call.keywords:
    return None
  if (isinstance(func, ast.Attribute) and func.attr == "register_game" and
      isinstance(func.value, ast.Name) and
      module.imports.get(func.value.id) == _Import("pyspiel")):
    return [(call.args[0], call.args[1])]
  target = _call_target(module, func)
  if target is None:
    return None
  owner, name = target
  if owner == registry.__name__ and name == "register":
    if len(call.args) != 2:
      raise ValueError(f"{module.name}: registry.register takes a game type "
                       "and a class")
    return [(call.args[0], call.args[1])]
  helper = _module(owner)
  if name not in helper.bindings:
    return None
  definition = helper.statements[helper.bindings[name]].node
  if not isinstance(definition, ast.FunctionDef):
    return None
  body = [node for node in definition.body if not _is_docstring(node)]
  if len(body) != 1 or not isinstance(body[0], ast.Expr) or not isinstance(
      body[0].value, ast.Call):
    return None
  inner = _call_registrations(helper, body[0].value)
  if inner is None:
    return None
  params = dict(zip((arg.arg for arg in definition.args.args), call.args))
  return [(_substitute(game_type, params, only_mapped=True),
           _substitute(game_class, params, only_mapped=True))
          for game_type, game_class in inner]


def _registrations(
    module: _Module,
    statement: _Statement) -> Optional[list[tuple[ast.expr, ast.expr]]]:
  """What a top-level statement registers: a registration call, or a for
  loop over classes whose body is registrations; None if neither."""
  node = statement.node
  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
    return _call_registrations(module, node.value)
  if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name) and
          isinstance(node.iter, (ast.Tuple, ast.List)) and not node.orelse):
    return None
  inner = []
  for child in node.body:
    if not (isinstance(child, ast.Expr) and isinstance(child.value, ast.Call)):
      return None
    found = _call_registrations(module, child.value)
    if found is None:
      return None
    inner += found
  return [(_substitute(game_type, {node.target.id: element}),
           _substitute(game_class, {node.target.id: element}))
          for element in node.iter.elts for game_type, game_class in inner]


def _is_bookkeeping(module: _Module, statement: _Statement) -> bool:
  """Whether a top-level statement only calls into the plugin (registering
  other games, `registry.register_clones`): it is dropped."""
  node = statement.node
  if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
    return False
  target = _call_target(module, node.value.func)
  return target is not None and target[0] != module.name


# ---------------------------------------------------------------------------
# The bundle.


def _char_column(line: str, byte_column: int) -> int:
  return len(line.encode("utf-8")[:byte_column].decode("utf-8"))


def _realigned(text: str,
               replacements: list[tuple[int, int, int, str]]) -> str:
  """`text` with (row, start, end, new) replacements (1-based rows, columns
  in characters, one row each), continuation lines that were aligned with an
  opening bracket moved with it."""
  lines = text.split("\n")
  opener = {}  # Row -> the innermost bracket open at its start.
  in_string = set()
  stack, next_row = [], 1
  for token in tokenize.generate_tokens(io.StringIO(text + "\n").readline):
    while next_row <= token.start[0]:
      opener[next_row] = stack[-1] if stack else None
      next_row += 1
    if token.type == tokenize.OP and token.string in "([{":
      stack.append(token.start)
    elif token.type == tokenize.OP and token.string in ")]}":
      stack.pop()
    if token.end[0] > token.start[0]:
      in_string.update(range(token.start[0] + 1, token.end[0] + 1))
      next_row = max(next_row, token.end[0] + 1)
  by_row = collections.defaultdict(list)
  for row, start, end, new in replacements:
    by_row[row].append((start, end, new))
  shifts = {}  # Row -> (indent shift, [(end column, growth)]).

  def new_column(row: int, column: int) -> int:
    indent, growths = shifts[row]
    return column + indent + sum(g for end, g in growths if end <= column)

  result = []
  for row, line in enumerate(lines, 1):
    indent = 0
    bracket = opener.get(row)
    old_indent = len(line) - len(line.lstrip(" "))
    if (bracket and row not in in_string and line.strip() and
        old_indent == bracket[1] + 1 and bracket[0] in shifts):
      indent = max(new_column(*bracket) + 1, 0) - old_indent
    growths = []
    pieces, last = [], 0
    for start, end, new in sorted(by_row[row]):
      pieces += [line[last:start], new]
      last = end
      growths.append((end, len(new) - (end - start)))
    line = "".join(pieces) + line[last:]
    shifts[row] = (indent, growths)
    result.append(" " * (old_indent + indent) + line[old_indent:]
                  if indent else line)
  return "\n".join(result)


class _Bundle:
  """The statements of the plugin modules that some games need."""

  def __init__(self, main: str, class_names: set[str]):
    self.main = _module(main)
    self.kept: dict[str, set[int]] = collections.defaultdict(set)
    self.imports: dict[str, _Import] = {"pyspiel": _Import("pyspiel")}
    self.registrations = []  # (game type expression, class name)
    roots = []
    for statement in self.main.statements:
      registered = _registrations(self.main, statement)
      for game_type, game_class in registered or []:
        if isinstance(game_class, ast.Name) and game_class.id in class_names:
          self.registrations.append((game_type, game_class.id))
          sites = _Sites(self.main.helpers)
          sites.visit(game_type)
          roots += self._references(self.main, sites)
          roots.append((self.main.name, game_class.id))
      if registered is None and not statement.binds and not _is_bookkeeping(
          self.main, statement):
        raise ValueError(f"{main}:{statement.node.lineno}: a top-level "
                         "statement that binds nothing and registers nothing")
    missing = class_names - {name for _, name in self.registrations}
    if missing:
      raise ValueError(f"{main} does not register {sorted(missing)}")
    self._keep(roots)
    self.order = self._module_order()
    self.out_names = self._out_names()

  def _references(self, module: _Module,
                  sites: _Sites) -> Iterator[tuple[str, str]]:
    for node in sites.names:
      yield module.name, node.id
    for node in sites.attributes:
      yield module.helpers[node.value.id], node.attr

  def resolve(self, owner: str, name: str) -> tuple[str, str]:
    """The module-level name a name of `owner` is, through plugin imports."""
    while name in _module(owner).imported:
      owner, name = _module(owner).imported[name]
    return owner, name

  def _keep(self, roots: list[tuple[str, str]]) -> None:
    queue, seen = list(roots), set()
    while queue:
      owner, name = self.resolve(*queue.pop())
      if (owner, name) in seen:
        continue
      seen.add((owner, name))
      module = _module(owner)
      if name in module.imports:
        known = self.imports.setdefault(name, module.imports[name])
        if known != module.imports[name]:
          raise ValueError(f"{owner} imports {module.imports[name].line()}, "
                           f"another module {known.line()}")
      elif name in module.helpers:
        raise ValueError(f"{owner} uses the module {name} as a value")
      elif name in module.bindings:
        index = module.bindings[name]
        if index not in self.kept[owner]:
          self.kept[owner].add(index)
          statement = module.statements[index]
          queue += self._references(module, statement.sites)
      elif not hasattr(builtins, name) and name not in ("__file__",
                                                        "__name__"):
        raise ValueError(f"{owner} uses {name}, which it does not define")

  def _module_order(self) -> list[str]:
    """The modules with kept statements, each after those it imports."""
    order, visiting = [], set()

    def visit(name: str) -> None:
      if name in order or name in visiting:
        return
      visiting.add(name)
      module = _module(name)
      for helper in sorted(set(module.helpers.values()) |
                           {owner for owner, _ in module.imported.values()}):
        visit(helper)
      if self.kept.get(name):
        order.append(name)

    visit(self.main.name)
    return order

  def _out_names(self) -> dict[tuple[str, str], str]:
    """The name of each kept binding in the bundle: its own, unless that
    collides with another module's, a builtin, or a local where it is used."""
    taken = set(self.imports)
    out = {}
    for owner in [self.main.name] + [m for m in self.order
                                     if m != self.main.name]:
      module = _module(owner)
      for index in sorted(self.kept[owner]):
        for name in module.statements[index].binds:
          new = name
          if owner != self.main.name and (new in taken or
                                          hasattr(builtins, new)):
            new = self._fresh(owner, name, taken)
          elif new in taken:
            raise ValueError(f"{owner} defines {name}, which the bundle "
                             "imports")
          taken.add(new)
          out[owner, name] = new
    for _ in range(10):
      clash = self._local_clash(out)
      if clash is None:
        return out
      out[clash] = self._fresh(clash[0], clash[1], set(out.values()) | taken)
    raise ValueError("cannot find names free of local clashes")

  @staticmethod
  def _fresh(owner: str, name: str, taken: set[str]) -> str:
    base = f"_{owner.rsplit('.', 1)[1]}_{name.lstrip('_')}"
    new, count = base, 1
    while new in taken:
      count += 1
      new = f"{base}{count}"
    return new

  def _local_clash(
      self, out: dict[tuple[str, str], str]) -> Optional[tuple[str, str]]:
    """A binding whose new name is a local where a reference uses it."""
    for owner, index, node, target in self.sites():
      new = out.get(target)
      written = node.id if isinstance(node, ast.Name) else None
      if new is not None and new != written and new in (
          _module(owner).statements[index].sites.visible[id(node)]):
        return target
    return None

  def sites(self) -> Iterator[tuple[str, int, ast.AST, tuple[str, str]]]:
    """(module, statement index, node, what it names) of every reference."""
    for owner in self.order:
      module = _module(owner)
      for index in sorted(self.kept[owner]):
        sites = module.statements[index].sites
        for node in sites.names:
          yield owner, index, node, self.resolve(owner, node.id)
        for node in sites.attributes:
          yield owner, index, node, self.resolve(module.helpers[node.value.id],
                                                 node.attr)

  def _rewrite_expression(self, owner: str, node: ast.expr) -> ast.expr:
    """`node` (of module `owner`, at its top level) with bundle names."""
    module = _module(owner)
    out = self.out_names

    class Rewrite(ast.NodeTransformer):

      def visit_Name(self, name: ast.Name) -> ast.expr:
        target = outer.resolve(owner, name.id)
        return ast.Name(out.get(target, name.id), name.ctx)

      def visit_Attribute(self, attribute: ast.Attribute) -> ast.expr:
        value = attribute.value
        if isinstance(value, ast.Name) and value.id in module.helpers:
          target = outer.resolve(module.helpers[value.id], attribute.attr)
          return ast.Name(out[target], attribute.ctx)
        return self.generic_visit(attribute)

    outer = self
    return Rewrite().visit(copy.deepcopy(node))

  def statement_text(self, owner: str, index: int) -> str:
    """A kept statement's source, its references renamed."""
    module = _module(owner)
    statement = module.statements[index]
    sites = statement.sites
    first = statement.first_line
    replacements = []

    def replace(node: ast.AST, new: str) -> None:
      if node.end_lineno != node.lineno:
        raise ValueError(f"{owner}:{node.lineno}: a name split over lines")
      line = module.lines[node.lineno - 1]
      replacements.append((node.lineno - first + 1,
                           _char_column(line, node.col_offset),
                           _char_column(line, node.end_col_offset), new))

    for node in sites.names:
      new = self.out_names.get(self.resolve(owner, node.id), node.id)
      if new != node.id and id(node) not in sites.in_string:
        replace(node, new)
    for node in sites.attributes:
      if id(node) not in sites.in_string:
        replace(node, self.out_names[self.resolve(
            module.helpers[node.value.id], node.attr)])
    for node in sites.definitions:
      new = self.out_names[owner, node.name]
      if new != node.name:
        line = module.lines[node.lineno - 1]
        match = re.compile(rf"(def|class)\s+({node.name})\b").search(
            line, _char_column(line, node.col_offset))
        replacements.append((node.lineno - first + 1, match.start(2),
                             match.end(2), new))
    for constant, parsed in sites.strings:
      new = ast.unparse(self._rewrite_expression(owner, parsed))
      if new != constant.value:
        replace(constant, json.dumps(new))
    return _realigned(module.text(statement), replacements)

  def registration_lines(self) -> list[str]:
    lines = []
    for game_type, class_name in self.registrations:
      type_text = ast.unparse(self._rewrite_expression(self.main.name,
                                                       game_type))
      line = f"pyspiel.register_game({type_text}, {class_name})"
      if len(line) > 80:
        line = (f"pyspiel.register_game({type_text},\n"
                f"{' ' * len('pyspiel.register_game(')}{class_name})")
      lines.append(line)
    return lines

  def body(self) -> str:
    """The kept statements, module by module, as source."""
    chunks = []
    for owner in self.order:
      module = _module(owner)
      previous = None
      for index in sorted(self.kept[owner]):
        if chunks:
          chunks.append(self._gap(module, previous, index))
        chunks.append(self.statement_text(owner, index))
        previous = index
    return "".join(chunks)

  @staticmethod
  def _gap(module: _Module, previous: Optional[int], index: int) -> str:
    """The blank lines before a statement: as in the module if it followed
    `previous` there, else one (two around definitions)."""
    statement = module.statements[index]
    definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    if previous is None:
      return "\n\n\n"
    before = module.statements[previous]
    if previous == index - 1:
      blank = statement.first_line - before.last_line - 1
      return "\n" * (blank + 1)
    if isinstance(statement.node, definitions) or isinstance(
        before.node, definitions):
      return "\n\n\n"
    return "\n\n"

  def import_lines(self) -> str:
    """The imports, in OpenSpiel's groups: the standard library, numpy, then
    OpenSpiel (open_spiel.python and pyspiel)."""
    groups = collections.defaultdict(dict)
    for spec in self.imports.values():
      root = spec.module.split(".")[0]
      group = (0 if root in sys.stdlib_module_names else
               2 if root in ("open_spiel", "pyspiel") else 1)
      key = (spec.module, spec.name is not None)
      groups[group].setdefault(key, []).append(spec)
    blocks = []
    for group in sorted(groups):
      lines = []
      for (module, is_from), specs in sorted(
          groups[group].items(), key=lambda item: item[0][0].lower()):
        if is_from and module == "typing":
          names = sorted(spec.name for spec in specs)
          lines.append(f"from typing import {', '.join(names)}")
        else:
          lines += sorted(spec.line() for spec in specs)
      blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def check_imports(source: str, module: str) -> None:
  """Raises ValueError naming `module` and the import, unless every import
  of `source` is of pyspiel, numpy, the standard library or
  open_spiel.python."""
  for node in ast.walk(ast.parse(source)):
    if isinstance(node, ast.Import):
      names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
      names = [("." * node.level) + (node.module or "")]
    else:
      continue
    for name in names:
      root = name.split(".")[0]
      if not (root in ("pyspiel", "numpy") or root in sys.stdlib_module_names
              or name == "open_spiel.python" or
              name.startswith("open_spiel.python.")):
        raise ValueError(f"{module}: imports {name}, which is not pyspiel, "
                         "numpy, the standard library or open_spiel.python")


def _docstring(main: _Module) -> str:
  if main.name in _DOCSTRINGS:
    return f'"""{_DOCSTRINGS[main.name]}\n"""'
  return main.docstring or f'"""Games of {main.name}."""'


def bundle(short_name: str) -> str:
  """The source of the exported module holding `short_name` (see the module
  docstring: the module's games, all that they need, nothing else).

  Raises:
    ValueError: `short_name` is no candidate, or the module cannot be made
      self-contained (the message says which module and why).
  """
  names = family(short_name)
  source_module = _game_class(short_name).__module__
  result = _Bundle(source_module,
                   {_game_class(name).__name__ for name in names})
  text = (f"{LICENSE_HEADER}\n{_docstring(result.main)}\n\n"
          f"{result.import_lines()}\n\n\n{result.body()}\n\n\n"
          + "\n".join(result.registration_lines()) + "\n")
  exported = module_name(short_name)
  compile(text, f"{exported}.py", "exec")
  check_imports(text, exported)
  mention = _PLUGIN_MENTIONS.search(text)
  if mention:
    line = text.count("\n", 0, mention.start()) + 1
    raise ValueError(f"{exported}.py line {line} mentions the plugin's "
                     f"{mention.group(0)}")
  return text


# ---------------------------------------------------------------------------
# The test, the playthroughs, and the lines for OpenSpiel's other files.


def _camel(name: str) -> str:
  return "".join(part.capitalize() for part in name.split("_"))


def _game_strings(names: tuple[str, ...]) -> list[str]:
  strings = []
  for name in names:
    for game_string in (name, ENTRIES[name].playthrough):
      if game_string not in strings:
        strings.append(game_string)
  return strings


def _game_info(game_string: str) -> dict[str, float]:
  game = pyspiel.load_game(game_string)
  return {
      "num_distinct_actions": game.num_distinct_actions(),
      "max_chance_outcomes": game.max_chance_outcomes(),
      "num_players": game.num_players(),
      "min_utility": game.min_utility(),
      "max_utility": game.max_utility(),
      "max_game_length": game.max_game_length(),
  }


_TEST_TEMPLATE = '''\
{header}
"""Tests for {module}.py."""

import pickle

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from open_spiel.python.games import {module}{unused}
import pyspiel

# Each game at its defaults, and as its playthrough plays it.
_GAME_STRINGS = [
{game_strings}]
# What GameInfo says of them.
_GAME_INFOS = {{
{game_infos}}}
_NUM_SIMS = 3


def _random_state(game, num_moves, seed=0):
  """The state after up to `num_moves` uniformly random moves."""
  rng = np.random.RandomState(seed)
  state = game.new_initial_state()
  for _ in range(num_moves):
    if state.is_terminal():
      break
    if state.is_chance_node():
      outcomes, probs = zip(*state.chance_outcomes())
      state.apply_action(int(rng.choice(outcomes, p=probs)))
    elif state.is_simultaneous_node():
      state.apply_actions([int(rng.choice(state.legal_actions(player)))
                           for player in range(game.num_players())])
    else:
      state.apply_action(int(rng.choice(state.legal_actions())))
  return state


class {test_class}(parameterized.TestCase):

  @parameterized.parameters(_GAME_STRINGS)
  def test_random_sim(self, game_string):
    """Runs our standard game tests, checking API consistency."""
    game = pyspiel.load_game(game_string)
    pyspiel.random_sim_test(game, num_sims=_NUM_SIMS, serialize=False,
                            verbose=False)

  @parameterized.parameters(_GAME_STRINGS)
  def test_game_info(self, game_string):
    game = pyspiel.load_game(game_string)
    info = _GAME_INFOS[game_string]
    self.assertEqual(game.num_distinct_actions(), info["num_distinct_actions"])
    self.assertEqual(game.max_chance_outcomes(), info["max_chance_outcomes"])
    self.assertEqual(game.num_players(), info["num_players"])
    self.assertEqual(game.min_utility(), info["min_utility"])
    self.assertEqual(game.max_utility(), info["max_utility"])
    self.assertEqual(game.max_game_length(), info["max_game_length"])

  @parameterized.parameters(_GAME_STRINGS)
  def test_pickle(self, game_string):
    game = pyspiel.load_game(game_string)
    state = _random_state(game, num_moves=3)
    self.assertEqual(str(pickle.loads(pickle.dumps(game))), str(game))
    restored = pickle.loads(pickle.dumps(state))
    self.assertEqual(restored.history(), state.history())
    self.assertEqual(str(restored), str(state))

  @parameterized.parameters(_GAME_STRINGS)
  def test_serialize_game_and_state(self, game_string):
    game = pyspiel.load_game(game_string)
    state = _random_state(game, num_moves=3)
    new_game, new_state = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(game, state))
    self.assertEqual(str(new_game), str(game))
    self.assertEqual(new_state.history(), state.history())
    self.assertEqual(str(new_state), str(state))
{extra_tests}

if __name__ == "__main__":
  absltest.main()
'''


def _extra_tests(module: str) -> str:
  if module != "sokoban":
    return ""
  return "\n" + _EXTRA_TESTS[module].format(
      count=len(sokoban.shipped_levels()))


def test_source(short_name: str) -> str:
  """The absltest of the exported module holding `short_name`."""
  module = module_name(short_name)
  strings = _game_strings(family(short_name))
  infos = "".join(
      f"    {json.dumps(s)}: {{\n" + "".join(
          f"        {json.dumps(key)}: {value!r},\n"
          for key, value in _game_info(s).items()) + "    },\n"
      for s in strings)
  extra = _extra_tests(module)
  return _TEST_TEMPLATE.format(
      header=LICENSE_HEADER, module=module,
      unused="" if extra else "  # pylint: disable=unused-import",
      game_strings="".join(f"    {json.dumps(s)},\n" for s in strings),
      game_infos=infos, test_class=f"{_camel(module)}Test",
      extra_tests=extra)


_PLAYTHROUGH_SCRIPT = """\
import importlib, json, sys
from open_spiel.python import games
games.__path__.insert(0, sys.argv[1])
importlib.import_module("open_spiel.python.games." + sys.argv[2])
from open_spiel.python.algorithms import generate_playthrough
texts = {game: generate_playthrough.playthrough(game, None,
                                               seed=int(sys.argv[4]))
         for game in json.loads(sys.argv[3])}
if "open_spiel_ext" in sys.modules:
  sys.exit("the plugin was imported")
json.dump(texts, sys.stdout)
"""


def openspiel_environment() -> dict[str, str]:
  """The environment of a process that must see OpenSpiel but not the
  plugin's source tree."""
  return {key: value for key, value in os.environ.items()
          if key != "PYTHONPATH"}


def playthroughs(module: str, source: str,
                 game_strings: list[str]) -> dict[str, str]:
  """Game string -> its playthrough, by OpenSpiel's generate_playthrough,
  with `PLAYTHROUGH_SEED`, in a process that imports the exported `source`
  as open_spiel.python.games.<module> and not the plugin."""
  with tempfile.TemporaryDirectory() as folder:
    with open(os.path.join(folder, f"{module}.py"), "w",
              encoding="utf-8") as f:
      f.write(source)
    result = subprocess.run(
        [sys.executable, "-c", _PLAYTHROUGH_SCRIPT, folder, module,
         json.dumps(game_strings), str(PLAYTHROUGH_SEED)],
        capture_output=True, text=True, cwd=folder, check=False,
        env=openspiel_environment())
  if result.returncode:
    raise RuntimeError(f"generating the playthroughs of {module} failed:\n"
                       f"{result.stderr[-3000:]}")
  return json.loads(result.stdout)


def playthrough_file(game_string: str) -> str:
  """The file name OpenSpiel gives a playthrough: the game string's."""
  if "/" in game_string:
    raise ValueError(f"{game_string}: a playthrough's game string makes its "
                     "file name, so it may not hold '/'")
  return f"{game_string}.txt"


def games_md_row(short_name: str) -> str:
  """The row of `short_name` for the table of OpenSpiel's docs/games.md."""
  game_type = pyspiel.load_game(short_name).get_type()
  low, high = game_type.min_num_players, game_type.max_num_players
  players = str(low) if low == high else f"{low}-{high}"
  deterministic = ("✅" if game_type.chance_mode ==
                   pyspiel.GameType.ChanceMode.DETERMINISTIC else "❌")
  perfect = ("✅" if game_type.information ==
             pyspiel.GameType.Information.PERFECT_INFORMATION else "❌")
  entry = ENTRIES[short_name]
  return (f"{'🔶':<70} | {entry.title:<94} | {players:<7} | "
          f"{deterministic:<14} | {perfect:<12} | {entry.description}")


_CHANGES_TEMPLATE = """\
# Contributing `{module}` to OpenSpiel

Written by `python -m open_spiel_ext.examples.upstream --game={short_name}`.
Copy this export's `open_spiel/` folder over an OpenSpiel checkout; it adds

{files}

Then make these edits, as OpenSpiel's developer guide ("Adding a game") asks:

1. `open_spiel/python/games/__init__.py`, among the imports (alphabetical):

   ```python
   from open_spiel.python.games import {module}
   ```

2. `open_spiel/python/CMakeLists.txt`, in `set(PYTHON_TESTS ...)` among the
   other `games/*_test.py`:

   ```
     games/{module}_test.py
   ```

3. `open_spiel/python/tests/pyspiel_test.py`, in `EXPECTED_MANDATORY_GAMES`
   (alphabetical):

   ```python
{short_names}
   ```

4. `docs/games.md`, in the table of games (alphabetical by game):

   ```
{rows}
   ```

Check with `python open_spiel/python/games/{module}_test.py` and
`python open_spiel/integration_tests/playthrough_test.py`. The playthroughs
were made with OpenSpiel's `generate_playthrough` and seed {seed};
`./open_spiel/scripts/generate_new_playthrough.sh GAME` makes new ones.
"""


@dataclasses.dataclass(frozen=True)
class Export:
  """The files of one exported module, by path relative to the output
  folder."""
  module: str
  short_names: tuple[str, ...]
  files: dict[str, str]

  def write(self, output_dir: str) -> list[str]:
    """Writes the files under `output_dir`; returns their paths."""
    written = []
    for relative, text in self.files.items():
      path = os.path.join(output_dir, relative)
      os.makedirs(os.path.dirname(path), exist_ok=True)
      with open(path, "w", encoding="utf-8") as f:
        f.write(text)
      written.append(path)
    return written


def export(short_name: str) -> Export:
  """Everything OpenSpiel needs for the module holding `short_name`.

  Raises:
    ValueError: `short_name` is no candidate (Stratego: declined upstream),
      or its module cannot be made self-contained.
  """
  names = family(short_name)
  module = module_name(short_name)
  source = bundle(short_name)
  files = {
      os.path.join(GAMES_DIR, f"{module}.py"): source,
      os.path.join(GAMES_DIR, f"{module}_test.py"): test_source(short_name),
  }
  texts = playthroughs(module, source,
                       [ENTRIES[name].playthrough for name in names])
  for game_string, text in texts.items():
    files[os.path.join(PLAYTHROUGH_DIR, playthrough_file(game_string))] = text
  listed = "\n".join(f"- `{path}`" for path in files)
  files[os.path.join(CHANGES_DIR, f"{module}.md")] = _CHANGES_TEMPLATE.format(
      module=module, short_name=short_name, files=listed,
      short_names="\n".join(f'       "{name}",' for name in names),
      rows="\n".join(f"   {games_md_row(name)}" for name in names),
      seed=PLAYTHROUGH_SEED)
  return Export(module, names, files)
