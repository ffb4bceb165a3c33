"""Stratego's rules as data, shared by the pyspiel game and the batched engine.

Everything both engines must agree on lives here once: the board and its
lakes, the piece types and armies, the combat table, the placement order, the
action encoding and the board notation. `game.py` reads these tables with
Python scalars (one state at a time, as pyspiel asks); `batched.py` reads them
as arrays over a batch of boards.

Board: 10×10, square = 10·row + column; row 0 is player 0's back row, row 9
player 1's. Squares print as a column letter and a 1-based row: square 0 is
`a1`, square 99 is `j10`.

Actions (a fixed number per army, `Rules.num_distinct_actions`):
  * placement `type·100 + square` for `type < num_types`: put a piece of that
    type on that square;
  * move `num_types·100 + (from·4 + direction)·9 + (distance − 1)`, directions
    0: up (row + 1), 1: down, 2: left (column − 1), 3: right; distances 1–9.

Placement order: each player places its army in the order of `Rules.types`
(Spy first, Flag last), pieces of one type on increasing squares, so every
setup has exactly one placement sequence. Player 0 places all its pieces, then
player 1.

Rules against endless play:
  * two-square rule: a piece may not move back and forth between the same
    squares more than 3 times in a row (`MAX_BACK_AND_FORTH`; the
    International Stratego Federation's (ISF) tournament rules allow 5). A
    player's move continues its count when it starts on the square where the
    player's last move ended and goes back over the squares that move
    crossed, ending at most on that move's origin (for a piece that moves
    one square: straight back); any other move starts a new count at 1. A
    move that would continue the count past the limit is illegal. Attacks
    count like any move (ISF rule 10.1: it does not matter whether a piece
    attacks or moves to an empty square): an attack continues or starts the
    count if the attacker wins and stands on the target square, and ends it
    if the attacker is removed. For Scouts (ISF rule 10.2, whose exact
    wording we could not obtain) we follow the common reading that a Scout
    may not keep going back over the squares it crossed: after a5-a8, moves
    a8-a7, a8-a6 and a8-a5 continue the count, a8-a4 does not; after a8-a6
    in turn, a6-a7 and a6-a8 continue it, a6-a5 does not;
  * the ISF's more-squares rule, no endless chasing: a player who keeps
    threatening (moving a piece next to) opponent pieces that keep evading
    (moving away the threatened piece on the next turn) may not make a
    chasing move (one that threatens a piece that evaded during this chase)
    that recreates a position of the board (each square's owner and piece
    type) that occurred during the chase, except moving the chasing piece
    straight back to the square it came from on the previous turn. A chase
    ends when the chaser makes a move that threatens nothing, the other player
    makes a move that is not an evasion, or anybody attacks; the last
    `CHASE_MEMORY` positions of a chase are remembered (a lap around a lake
    takes 24 plies);
  * a player who cannot move loses, unless the other player could not move
    either: then the game is a draw.
Games take `more_squares_rule` and `both_stuck_draw` parameters (default
true) to play without the last two.

Board notation: a row is 10 characters, `.` an empty square, `~` a lake, a
piece letter (`PieceType.letter`) uppercase for player 0 and lowercase for
player 1; rows are written top (row 9) to bottom (row 0) and joined by `/`. A
setup string is a player's own 4 setup rows, or a whole board, in this notation;
letters in setup strings may have either case.
"""

import dataclasses
import functools
import math
from typing import Optional

import numpy as np

BOARD_SIZE = 10
NUM_SQUARES = BOARD_SIZE * BOARD_SIZE
LAKES = frozenset(row * BOARD_SIZE + col for row, col in (
    (4, 2), (4, 3), (5, 2), (5, 3), (4, 6), (4, 7), (5, 6), (5, 7)))
