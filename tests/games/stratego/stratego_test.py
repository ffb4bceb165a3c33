"""Rule-by-rule tests of barrage_stratego and stratego, and of hidden information."""

import math

import numpy as np
import pytest

import conformance
from open_spiel_ext.games.stratego import game as stratego
from open_spiel_ext.games.stratego import notation
from open_spiel_ext.games.stratego import observer as observer_lib
from open_spiel_ext.games.stratego import rules
import pyspiel

BARRAGE = rules.rules_for("barrage")
SPARE_SCOUT = "j7"  # Player 1's Scout, moved j7-j6-j7 to pass a turn.


def fixed_state(pieces0: dict[str, str], pieces1: dict[str, str],
                army: str = "barrage", ply_limit: int = 1000,
                **rule_params) -> stratego.StrategoState:
  """A fixed-setup game with the given pieces; the rest fill the back rows.

  `rule_params` are further game parameters (more_squares_rule=False, ...).
  """
  army_rules = rules.rules_for(army)
  setups = []
  for player, pieces in enumerate((pieces0, pieces1)):
    cells = [rules.EMPTY] * rules.NUM_SQUARES
    for name, letter in pieces.items():
      cells[rules.parse_square(name)] = letter
    back_rows = rules.SETUP_ROWS[player][::1 if player == 0 else -1]
    free = (row * 10 + col for row in back_rows for col in range(10)
            if cells[row * 10 + col] == rules.EMPTY)
    for piece_type, count in zip(army_rules.types, army_rules.counts):
      for _ in range(count - list(pieces.values()).count(piece_type.letter)):
        cells[next(free)] = piece_type.letter
    setups.append(rules.setup_rows_string(cells, player))
  name = "barrage_stratego" if army == "barrage" else "stratego"
  extra = "".join(f",{key}={str(value).lower()}"
                  for key, value in rule_params.items())
  return pyspiel.load_game(
      f"{name}(setup=fixed,setup0={setups[0]},setup1={setups[1]},"
      f"ply_limit={ply_limit}{extra})").new_initial_state()


def play(state: pyspiel.State, *moves: str) -> None:
  for move in moves:
    state.apply_action(notation.parse_action(state, move))


def targets(state: pyspiel.State, origin: str) -> set[str]:
  """Squares the piece on `origin` may move to."""
  found = set()
  for action in state.legal_actions():
    move = BARRAGE.decode_move(action)
    if move.origin == rules.parse_square(origin):
      found.add(rules.square_name(move.target))
  return found


def attack_from_a4(attacker: str, defender: str) -> stratego.StrategoState:
  """Player 0's `attacker` walks a4-a6 and attacks `defender` on a7."""
  state = fixed_state({"a4": attacker}, {"a7": defender, SPARE_SCOUT: "S"})
  play(state, "a4-a5", "j7-j6", "a5-a6", "j6-j7", "a6xa7")
  return state


@pytest.mark.parametrize("attacker,defender,on_a7,lost0,lost1", [
    ("M", "G", "M", "", "Ge"),  # Higher rank wins.
    ("G", "M", "m", "Ge", ""),  # Lower rank loses.
    ("G", "G", ".", "Ge", "Ge"),  # Equal ranks: both removed.
    ("S", "S", ".", "Sc", "Sc"),
    ("Y", "M", "Y", "", "Ma"),  # A Spy attacking the Marshal wins.
    ("M", "Y", "M", "", "Sp"),  # The Marshal attacking a Spy wins.
    ("Y", "G", "g", "Sp", ""),  # A Spy attacking another piece loses.
    ("N", "B", "N", "", "Bo"),  # A Miner removes a Bomb.
    ("G", "B", "b", "Ge", ""),  # Any other attacker is removed.
    ("M", "B", "b", "Ma", ""),
    ("S", "B", "b", "Sc", ""),
])
def test_attack_outcomes(attacker, defender, on_a7, lost0, lost1):
  state = attack_from_a4(attacker, defender)
  assert state.piece_letter(rules.parse_square("a7"), None) == on_a7
  assert state.piece_letter(rules.parse_square("a6"), None) == "."
  types = [t.abbreviation for t in BARRAGE.types]
  assert [types[t] for t, n in enumerate(state.captured[0]) if n] == (
      [lost0] if lost0 else [])
  assert [types[t] for t, n in enumerate(state.captured[1]) if n] == (
      [lost1] if lost1 else [])
  assert state.public_moves[-1] == (
      f"a6xa7 {types[BARRAGE.letters[attacker]]}:"
      f"{types[BARRAGE.letters[defender]]}")
  assert not state.is_terminal()


