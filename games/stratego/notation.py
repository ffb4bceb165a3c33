"""Stratego for people: moves parsed from the board notation a person types
(`parse_action`: `b3-b7`, `b3xb7`, `Sc b3-b7`, or a placement square) and the
last ply told in words (`describe_last_ply`), for `examples/play_stratego.py`.
"""

from typing import Optional

from open_spiel_ext.games.stratego import game as game_lib
from open_spiel_ext.games.stratego import rules as rules_lib


def describe_last_ply(state: game_lib.StrategoState, viewer: int) -> str:
  """The last ply in words for `viewer`, with what an attack revealed:
  "your Scout hit their Bomb on c6 and was removed"."""
  if not state.moves:
    return "no move yet"
  origin, target, action = state.moves[-1]
  rules = state.get_game().rules
  mover = (state.ply - 1) % 2
  names = [t.name for t in rules.types]
  where = rules_lib.square_name(target)
  own, other = (("your", "their") if mover == viewer else ("their", "your"))
  if state.last_combat is None:
    who = "you" if mover == viewer else "the opponent"
    step = f"{who} moved {rules_lib.square_name(origin)}-{where}"
    return step + (" (a Scout: no other piece moves that far)"
                   if rules.decode_move(action).distance > 1 else "")
  attacker, defender, outcome = state.last_combat
  fighters = f"{own} {names[attacker]}", f"{other} {names[defender]}"
  if outcome == rules_lib.FLAG_CAPTURED:
    return f"{fighters[0]} captured {fighters[1]} on {where}"
  if outcome == rules_lib.ATTACKER_WINS:
    return f"{fighters[0]} took {fighters[1]} on {where}"
  if outcome == rules_lib.DEFENDER_WINS:
    verb = "hit" if names[defender] == "Bomb" else "attacked"
    return f"{fighters[0]} {verb} {fighters[1]} on {where} and was removed"
  return f"{fighters[0]} and {fighters[1]} on {where} removed each other"


def parse_action(state: game_lib.StrategoState, text: str) -> int:
  """The legal action that a person's notation names in `state`.

  Moves are written `b3-b7`, `b3xb7` or with the piece, `Sc b3-b7`; during
  the setup a placement is the square (`a1`) or the piece and the square
  (`Ma a1`).

  Raises:
    ValueError: saying why the text names no legal action here.
  """
  if state.is_terminal():
    raise ValueError("the game is over")
  words = text.split()
  if not 1 <= len(words) <= 2:
    raise ValueError(f"{text!r}: write a move like b3-b7 or Sc b3-b7")
  piece = words[0] if len(words) == 2 else None
  if not state.setup_done():
    return _parse_placement(state, piece, words[-1])
  squares = words[-1].replace("x", "-").split("-")
  if len(squares) != 2:
    raise ValueError(f"{words[-1]!r}: write a move as origin-target, e.g. "
                     f"b3-b7")
  origin, target = (rules_lib.parse_square(square) for square in squares)
  return _move_or_reason(state, piece, origin, target)


def _check_piece_name(state: game_lib.StrategoState, piece: Optional[str],
                      piece_type: int, where: str) -> None:
  name = state.get_game().rules.types[piece_type]
  if piece is not None and piece.lower() not in (name.abbreviation.lower(),
                                                 name.name.lower()):
    raise ValueError(f"the piece {where} is a {name.name} "
                     f"({name.abbreviation}), not {piece}")


def _parse_placement(state: game_lib.StrategoState, piece: Optional[str],
                     square_text: str) -> int:
  rules = state.get_game().rules
  square = rules_lib.parse_square(square_text)
  player = state.placing_player()
  piece_type = rules.placement_types[len(state.setups[player])]
  _check_piece_name(state, piece, piece_type, "to place now")
  name = rules_lib.square_name(square)
  if square // rules_lib.BOARD_SIZE not in rules_lib.SETUP_ROWS[player]:
    raise ValueError(f"{name} is outside your setup rows")
  if state.owner[square] != game_lib.NO_PIECE:
    raise ValueError(f"{name} is taken")
  action = rules.placement_action(piece_type, square)
  if action not in state.legal_actions():
    raise ValueError(
        f"pieces of one type go on increasing squares, leaving room for the "
        f"rest of the type: {name} is not available for this "
        f"{rules.types[piece_type].name}")
  return action


def _move_or_reason(state: game_lib.StrategoState, piece: Optional[str],
                    origin: int, target: int) -> int:
  rules = state.get_game().rules
  player = state.current_player()
  start, end = rules_lib.square_name(origin), rules_lib.square_name(target)
  if state.owner[origin] != player:
    raise ValueError(f"there is no piece of yours on {start}")
  piece_type = state.kind[origin]
  _check_piece_name(state, piece, piece_type, f"on {start}")
  if not rules.movable[piece_type]:
    raise ValueError(f"a {rules.types[piece_type].name} never moves")
  origin_row, origin_col = divmod(origin, rules_lib.BOARD_SIZE)
  row_change = target // rules_lib.BOARD_SIZE - origin_row
  col_change = target % rules_lib.BOARD_SIZE - origin_col
  if origin == target or (row_change and col_change):
    raise ValueError(f"{start}-{end}: pieces move along a row or a column")
  distance = abs(row_change) + abs(col_change)
  if distance > 1 and not rules.scout[piece_type]:
    raise ValueError("only Scouts move more than one square")
  step = (row_change // distance, col_change // distance)
  direction = rules_lib.DIRECTION_STEPS.index(step)
  path = [origin + (step[0] * rules_lib.BOARD_SIZE + step[1]) * k
          for k in range(1, distance + 1)]
  for square in path:
    if square in rules_lib.LAKES:
      raise ValueError(f"{rules_lib.square_name(square)} is a lake")
    if square != target and state.owner[square] != game_lib.NO_PIECE:
      raise ValueError(
          f"the path is blocked at {rules_lib.square_name(square)}")
  if state.owner[target] == player:
    raise ValueError(f"{end} holds your own piece")
  action = rules.move_action(origin, direction, distance)
  if action not in state.legal_actions():
    if state.chaser == player and state.repeats_chase(player, action):
      raise ValueError(
          f"the more-squares rule: {start}-{end} would chase an evading piece "
          "back into a position this chase has already had")
    raise ValueError(
        f"the two-square rule: {start}-{end} would be the 4th move in a row "
        f"back and forth over the same squares")
  return action