SETUP_ROWS = ((0, 1, 2, 3), (6, 7, 8, 9))
NUM_DIRECTIONS = 4
MAX_DISTANCE = BOARD_SIZE - 1
DIRECTION_STEPS = ((1, 0), (-1, 0), (0, -1), (0, 1))  # (row, column) steps.
MOVES_PER_SQUARE = NUM_DIRECTIONS * MAX_DISTANCE
NUM_MOVE_ACTIONS = NUM_SQUARES * MOVES_PER_SQUARE
MAX_BACK_AND_FORTH = 3  # The 4th move back and forth in a row is illegal.
CHASE_MEMORY = 32  # Positions of a chase the more-squares rule remembers.

EMPTY = "."
LAKE = "~"
NO_SQUARE = NUM_SQUARES  # A padding square: off the board, never empty.

# Combat outcomes: attacker wins (the defender is removed and the attacker
# takes its square), defender wins (the attacker is removed), both removed, or
# the flag is captured (the attacker wins the game).
ATTACKER_WINS, DEFENDER_WINS, BOTH_REMOVED, FLAG_CAPTURED = range(4)


@dataclasses.dataclass(frozen=True)
class PieceType:
  """A kind of piece: its names, strength and how it moves."""
  name: str
  abbreviation: str  # Used in action strings: "Sc b3-b7".
  letter: str  # Used in the board notation.
  rank: int  # Strength in combat; 0 for the Bomb and the Flag.
  movable: bool = True
  scout: bool = False


PIECE_TYPES = (
    PieceType("Spy", "Sp", "Y", 1),
    PieceType("Scout", "Sc", "S", 2, scout=True),
    PieceType("Miner", "Mi", "N", 3),
    PieceType("Sergeant", "Se", "T", 4),
    PieceType("Lieutenant", "Li", "L", 5),
    PieceType("Captain", "Ca", "P", 6),
    PieceType("Major", "Mj", "J", 7),
    PieceType("Colonel", "Co", "C", 8),
    PieceType("General", "Ge", "G", 9),
    PieceType("Marshal", "Ma", "M", 10),
    PieceType("Bomb", "Bo", "B", 0, movable=False),
    PieceType("Flag", "Fl", "F", 0, movable=False),
)

# Material values by piece name (others: their rank): the Spy kills the
# Marshal and the Miner the Bomb, worth more than their ranks; the Flag's
# loss ends the game, so it counts for nothing as material.
MATERIAL_VALUES = {"Spy": 3.0, "Scout": 2.0, "Miner": 4.0, "Bomb": 1.0,
                   "Flag": 0.0}

ARMIES = {
    "barrage": {"Spy": 1, "Scout": 2, "Miner": 1, "General": 1, "Marshal": 1,
                "Bomb": 1, "Flag": 1},
    "classic": {"Spy": 1, "Scout": 8, "Miner": 5, "Sergeant": 4,
                "Lieutenant": 4, "Captain": 4, "Major": 3, "Colonel": 2,
                "General": 1, "Marshal": 1, "Bomb": 6, "Flag": 1},
}


def square_name(square: int) -> str:
  """`a1` for square 0, `j10` for square 99."""
  row, col = divmod(square, BOARD_SIZE)
  return f"{'abcdefghij'[col]}{row + 1}"


def parse_square(text: str) -> int:
  """The square a name such as `b3` denotes; ValueError if there is none."""
  text = text.strip().lower()
  if (len(text) < 2 or text[0] not in "abcdefghij" or not text[1:].isdigit()
      or not 1 <= int(text[1:]) <= BOARD_SIZE):
    raise ValueError(f"{text!r} is not a square: write a column a-j and a row "
                     f"1-10, e.g. b3")
  return (int(text[1:]) - 1) * BOARD_SIZE + "abcdefghij".index(text[0])