def test_attack_reveals_both_identities():
  state = attack_from_a4("M", "G")
  assert "M" in state.board_rows(1)[3]  # Player 1 now sees the Marshal.
  state = attack_from_a4("G", "B")
  assert state.board_rows(0)[3][0] == "b"  # Player 0 now sees the Bomb.


def test_flag_capture_wins():
  state = attack_from_a4("S", "F")
  assert state.is_terminal()
  assert state.returns() == [1.0, -1.0]


def test_player_one_can_capture_the_flag():
  state = fixed_state({"a4": "F", "j4": "S"}, {"a7": "G"})
  play(state, "j4-j5", "a7-a6", "j5-j4", "a6-a5", "j4-j5", "a5xa4")
  assert state.is_terminal()
  assert state.returns() == [-1.0, 1.0]


def test_bombs_and_flag_never_move():
  state = fixed_state({"a4": "B", "b4": "F"}, {})
  assert targets(state, "a4") == set() and targets(state, "b4") == set()
  with pytest.raises(ValueError, match="Bomb never moves"):
    notation.parse_action(state, "a4-a5")


def test_pieces_other_than_scouts_move_one_square():
  state = fixed_state({"e4": "G"}, {})
  assert targets(state, "e4") == {"e5", "e3", "d4", "f4"}
  with pytest.raises(ValueError, match="only Scouts"):
    notation.parse_action(state, "e4-e6")


def test_scout_long_move_and_attack_at_the_end():
  state = fixed_state({"e4": "S"}, {"e8": "G"})
  assert {"e5", "e6", "e7", "e8", "a4", "j4"} <= targets(state, "e4")
  assert "e9" not in targets(state, "e4")
  play(state, "Sc e4-e7")
  assert state.public_moves[-1] == "e4-e7 Sc"


def test_scout_moves_along_rows_until_blocked():
  state = fixed_state({"e4": "S", "b4": "G"}, {})
  assert {"d4", "c4"} <= targets(state, "e4")
  assert "b4" not in targets(state, "e4") and "a4" not in targets(state, "e4")
  with pytest.raises(ValueError, match="blocked at b4"):
    notation.parse_action(state, "e4-a4")


def test_scout_blocked_by_lakes():
  state = fixed_state({"c4": "S", "a4": "S"}, {SPARE_SCOUT: "S"})
  assert "c5" not in targets(state, "c4")
  play(state, "a4-a5", "j7-j6")
  assert "b5" in targets(state, "a5") and "a10" in targets(state, "a5")
  assert "c5" not in targets(state, "a5")  # A lake.
  with pytest.raises(ValueError, match="c5 is a lake"):
    notation.parse_action(state, "a5-d5")


def test_scout_blocked_by_a_piece_stops_before_it():
  state = fixed_state({"e4": "S"}, {"e7": "G", "e9": "M"})
  assert {"e5", "e6", "e7"} <= targets(state, "e4")
  assert "e8" not in targets(state, "e4")
  with pytest.raises(ValueError, match="blocked at e7"):
    notation.parse_action(state, "e4-e8")


