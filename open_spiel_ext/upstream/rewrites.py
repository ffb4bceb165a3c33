"""What the export changes in a plugin module's text before it bundles it.

Module docstrings that speak of the plugin (its JAX engines, its registry, its
files) are replaced (`docstring`); phrases of kept code that name the plugin
are reworded (`REWORDINGS`); and top-level definitions are replaced by other
source (`OVERRIDES`). Sokoban's level file is inlined, compressed:
OpenSpiel's package ships only the Python files of open_spiel/python, so a
data file beside the module would be missing from its installs.
"""

import base64
import importlib.resources
import textwrap
import zlib
from typing import Optional

from open_spiel_ext.games.puzzles import sokoban

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

# Plugin module -> (text, replacement) of what its kept code says of the
# plugin (a text no longer there is skipped; `checks.check_module` still
# refuses what remains).
REWORDINGS = {
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
OVERRIDES = {
    "open_spiel_ext.games.puzzles.sokoban": {
        "shipped_levels": _inlined_sokoban_levels,
    },
}


def docstring(module: str, original: Optional[str]) -> str:
  """The docstring of the module exported from plugin module `module`, whose
  own is `original` (its source text, quotes included; None if it has
  none)."""
  if module in _DOCSTRINGS:
    return f'"""{_DOCSTRINGS[module]}\n"""'
  return original or f'"""Games of {module}."""'