def _ray(square: int, direction: int) -> tuple[int, ...]:
  """Squares from `square` in `direction` up to the edge or a lake."""
  row, col = divmod(square, BOARD_SIZE)
  row_step, col_step = DIRECTION_STEPS[direction]
  ray = []
  for distance in range(1, MAX_DISTANCE + 1):
    r, c = row + row_step * distance, col + col_step * distance
    if not (0 <= r < BOARD_SIZE and 0 <= c < BOARD_SIZE) or (
        r * BOARD_SIZE + c) in LAKES:
      break
    ray.append(r * BOARD_SIZE + c)
  return tuple(ray)


# RAYS[square][direction]: the squares a piece could pass, nearest first.
RAYS = tuple(tuple(_ray(square, d) for d in range(NUM_DIRECTIONS))
             for square in range(NUM_SQUARES))
# NEIGHBOURS[square]: the squares next to it (not lakes), which it threatens.
NEIGHBOURS = tuple(tuple(ray[0] for ray in rays if ray) for rays in RAYS)


def ray_table() -> np.ndarray:
  """RAYS as a [squares + 1, directions, distances] array, padded NO_SQUARE.

  The extra last row (square NO_SQUARE) is all padding, so a captured piece
  parked on NO_SQUARE has no moves.
  """
  table = np.full((NUM_SQUARES + 1, NUM_DIRECTIONS, MAX_DISTANCE), NO_SQUARE,
                  np.int32)
  for square, rays in enumerate(RAYS):
    for direction, ray in enumerate(rays):
      table[square, direction, :len(ray)] = ray
  return table


def neighbour_table() -> np.ndarray:
  """NEIGHBOURS as a [squares + 1, directions] array, padded NO_SQUARE."""
  return ray_table()[:, :, 0]


def combat_outcome(attacker: PieceType, defender: PieceType) -> int:
  """What happens when `attacker` attacks `defender`."""
  if defender.name == "Flag":
    return FLAG_CAPTURED
  if defender.name == "Bomb":
    return ATTACKER_WINS if attacker.name == "Miner" else DEFENDER_WINS
  if attacker.name == "Spy" and defender.name == "Marshal":
    return ATTACKER_WINS
  if attacker.rank == defender.rank:
    return BOTH_REMOVED
  return ATTACKER_WINS if attacker.rank > defender.rank else DEFENDER_WINS


@dataclasses.dataclass(frozen=True)
class Move:
  """A decoded move action."""
  origin: int
  direction: int
  distance: int
  target: Optional[int]  # None where the move leaves the board or hits a lake.