def test_a_long_move_reveals_a_scout_and_a_short_one_does_not():
  state = fixed_state({"e4": "S", "f4": "S"}, {SPARE_SCOUT: "S"})
  play(state, "f4-f5", "j7-j6")
  assert state.board_rows(1)[5][5] == "?"
  play(state, "e4-e6")
  assert state.board_rows(1)[4][4] == "S"
  observer = observer_lib.StrategoObserver(
      state.get_game(), pyspiel.IIGObservationType(perfect_recall=False))
  observer.set_from(state, 1)
  # Player 1 sees the board rotated: e6 (row 5, column 4) is (4, 5).
  assert observer.dict["opponent_scout_shown"][0, 4, 5] == 1
  assert observer.dict["opponent_revealed"][BARRAGE.letters["S"], 4, 5] == 1
  assert observer.dict["opponent_unknown"][0, 5, 4] == 1  # f5, unknown.


def test_two_square_rule_forbids_the_fourth_move():
  state = fixed_state({"a4": "G"}, {SPARE_SCOUT: "S", "i7": "S"})
  play(state, "a4-a5", "j7-j6", "a5-a4", "j6-j7", "a4-a5", "i7-i6")
  assert "a4" not in targets(state, "a5")
  assert "a6" in targets(state, "a5")
  with pytest.raises(ValueError, match="two-square rule"):
    notation.parse_action(state, "a5-a4")
  play(state, "a5-a6", "i6-i7", "a6-a5", "i7-i6")  # A new pair of squares.
  assert "a6" in targets(state, "a5")


def test_a_move_of_another_piece_restarts_the_two_square_count():
  state = fixed_state({"a4": "G", "j4": "S"}, {SPARE_SCOUT: "S", "i7": "S",
                                               "j9": "N"})
  play(state, "a4-a5", "i7-i6", "a5-a4", "i6-i7", "a4-a5", "j7-j6")
  assert "a4" not in targets(state, "a5")
  play(state, "j4xj6", "i7-i6")  # Scouts: both removed.
  assert "a4" in targets(state, "a5")


# Games for the two-square rule (see `rules.py`): player 0's pieces, player
# 1's and the moves. `stratego_batched_test` replays them in the batched
# engine. Player 1 passes by circling its Scout j7-j6-i6-i7, each move at
# right angles to the one before, so that none continues a count.
TWO_SQUARE_GAMES = {
    # The 4th move back and forth would attack the Scout that came to a4.
    "attack_at_the_limit": ({"a4": "G"}, {"a7": "S", SPARE_SCOUT: "S"}, (
        "a4-b4", "j7-j6", "b4-a4", "j6-i6", "a4-b4", "a7-a4")),
    # a5xa6, the General taking the Scout, starts a count: a6-a5, a5-a6.
    "attack_starts_the_count": ({"a4": "G"}, {"a7": "S", SPARE_SCOUT: "S"}, (
        "a4-a5", "a7-a6", "a5xa6", "j7-j6", "a6-a5", "j6-i6", "a5-a6",
        "i6-i7")),
    # a4xa5 is the 3rd move between a4 and a5.
    "attack_continues_the_count": ({"a4": "G"}, {"a7": "S", SPARE_SCOUT: "S"},
                                   ("a4-a5", "j7-j6", "a5-a4", "a7-a5",
                                    "a4xa5", "j6-i6")),
    # a7-a5 and a5-a6 go back over the squares the move before crossed.
    "scout_goes_back": ({"a4": "S"}, {SPARE_SCOUT: "S"}, (
        "a4-a7", "j7-j6", "a7-a5", "j6-i6", "a5-a6", "i6-i7")),
    # a8-a6 goes back over a4-a8's squares, a6-a8 back over a8-a6's.
    "scout_turns_back": ({"a4": "S"}, {SPARE_SCOUT: "S"}, (
        "a4-a8", "j7-j6", "a8-a6", "j6-i6", "a6-a8", "i6-i7")),
    # a6-a5 goes on in a8-a6's direction: it starts a new count.
    "scout_goes_on": ({"a4": "S"}, {SPARE_SCOUT: "S"}, (
        "a4-a8", "j7-j6", "a8-a6", "j6-i6", "a6-a5", "i6-i7")),
}


def two_square_game(name: str) -> stratego.StrategoState:
  """The position after `TWO_SQUARE_GAMES[name]`, player 0 to move."""
  pieces0, pieces1, moves = TWO_SQUARE_GAMES[name]
  state = fixed_state(pieces0, pieces1)
  play(state, *moves)
  return state


def test_two_square_rule_forbids_an_attack_at_the_limit():
  state = two_square_game("attack_at_the_limit")
  assert targets(state, "b4") == {"b5", "b3", "c4"}  # Not a4, the Scout's.
  with pytest.raises(ValueError, match="two-square rule"):
    notation.parse_action(state, "b4xa4")


@pytest.mark.parametrize("name,move", [("attack_starts_the_count", "a6-a5"),
                                       ("attack_continues_the_count", "a5-a4")])
def test_an_attack_counts_towards_the_two_square_rule(name, move):
  state = two_square_game(name)
  origin, target = move.split("-")
  assert target not in targets(state, origin)
  with pytest.raises(ValueError, match="two-square rule"):
    notation.parse_action(state, move)


def test_a_scout_going_back_over_the_squares_it_crossed_counts():
  state = two_square_game("scout_goes_back")
  # Only a6-a5 goes back over a5-a6's squares; a6-a4 goes beyond them.
  assert "a5" not in targets(state, "a6")
  assert {"a4", "a3", "a7", "b6"} <= targets(state, "a6")


def test_after_a_scout_turns_back_the_count_goes_on_only_towards_the_turn():
  state = two_square_game("scout_turns_back")
  assert not {"a7", "a6"} & targets(state, "a8")
  assert {"a5", "a4", "a9", "b8"} <= targets(state, "a8")
  state = two_square_game("scout_goes_on")
  assert "a6" in targets(state, "a5")  # Would be the 2nd of a new count.


def test_a_player_without_legal_moves_loses():
  # Classic: Bombs on the six squares that open onto the middle, every other
  # setup square filled: nothing of player 0 can move.
  setup0 = "BBCPBBCNBB/NTSYJPSTLS/SNLPTLJSNT/NSFMGSPLJS"
  assert rules.parse_setup(rules.rules_for("classic"), 0, setup0, "setup0")
  setup1 = rules.mirrored_setup(rules.EXAMPLE_SETUPS["classic"])
  state = pyspiel.load_game(
      f"stratego(setup=fixed,setup0={setup0},setup1={setup1})"
  ).new_initial_state()
  assert state.is_terminal()
  assert state.returns() == [-1.0, 1.0]


# Player 0's Marshal chases player 1's General once around the left lake:
# the General evades along the ring b4..e7, the Marshal one square behind.
LAKE_RING = ["e7", "d7", "c7", "b7", "b6", "b5", "b4", "c4", "d4", "e4", "e5",
             "e6", "e7"]


def lake_chase(**params) -> stratego.StrategoState:
  """The position after a lap of the chase: the Marshal on e5, the General
  back on e7, the Marshal's next move e5-e6 would threaten it again."""
  state = fixed_state({"e4": "M"}, {"e7": "G", SPARE_SCOUT: "S"}, **params)
  play(state, "e4-e5", "j7-j6", "e5-e6")  # e5-e6 threatens the General.
  chaser = "e6"
  for step, (origin, target) in enumerate(zip(LAKE_RING, LAKE_RING[1:])):
    play(state, f"{origin}-{target}")  # The General evades...
    if step < len(LAKE_RING) - 2:
      play(state, f"{chaser}-{origin}")  # ...and the Marshal follows.
      chaser = origin
  return state


def test_more_squares_rule_forbids_chasing_back_into_a_position():
  state = lake_chase()
  assert state.chaser == 0 and len(state.chase_positions) == 24
  assert targets(state, "e5") == {"e4", "f5"}  # Not e6: the lap's start.
  with pytest.raises(ValueError, match="more-squares rule: e5-e6"):
    notation.parse_action(state, "e5-e6")
  play(state, "e5-f5")  # Threatens nothing: the chase is over.
  assert state.chaser is None and not any(state.evading)