class Rules:
  """The tables of one army: types, placement order, combat, actions."""

  def __init__(self, army: str):
    if army not in ARMIES:
      raise ValueError(f"army must be one of {sorted(ARMIES)}, got "
                       f"army={army!r}")
    counts = ARMIES[army]
    self.army = army
    self.types = tuple(t for t in PIECE_TYPES if t.name in counts)
    self.num_types = len(self.types)
    self.counts = tuple(counts[t.name] for t in self.types)
    self.army_size = sum(self.counts)
    # Type of the i-th piece placed, and how many of its type follow it.
    self.placement_types = tuple(
        t for t, count in enumerate(self.counts) for _ in range(count))
    self.placement_remaining = tuple(
        count - i for count in self.counts for i in range(count))
    self.combat = np.array(
        [[combat_outcome(a, d) for d in self.types] for a in self.types],
        np.int32)
    self.combat_outcomes = tuple(tuple(row) for row in self.combat.tolist())
    self.movable = tuple(t.movable for t in self.types)
    self.material = np.array(
        [MATERIAL_VALUES.get(t.name, float(t.rank)) for t in self.types],
        np.float32)
    self.scout = tuple(t.scout for t in self.types)
    self.move_base = self.num_types * NUM_SQUARES
    self.num_distinct_actions = self.move_base + NUM_MOVE_ACTIONS
    self.letters = {t.letter: index for index, t in enumerate(self.types)}
    self.moves = tuple(
        Move(origin, direction, step + 1,
             ray[step] if step < len(ray) else None)
        for origin in range(NUM_SQUARES)
        for direction, ray in enumerate(RAYS[origin])
        for step in range(MAX_DISTANCE))

  def __deepcopy__(self, memo: dict[int, object]) -> "Rules":
    del memo  # Immutable: states share one Rules, even when copied.
    return self

  def __reduce__(self):
    # Pickled (and so serialized with a state) as its army's name, not its
    # tables (a state pickled with them took 126 KB and 30 ms, now 3 KB).
    return rules_for, (self.army,)

  def placement_action(self, piece_type: int, square: int) -> int:
    return piece_type * NUM_SQUARES + square

  def move_action(self, origin: int, direction: int, distance: int) -> int:
    return (self.move_base + (origin * NUM_DIRECTIONS + direction) *
            MAX_DISTANCE + distance - 1)

  def is_placement(self, action: int) -> bool:
    return 0 <= action < self.move_base

  def rotated_actions(self) -> np.ndarray:
    """[actions] each action id as player 1 sees it from player 0's side:
    the board turned 180° (square s is 99 − s, up and down swap, left and
    right swap). An involution: applied twice it is the identity."""
    rotated = np.arange(self.num_distinct_actions)
    placements = np.arange(self.move_base)
    piece_type, square = np.divmod(placements, NUM_SQUARES)
    rotated[:self.move_base] = piece_type * NUM_SQUARES + (NUM_SQUARES - 1 -
                                                           square)
    moves = np.arange(NUM_MOVE_ACTIONS)
    origin, rest = np.divmod(moves, NUM_DIRECTIONS * MAX_DISTANCE)
    direction, distance = np.divmod(rest, MAX_DISTANCE)
    rotated[self.move_base:] = self.move_base + (
        ((NUM_SQUARES - 1 - origin) * NUM_DIRECTIONS + (direction ^ 1)) *
        MAX_DISTANCE + distance)
    return rotated

  def decode_move(self, action: int) -> Move:
    """The move an action id in the move range denotes."""
    return self.moves[action - self.move_base]

  def action_to_string(self, action: int, piece_type: Optional[int]) -> str:
    """`Sc b3-b7` for a move (`b3-b7` if the type is not given), `Ma a1`."""
    if self.is_placement(action):
      piece_type, square = divmod(action, NUM_SQUARES)
      return f"{self.types[piece_type].abbreviation} {square_name(square)}"
    move = self.decode_move(action)
    target = ("off" if move.target is None else square_name(move.target))
    text = f"{square_name(move.origin)}-{target}"
    if piece_type is None:
      return text
    return f"{self.types[piece_type].abbreviation} {text}"

  def setup_square_candidates(self, empty: list[int], placed: int,
                              last_square: int) -> list[int]:
    """Squares where the `placed`-th piece may go, given the empty setup squares.

    Pieces of one type go on increasing squares; a piece may not take a square
    that leaves too few squares after it for the rest of its type.

    Args:
      empty: the player's empty setup squares, sorted.
      placed: how many pieces the player has placed.
      last_square: the square of the previous piece if it has the same type,
        else -1.
    """
    candidates = [s for s in empty if s > last_square]
    remaining = self.placement_remaining[placed]
    return candidates[:len(candidates) - remaining + 1]

  def placement_probabilities(self, candidates: int, placed: int) -> list[float]:
    """Chance of each candidate square that makes random setups uniform.

    With n squares open to a type that still has j pieces to place, the i-th
    open square (0-based) is the smallest of C(n − 1 − i, j − 1) of the
    C(n, j) equally likely square sets, hence its probability.

    Args:
      candidates: how many squares `setup_square_candidates` returned.
      placed: how many pieces the player has placed.
    """
    remaining = self.placement_remaining[placed]
    total = candidates + remaining - 1  # Open squares before pruning.
    subsets = math.comb(total, remaining)
    return [math.comb(total - 1 - i, remaining - 1) / subsets
            for i in range(candidates)]