def test_without_the_more_squares_rule_the_chase_goes_on():
  state = lake_chase(more_squares_rule=False)
  assert "e6" in targets(state, "e5")


def test_the_chaser_may_go_straight_back():
  state = fixed_state({"e4": "M"}, {"e7": "G", SPARE_SCOUT: "S"})
  play(state, "e4-e5", "j7-j6", "e5-e6", "e7-f7", "e6-f6", "f7-e7")
  # f6-e6 recreates the chase's first position, but goes back to where the
  # Marshal came from.
  assert "e6" in targets(state, "f6")
  play(state, "f6-e6", "e7-f7")
  assert "f6" in targets(state, "e6")


def test_a_threat_left_unanswered_ends_the_chase():
  state = fixed_state({"e4": "M"}, {"e7": "G", SPARE_SCOUT: "S"})
  play(state, "e4-e5", "j7-j6", "e5-e6")
  assert state.chaser == 0
  play(state, "j6-j7")  # Not an evasion.
  assert state.chaser is None and not state.chase_positions


# Player 0's only free piece is a Scout on a4 (a Bomb behind it, Bombs on
# the other openings), player 1's likewise on a7: once the Scouts remove each
# other, neither player can move.
LONE_SCOUTS = {"a4": "S", "b4": "B", "e4": "B", "f4": "B", "i4": "B",
               "j4": "B", "a3": "B", "c4": "C", "d4": "P", "g4": "C",
               "h4": "N"}


def lone_scouts(**params) -> stratego.StrategoState:
  mirrored = {f"{name[0]}{11 - int(name[1:])}": letter
              for name, letter in LONE_SCOUTS.items()}
  state = fixed_state(LONE_SCOUTS, mirrored, army="classic", **params)
  play(state, "a4-a5", "a7xa5")
  return state


def test_a_draw_when_neither_player_can_move():
  state = lone_scouts()
  assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_without_the_draw_the_player_who_cannot_move_loses():
  state = lone_scouts(both_stuck_draw=False)
  assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_a_draw_when_neither_setup_can_move():
  blocked = "BBCPBBCNBB/NTSYJPSTLS/SNLPTLJSNT/NSFMGSPLJS"
  game_string = (f"stratego(setup=fixed,setup0={blocked},"
                 f"setup1={rules.mirrored_setup(blocked)}")
  state = pyspiel.load_game(game_string + ")").new_initial_state()
  assert state.is_terminal() and state.returns() == [0.0, 0.0]
  state = pyspiel.load_game(
      game_string + ",both_stuck_draw=false)").new_initial_state()
  assert state.returns() == [-1.0, 1.0]


def test_ply_limit_draw():
  state = fixed_state({"a4": "G"}, {SPARE_SCOUT: "S"}, ply_limit=4)
  play(state, "a4-a5", "j7-j6", "a5-a6")
  assert not state.is_terminal()
  play(state, "j6-j7")
  assert state.is_terminal()
  assert state.returns() == [0.0, 0.0]


def test_ply_limit_counts_after_the_setup():
  game = pyspiel.load_game("barrage_stratego(ply_limit=3)")
  assert game.max_game_length() == 2 * BARRAGE.army_size + 3
  state = game.new_initial_state()
  for _ in range(2 * BARRAGE.army_size):
    state.apply_action(state.legal_actions()[0])
  assert state.ply == 0 and state.current_player() == 0


@pytest.mark.parametrize("setup,message", [
    ("..S....S../.GY....M../....N...../....B.....", "Flag (F), the setup has 0"),
    ("..S....S../.GY....M../....N...../....BFF...", "Flag (F), the setup has 2"),
    ("..S......./.GY....M../....N...../....BF....", "Scout (S), the setup has 1"),
    ("..S....S../.GY....M../....N...../....BFC...", "'C' at g1 is not a piece"),
    ("..S....S../.GY....M../....N.....", "has 3 rows"),
    ("..S....S../.GY....M../....N..../....BF....", "has 9 squares"),
    ("........../........../........../........../........../"
     "..S....S../.GY....M../....N...../....BF..../..........",
     "piece 'S' at c5 is outside player 0's setup rows 1-4"),
])
def test_bad_setup_strings_are_rejected(setup, message):
  with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(
      ")", r"\)")):
    rules.parse_setup(BARRAGE, 0, setup, "setup0")


def test_bad_setup_string_in_a_game_names_the_parameter():
  with pytest.raises(ValueError, match="setup1"):
    pyspiel.load_game(
        "barrage_stratego(setup=fixed,setup0=..S....S../.GY....M../....N..."
        "../....BF....,setup1=..S....S../.GY....M../....N...../....B.....)")


def test_whole_board_setup_string_is_accepted():
  setup0 = rules.EXAMPLE_SETUPS["barrage"]
  whole_board = "/".join([rules.EMPTY * 10] * 6 + [setup0])
  assert rules.parse_setup(BARRAGE, 0, whole_board, "setup0") == (
      rules.parse_setup(BARRAGE, 0, setup0, "setup0"))


def test_board_notation_round_trips_through_str():
  setup0 = rules.EXAMPLE_SETUPS["barrage"]
  setup1 = rules.mirrored_setup(setup0)
  state = pyspiel.load_game(
      f"barrage_stratego(setup=fixed,setup0={setup0},setup1={setup1})"
  ).new_initial_state()
  rows = [line.split()[1] for line in str(state).splitlines()[1:11]]
  assert "/".join(rows[6:]) == setup0
  assert "/".join(rows[:4]).upper() == setup1