@functools.lru_cache(maxsize=None)
def rules_for(army: str) -> Rules:
  """The shared, immutable Rules of an army."""
  return Rules(army)


def row_strings(cells: list[str]) -> list[str]:
  """The board's rows in notation, top (row 9) first, from 100 characters."""
  return ["".join(cells[row * BOARD_SIZE:(row + 1) * BOARD_SIZE])
          for row in reversed(range(BOARD_SIZE))]


def setup_rows_string(cells: list[str], player: int) -> str:
  """A player's setup rows of 100 cells in notation, top row first."""
  return "/".join(
      "".join(cells[row * BOARD_SIZE:(row + 1) * BOARD_SIZE])
      for row in reversed(SETUP_ROWS[player]))


# Player 0's setups used by tests, examples and benchmarks: Scouts in front,
# the Flag behind a Bomb. `mirrored_setup` turns one into player 1's.
EXAMPLE_SETUPS = {
    "barrage": "..S....S../.GY....M../....N...../....BF....",
    "classic": "SJLSPSCSMG/NTSYJPSTLS/BNLPTCJBNT/NBFBNBPLBS",
}


def mirrored_setup(text: str) -> str:
  """The other player's setup, rotated 180° as it faces the first."""
  return "/".join(row[::-1] for row in reversed(text.split("/")))


def parse_setup(rules: Rules, player: int, text: str,
                name: str) -> list[tuple[int, int]]:
  """The (type, square) pieces of a setup string, in placement order.

  Args:
    rules: the army's rules.
    player: whose setup it is (its rows are SETUP_ROWS[player]).
    text: 4 rows (the player's setup rows) or 10 rows (the whole board) in
      board notation, top row first, joined by `/`.
    name: the parameter's name, for error messages.

  Raises:
    ValueError: naming the bad row, letter, square or count.
  """
  rows = text.strip().split("/")
  own_rows = SETUP_ROWS[player]
  if len(rows) == len(own_rows):
    row_indices = list(reversed(own_rows))
  elif len(rows) == BOARD_SIZE:
    row_indices = list(reversed(range(BOARD_SIZE)))
  else:
    raise ValueError(
        f"{name}={text!r} has {len(rows)} rows; give the player's "
        f"{len(own_rows)} setup rows or all {BOARD_SIZE}, top row first, "
        f"joined by '/'")
  pieces = []
  for row, row_text in zip(row_indices, rows):
    if len(row_text) != BOARD_SIZE:
      raise ValueError(f"{name}: row {row + 1} {row_text!r} has "
                       f"{len(row_text)} squares, not {BOARD_SIZE}")
    for col, letter in enumerate(row_text):
      square = row * BOARD_SIZE + col
      if letter in (EMPTY, LAKE):
        continue
      if letter.upper() not in rules.letters:
        raise ValueError(
            f"{name}: {letter!r} at {square_name(square)} is not a piece of "
            f"the {rules.army} army (letters {''.join(rules.letters)})")
      if row not in own_rows:
        raise ValueError(
            f"{name}: piece {letter!r} at {square_name(square)} is outside "
            f"player {player}'s setup rows {own_rows[0] + 1}-"
            f"{own_rows[-1] + 1}")
      pieces.append((rules.letters[letter.upper()], square))
  for piece_type, count in enumerate(rules.counts):
    found = sum(1 for t, _ in pieces if t == piece_type)
    if found != count:
      letter = rules.types[piece_type].letter
      raise ValueError(
          f"{name}: the {rules.army} army has {count} "
          f"{rules.types[piece_type].name} ({letter}), the setup has {found}")
  return sorted(pieces)


def setup_placement_actions(rules: Rules, player: int, text: str,
                            name: str = "setup") -> list[int]:
  """The placement actions that build a setup string's position."""
  return [rules.placement_action(t, s)
          for t, s in parse_setup(rules, player, text, name)]