def test_placement_follows_the_army_order_on_increasing_squares():
  state = pyspiel.load_game("barrage_stratego").new_initial_state()
  assert len(state.legal_actions()) == 40
  assert state.action_to_string(0, state.legal_actions()[0]) == "Sp a1"
  state.apply_action(BARRAGE.placement_action(0, 15))  # Spy on f2.
  first_scouts = state.legal_actions()
  assert [a // 100 for a in first_scouts] == [1] * 38  # Room for one more.
  state.apply_action(BARRAGE.placement_action(1, 20))  # Scout on a3.
  assert min(a % 100 for a in state.legal_actions()) == 21


def test_each_setup_has_one_placement_sequence():
  setup = rules.EXAMPLE_SETUPS["barrage"]
  actions = rules.setup_placement_actions(BARRAGE, 0, setup)
  state = pyspiel.load_game("barrage_stratego").new_initial_state()
  for action in actions:
    assert action in state.legal_actions()
    state.apply_action(action)
  assert "/".join(state.board_rows(None)[6:]) == setup


def test_random_setups_are_uniform():
  """Every random setup has probability 1 / (number of setups)."""
  game = pyspiel.load_game("barrage_stratego(setup=random)")
  setups = 1
  open_squares = 40
  for count in BARRAGE.counts:
    setups *= math.comb(open_squares, count)
    open_squares -= count
  rng = np.random.RandomState(0)
  for _ in range(5):
    state = game.new_initial_state()
    probability = 1.0
    while state.current_player() == pyspiel.PlayerId.CHANCE and (
        state.placing_player() == 0):
      outcomes = dict(state.chance_outcomes())
      action = rng.choice(list(outcomes))
      probability *= outcomes[action]
      state.apply_action(int(action))
    assert probability == pytest.approx(1 / setups, rel=1e-9)


def test_action_strings_name_the_piece_only_to_who_knows_it():
  state = fixed_state({"e4": "M"}, {"e7": "G", SPARE_SCOUT: "S"})
  marshal_up = notation.parse_action(state, "e4-e5")
  assert state.action_to_string(0, marshal_up) == "Ma e4-e5"
  assert state.action_to_string(1, marshal_up) == "e4-e5"
  play(state, "e4-e5", "j7-j6", "e5-e6")
  general_left = notation.parse_action(state, "e7-d7")
  assert state.action_to_string(0, general_left) == "e7-d7"
  play(state, "e7xe6")  # The General attacks the Marshal: both revealed.
  marshal = notation.parse_action(state, "e6-e5")
  assert state.action_to_string(1, marshal) == "Ma e6-e5"
  placing = pyspiel.load_game("barrage_stratego").new_initial_state()
  spy = placing.legal_actions()[0]
  assert placing.action_to_string(0, spy) == "Sp a1"
  assert placing.action_to_string(1, spy) == "placement"


def _hidden_views(state: pyspiel.State, player: int) -> tuple:
  return (state.information_state_string(player),
          tuple(state.information_state_tensor(player)),
          state.observation_string(player),
          tuple(state.observation_tensor(player)))


@pytest.mark.parametrize("seed", range(5))
def test_unrevealed_identities_do_not_leak(seed):
  """Swapping player 0's unrevealed Marshal and General changes nothing for
  player 1, until one of them is revealed."""
  setup = rules.EXAMPLE_SETUPS["barrage"]
  swapped = setup.replace("G", "x").replace("M", "G").replace("x", "M")
  setup1 = rules.mirrored_setup(setup)
  games = [pyspiel.load_game(f"barrage_stratego(setup=fixed,setup0={s},"
                             f"setup1={setup1})") for s in (setup, swapped)]
  states = [game.new_initial_state() for game in games]
  rng = np.random.RandomState(seed)
  hidden = {rules.parse_square(name) for name in ("b3", "h3")}
  steps = 0
  while not states[0].is_terminal() and steps < 300:
    assert _hidden_views(states[0], 1) == _hidden_views(states[1], 1)
    assert _hidden_views(states[0], 0) != _hidden_views(states[1], 0)
    assert states[0].legal_actions() == states[1].legal_actions()
    every_move = range(BARRAGE.move_base, BARRAGE.num_distinct_actions, 7)
    assert ([states[0].action_to_string(1, a) for a in every_move] ==
            [states[1].action_to_string(1, a) for a in every_move])
    action = int(rng.choice(states[0].legal_actions()))
    move = BARRAGE.decode_move(action)
    attack = states[0].owner[move.target] != -1
    if attack and {move.origin, move.target} & hidden:
      break  # The attack would reveal a swapped piece.
    if move.origin in hidden:
      hidden = (hidden - {move.origin}) | {move.target}
    for state in states:
      state.apply_action(action)
    steps += 1
  assert steps > 5


def test_opponent_setup_is_hidden_until_both_are_placed():
  """Player 1 places without seeing where player 0's pieces went, and the
  order of player 0's placements never shows."""
  game = pyspiel.load_game("barrage_stratego")
  setup = rules.EXAMPLE_SETUPS["barrage"]
  swapped = setup.replace("G", "x").replace("M", "G").replace("x", "M")
  states = []
  for text in (setup, swapped):
    state = game.new_initial_state()
    for action in rules.setup_placement_actions(BARRAGE, 0, text):
      state.apply_action(action)
    states.append(state)
  assert _hidden_views(states[0], 1) == _hidden_views(states[1], 1)
  assert "?" not in states[0].observation_string(1)
  for action in rules.setup_placement_actions(
      BARRAGE, 1, rules.mirrored_setup(setup)):
    for state in states:
      state.apply_action(action)
  assert _hidden_views(states[0], 1) == _hidden_views(states[1], 1)
  assert states[0].observation_string(1).count("?") == BARRAGE.army_size


@pytest.mark.parametrize("game_string", [
    pytest.param("barrage_stratego", marks=pytest.mark.slow), "stratego"])
def test_full_length_random_games(game_string):
  """Default parameters: OpenSpiel's random simulation, serialization too."""
  conformance.check_random_simulation(pyspiel.load_game(game_string), 3)
