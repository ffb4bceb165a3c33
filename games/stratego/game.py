"""Barrage Stratego and classic Stratego as pyspiel games.

`barrage_stratego` (8 pieces a side) and `stratego` (40) share this engine and
differ only in the army (`rules.ARMIES`) and the default ply limit. The rules,
the action encoding and the board notation are in `rules.py`; the batched
engine in `batched.py` reads the same tables.

Parameters:
  setup: `placement` (default): the players place their pieces as actions, so
    the setup is part of the strategy; `random`: chance places them, uniformly
    over all setups (explicit chance: each placement is a chance node whose
    probabilities make every setup equally likely); `fixed`: the setups are
    `setup0` and `setup1`, in board notation, and play starts with player 0's
    first move.
  setup0, setup1: the fixed setups (only with `setup=fixed`).
  ply_limit: plies after the setup after which the game is a draw.
  more_squares_rule: whether the ISF's rule against endless chasing holds
    (`rules.py` states it).
  both_stuck_draw: whether a player who cannot move draws, instead of losing,
    when the other player could not move either.

A player sees the other's occupied squares, never the identities, once both
setups are complete. An attack reveals both pieces' identities to both players;
a Scout moving more than one square reveals that it is a Scout. The
information-state string is the observer's setup followed by every move of the
game as both players saw it; the tensors are named planes (see
`observer.py`). `notation.py` parses the moves a person types and tells plies
in words.
"""

import bisect
import collections
from typing import Any, Optional


from open_spiel_ext.games import registry
from open_spiel_ext.games import validation
from open_spiel_ext.games.stratego import observer as observer_lib
from open_spiel_ext.games.stratego import rules as rules_lib
import pyspiel

SETUP_MODES = ("placement", "random", "fixed")
NO_PIECE = -1  # `owner` and `kind` of an empty square.


def _game_type(short_name: str, long_name: str, ply_limit: int,
               chance_mode: pyspiel.GameType.ChanceMode) -> pyspiel.GameType:
  return registry.two_player_zero_sum_type(
      short_name, long_name, chance_mode, {
          "setup": "placement",
          "setup0": "",
          "setup1": "",
          "ply_limit": ply_limit,
          "more_squares_rule": True,
          "both_stuck_draw": True,
      },
      provides_factored_observation_string=False)


class StrategoGame(pyspiel.Game):
  """Stratego with the army and default ply limit a subclass names."""

  ARMY = ""
  GAME_TYPE: pyspiel.GameType = None

  def __init__(self, params: Optional[dict[str, Any]] = None):
    params = validation.with_defaults(self.GAME_TYPE, params)
    name = self.GAME_TYPE.short_name
    self.rules = rules_lib.rules_for(self.ARMY)
    self.setup_mode = params["setup"]
    self.ply_limit = params["ply_limit"]
    self.more_squares_rule = params["more_squares_rule"]
    self.both_stuck_draw = params["both_stuck_draw"]
    validation.require_one_of(name, "setup", self.setup_mode, SETUP_MODES)
    validation.require_at_least(name, "ply_limit", self.ply_limit, 1)
    self.fixed_setups = self._fixed_setups(params)
    chance_mode = (pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
                   if self.setup_mode == "random" else
                   pyspiel.GameType.ChanceMode.DETERMINISTIC)
    placements = (2 * self.rules.army_size
                  if self.setup_mode == "placement" else 0)
    super().__init__(
        _game_type(name, self.GAME_TYPE.long_name, self.ply_limit,
                   chance_mode),
        pyspiel.GameInfo(
            num_distinct_actions=self.rules.num_distinct_actions,
            max_chance_outcomes=(self.rules.move_base
                                 if self.setup_mode == "random" else 0),
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=placements + self.ply_limit),
        params)

  def _fixed_setups(self, params: dict[str, Any]) -> Optional[list[list[int]]]:
    """The fixed setups as placement actions, or None; checks the strings."""
    name = self.GAME_TYPE.short_name
    strings = [params["setup0"], params["setup1"]]
    if self.setup_mode != "fixed":
      for player, text in enumerate(strings):
        if text:
          raise ValueError(f"{name}: setup{player} is only used with "
                           f"setup=fixed, got setup={self.setup_mode}")
      return None
    for player, text in enumerate(strings):
      if not text:
        raise ValueError(f"{name}: setup=fixed needs setup{player}, got "
                         f"setup{player}=''")
    return [
        rules_lib.setup_placement_actions(self.rules, player, text,
                                          f"{name}: setup{player}")
        for player, text in enumerate(strings)
    ]

  def new_initial_state(self) -> "StrategoState":
    return StrategoState(self)

  def make_py_observer(
      self,
      iig_obs_type: Optional[pyspiel.IIGObservationType] = None,
      params: Optional[dict[str, Any]] = None
  ) -> observer_lib.StrategoObserver:
    if params:
      raise ValueError(f"Observation parameters not supported; got {params}")
    return observer_lib.StrategoObserver(
        self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class StrategoState(pyspiel.State):
  """A Stratego position: the board, what each side knows, and the history.

  Per square: `owner` (-1 empty), `kind` (type index, -1 empty), and whether
  the piece there has `moved`, was `revealed` by an attack, or `shown_scout`
  by a long move (flags travel with their piece).
  """

  def __init__(self, game: StrategoGame):
    super().__init__(game)
    self._rules = game.rules
    self._ply_limit = game.ply_limit
    self._chance_setup = game.setup_mode == "random"
    squares = rules_lib.NUM_SQUARES
    self.owner = [NO_PIECE] * squares
    self.kind = [NO_PIECE] * squares
    self.moved = [False] * squares
    self.revealed = [False] * squares
    self.shown_scout = [False] * squares
    self.evading = [False] * squares  # Evaded during the current chase.
    self.pieces = [[], []]  # Each player's occupied squares, sorted.
    self.setups = [[], []]  # Each player's squares in placement order.
    self.captured = [[0] * game.rules.num_types for _ in range(2)]
    self.ply = 0
    self.moves = []  # (origin, target, action) of each ply after the setup.
    # (attacker type, defender type, outcome) of the last ply, None if it
    # attacked nothing.
    self.last_combat = None
    self.public_moves = []  # Each ply as both players saw it.
    # Per player, its last move (a `rules.Move`; None if none or if its
    # attacker was removed) and the two-square rule's count.
    self.last_move = [None, None]
    self.back_and_forth = [0, 0]
    self._more_squares_rule = game.more_squares_rule
    self._both_stuck_draw = game.both_stuck_draw
    self.chaser = None  # The player chasing now, if any.
    self.chase_square = None  # Where the chaser's last moved piece stands.
    self.chase_positions = collections.deque(maxlen=rules_lib.CHASE_MEMORY)
    self.winner = None  # A player, or -1 for a draw, once the game is over.
    self._legal = None  # Cached legal actions of the player to move.
    if game.fixed_setups is not None:
      for player_actions in game.fixed_setups:
        for action in player_actions:
          self._place(*divmod(action, rules_lib.NUM_SQUARES))
      self._after_setup_step()

  # Who moves.

  def setup_done(self) -> bool:
    return len(self.setups[1]) == self._rules.army_size

  def placing_player(self) -> int:
    return 0 if len(self.setups[0]) < self._rules.army_size else 1

  def current_player(self) -> int:
    if self.winner is not None:
      return pyspiel.PlayerId.TERMINAL
    if not self.setup_done():
      return (pyspiel.PlayerId.CHANCE if self._chance_setup else
              self.placing_player())
    return self.ply % 2

  def is_terminal(self) -> bool:
    return self.winner is not None

  def returns(self) -> list[float]:
    if self.winner is None or self.winner < 0:
      return [0.0, 0.0]
    return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

  # Legal actions.

  def _placement_squares(self) -> list[int]:
    player = self.placing_player()
    placed = len(self.setups[player])
    rules = self._rules
    same_type_before = (
        placed > 0 and rules.placement_types[placed - 1] ==
        rules.placement_types[placed])
    last_square = self.setups[player][-1] if same_type_before else -1
    empty = [
        row * rules_lib.BOARD_SIZE + col
        for row in rules_lib.SETUP_ROWS[player]
        for col in range(rules_lib.BOARD_SIZE)
        if self.owner[row * rules_lib.BOARD_SIZE + col] == NO_PIECE
    ]
    return rules.setup_square_candidates(empty, placed, last_square)

  def _placement_actions(self) -> list[int]:
    player = self.placing_player()
    piece_type = self._rules.placement_types[len(self.setups[player])]
    return [self._rules.placement_action(piece_type, square)
            for square in self._placement_squares()]

  def _move_actions(self, player: int, chasing: bool = True) -> list[int]:
    """Legal moves of `player`, ascending, the two-square rule applied, and
    the more-squares rule too if `chasing`."""
    owner, kind = self.owner, self.kind
    movable, scout = self._rules.movable, self._rules.scout
    steps, per_square = rules_lib.MAX_DISTANCE, rules_lib.MOVES_PER_SQUARE
    opponent = 1 - player
    actions = []
    for origin in self.pieces[player]:
      piece_type = kind[origin]
      if not movable[piece_type]:
        continue
      first = self._rules.move_base + origin * per_square
      for direction, ray in enumerate(rules_lib.RAYS[origin]):
        action = first + direction * steps
        if not scout[piece_type]:
          if ray and owner[ray[0]] != player:
            actions.append(action)
          continue
        for square in ray:
          if owner[square] == player:
            break
          actions.append(action)
          if owner[square] == opponent:
            break
          action += 1
    if self.back_and_forth[player] >= rules_lib.MAX_BACK_AND_FORTH:
      forbidden = self._back_and_forth_moves(player)
      actions = [a for a in actions if a not in forbidden]
    if chasing and self.chaser == player:
      actions = [a for a in actions if not self.repeats_chase(player, a)]
    return actions

  def repeats_chase(self, player: int, action: int) -> bool:
    """Whether the more-squares rule forbids this move of the chaser: a
    chasing move back to a position of the chase, other than straight back
    to where the piece came from on the chaser's previous move."""
    move = self._rules.decode_move(action)
    origin, target = move.origin, move.target
    if target is None or self.owner[target] != NO_PIECE or not any(
        self.evading[square] for square in rules_lib.NEIGHBOURS[target]):
      return False  # Off the board, an attack, or chasing no evader.
    last = self.last_move[player]
    if last is not None and (last.target, last.origin) == (origin, target):
      return False
    after = bytearray(self._position_key())
    after[origin], after[target] = after[target], after[origin]
    return bytes(after) in self.chase_positions

  def _position_key(self) -> bytes:
    """The position as the more-squares rule compares them: each square's
    owner and piece type."""
    return bytes((owner + 1) * 16 + kind + 1
                 for owner, kind in zip(self.owner, self.kind))

  def _back_and_forth_moves(self, player: int) -> range:
    """The moves that continue `player`'s count of the two-square rule
    (see `rules.py`): from its last move's target back towards that move's
    origin, at most as far (to an empty square or an attack alike)."""
    last = self.last_move[player]
    if last is None:
      return range(0)
    first = self._rules.move_action(last.target, last.direction ^ 1, 1)
    return range(first, first + last.distance)

  def _legal_actions(self, player: int) -> list[int]:
    del player  # Only the player to move has legal actions.
    if self._legal is None:
      if not self.setup_done():
        self._legal = self._placement_actions()
      else:
        self._legal = self._move_actions(self.ply % 2)
    return list(self._legal)

  def chance_outcomes(self) -> list[tuple[int, float]]:
    actions = self._placement_actions()
    player = self.placing_player()
    probabilities = self._rules.placement_probabilities(
        len(actions), len(self.setups[player]))
    return list(zip(actions, probabilities))

  # Applying actions.

  def _apply_action(self, action: int) -> None:
    if self.winner is not None or action not in (
        self._legal if self._legal is not None else
        self._legal_actions(self.current_player())):
      validation.require_legal_action(self, action)
    self._legal = None
    if not self.setup_done():
      self._place(*divmod(action, rules_lib.NUM_SQUARES))
      self._after_setup_step()
    else:
      self._move(action)

  def _place(self, piece_type: int, square: int) -> None:
    player = self.placing_player()
    self.owner[square] = player
    self.kind[square] = piece_type
    bisect.insort(self.pieces[player], square)
    self.setups[player].append(square)

  def _after_setup_step(self) -> None:
    if self.setup_done():
      self._end_turn_checks(mover=1)

  def _move(self, action: int) -> None:
    player = self.ply % 2
    move = self._rules.decode_move(action)
    origin, target = move.origin, move.target
    mover = self.kind[origin]
    attack = self.owner[target] == 1 - player
    if attack:
      self._attack(player, origin, target)
    else:
      self.last_combat = None
      self._relocate(origin, target)
      self.moved[target] = True
      if move.distance > 1:
        self.shown_scout[target] = True
      scout = f" {self._rules.types[mover].abbreviation}" if (
          move.distance > 1) else ""
      self.public_moves.append(
          f"{rules_lib.square_name(origin)}-{rules_lib.square_name(target)}"
          f"{scout}")
    self._count_back_and_forth(player, action)
    self.moves.append((origin, target, action))
    self.ply += 1
    if self._more_squares_rule:
      self._update_chase(player, origin, target, attack)
    self._end_turn_checks(mover=player)

  def _count_back_and_forth(self, player: int, action: int) -> None:
    """Follows the two-square rule's count (see `rules.py`) after `player`'s
    move `action`, an attack included: the count goes on if the move
    continues the back and forth, else starts at 1, and ends if the attacker
    was removed."""
    move = self._rules.decode_move(action)
    if self.owner[move.target] != player:
      self.last_move[player] = None
      self.back_and_forth[player] = 0
      return
    continues = action in self._back_and_forth_moves(player)
    self.back_and_forth[player] = (
        self.back_and_forth[player] + 1 if continues else 1)
    self.last_move[player] = move

  def _update_chase(self, player: int, origin: int, target: int,
                    attack: bool) -> None:
    """Follows the chase (see `rules.py`) after `player`'s move."""
    if attack:
      self._end_chase()
    elif self.chaser == 1 - player:
      if self.chase_square in rules_lib.NEIGHBOURS[origin]:  # An evasion.
        self.evading[target] = True
        self.chase_positions.append(self._position_key())
        return
      self._end_chase()
    elif self.chaser == player:
      if self._threatens(target):
        self.chase_square = target
        self.chase_positions.append(self._position_key())
        return
      self._end_chase()
    if self.owner[target] == player and self._threatens(target):
      self.chaser, self.chase_square = player, target
      self.chase_positions.append(self._position_key())

  def _threatens(self, square: int) -> bool:
    """Whether the piece on `square` stands next to an opponent piece."""
    opponent = 1 - self.owner[square]
    return any(self.owner[n] == opponent for n in rules_lib.NEIGHBOURS[square])

  def _end_chase(self) -> None:
    self.chaser = self.chase_square = None
    self.chase_positions.clear()
    self.evading = [False] * rules_lib.NUM_SQUARES

  def _attack(self, player: int, origin: int, target: int) -> None:
    attacker, defender = self.kind[origin], self.kind[target]
    outcome = self._rules.combat_outcomes[attacker][defender]
    self.last_combat = (attacker, defender, outcome)
    types = self._rules.types
    self.public_moves.append(
        f"{rules_lib.square_name(origin)}x{rules_lib.square_name(target)} "
        f"{types[attacker].abbreviation}:{types[defender].abbreviation}")
    if outcome in (rules_lib.ATTACKER_WINS, rules_lib.FLAG_CAPTURED):
      self._remove(target)
      self._relocate(origin, target)
      self.moved[target] = True
      self.revealed[target] = True
      if outcome == rules_lib.FLAG_CAPTURED:
        self.winner = player
    elif outcome == rules_lib.DEFENDER_WINS:
      self._remove(origin)
      self.revealed[target] = True
    else:
      self._remove(origin)
      self._remove(target)

  def _relocate(self, origin: int, target: int) -> None:
    """Moves the piece on `origin`, with its flags, to the empty `target`."""
    player = self.owner[origin]
    for squares in (self.owner, self.kind, self.moved, self.revealed,
                    self.shown_scout, self.evading):
      squares[target] = squares[origin]
    self._clear(origin)
    pieces = self.pieces[player]
    pieces.remove(origin)
    bisect.insort(pieces, target)

  def _remove(self, square: int) -> None:
    """Takes the piece on `square` off the board as captured."""
    player = self.owner[square]
    self.captured[player][self.kind[square]] += 1
    self.pieces[player].remove(square)
    self._clear(square)

  def _clear(self, square: int) -> None:
    self.owner[square] = NO_PIECE
    self.kind[square] = NO_PIECE
    self.moved[square] = False
    self.revealed[square] = False
    self.shown_scout[square] = False
    self.evading[square] = False

  def _end_turn_checks(self, mover: int) -> None:
    """Ends the game on a draw by the ply limit, or when the next player
    cannot move: it loses, or draws if `mover` could not move either."""
    if self.winner is not None:
      return
    if self.ply >= self._ply_limit:
      self.winner = -1
      return
    self._legal = self._move_actions(1 - mover)
    if not self._legal:
      both_stuck = self._both_stuck_draw and not self._move_actions(
          mover, chasing=False)
      self.winner = -1 if both_stuck else mover

  # Strings.

  def _action_to_string(self, player: int, action: int) -> str:
    """The action as `player` may know it: `Sc b3-b7` (with the moving
    piece's type) to the piece's owner, to everybody once the type is public
    (revealed by an attack or a long move), and to the chance player (any
    negative id); `b3-b7` to the other player while it is hidden. Another
    player's placement is only `placement`."""
    omniscient = player < 0
    if self._rules.is_placement(action):
      placing = not self.setup_done() and self.placing_player() == player
      return (self._rules.action_to_string(action, None)
              if placing or omniscient else "placement")
    move = self._rules.decode_move(action)
    origin = move.origin
    known = (omniscient or self.owner[origin] == player or
             self.revealed[origin] or self.shown_scout[origin])
    piece_type = (self.kind[origin] if known and move.target is not None and
                  self.kind[origin] != NO_PIECE else None)
    return self._rules.action_to_string(action, piece_type)

  def piece_letter(self, square: int, viewer: Optional[int],
                   private: bool = True) -> str:
    """The square in board notation, as a viewer sees it.

    Args:
      square: the square.
      viewer: None for the whole state; `observer.PUBLIC` for what both
        players see (unknown pieces `X` for player 0's, `x` for player 1's); a
        player for what it sees (unknown enemy pieces `?`).
      private: whether a player's view includes its own pieces' identities.
    """
    if square in rules_lib.LAKES:
      return rules_lib.LAKE
    owner = self.owner[square]
    if owner == NO_PIECE:
      return rules_lib.EMPTY
    letter = self._rules.types[self.kind[square]].letter
    letter = letter if owner == 0 else letter.lower()
    if viewer is None or (owner == viewer and private):
      return letter
    if not self.setup_done():
      return rules_lib.EMPTY
    if self.revealed[square] or self.shown_scout[square]:
      return letter
    if viewer == observer_lib.PUBLIC:
      return "X" if owner == 0 else "x"
    return "?"

  def board_rows(self, viewer: Optional[int],
                 private: bool = True) -> list[str]:
    """The board in notation, top row first, as `viewer` sees it."""
    return rules_lib.row_strings([
        self.piece_letter(s, viewer, private)
        for s in range(rules_lib.NUM_SQUARES)
    ])

  def status_line(self) -> str:
    if self.winner is not None:
      result = "draw" if self.winner < 0 else f"player {self.winner} wins"
      return f"ply {self.ply}/{self._ply_limit}, game over: {result}"
    if not self.setup_done():
      player = self.placing_player()
      piece_type = self._rules.placement_types[len(self.setups[player])]
      return (f"setup: player {player} places "
              f"{self._rules.types[piece_type].name}")
    return f"ply {self.ply}/{self._ply_limit}, player {self.ply % 2} to move"

  def captured_line(self) -> str:
    def losses(player):
      return " ".join(
          f"{count}{self._rules.types[t].abbreviation}"
          for t, count in enumerate(self.captured[player]) if count) or "-"
    return f"captured: player 0 lost {losses(0)}; player 1 lost {losses(1)}"

  def view_string(self, viewer: Optional[int], public: bool = True,
                  private: bool = True) -> str:
    """The labelled board with (if `public`) status, last move and captures.

    Args:
      viewer: as in `piece_letter`.
      public: whether to show what both players see.
      private: whether a player sees its own pieces' identities.
    """
    rows = (self.board_rows(viewer, private) if public else
            rules_lib.row_strings([
                self.piece_letter(s, viewer) if self.owner[s] == viewer else
                rules_lib.EMPTY for s in range(rules_lib.NUM_SQUARES)
            ]))
    lines = [self.status_line()] if public else []
    lines += [f"{rules_lib.BOARD_SIZE - i:>2} {row}"
              for i, row in enumerate(rows)]
    lines.append("   abcdefghij")
    if public:
      if self.public_moves:
        lines.append(f"last move: {self.public_moves[-1]}")
      lines.append(self.captured_line())
    return "\n".join(lines)

  def information_state(self, player: int) -> str:
    """The player's setup and every move it saw: its information state."""
    own = [rules_lib.EMPTY] * rules_lib.NUM_SQUARES
    for piece_type, square in zip(self._rules.placement_types,
                                  self.setups[player]):
      own[square] = self._rules.types[piece_type].letter
    lines = [f"player {player} setup "
             f"{rules_lib.setup_rows_string(own, player)}"]
    if self.setup_done():
      opponent = [rules_lib.EMPTY] * rules_lib.NUM_SQUARES
      for square in self.setups[1 - player]:
        opponent[square] = "?"
      lines.append("opponent setup "
                   f"{rules_lib.setup_rows_string(opponent, 1 - player)}")
      lines.append("moves " + " ".join(self.public_moves))
    return "\n".join(lines)

  def __str__(self) -> str:
    return self.view_string(None)


class BarrageStrategoGame(StrategoGame):
  """Barrage Stratego: 8 pieces a side."""
  ARMY = "barrage"
  GAME_TYPE = _game_type("barrage_stratego", "Barrage Stratego", 1000,
                         pyspiel.GameType.ChanceMode.DETERMINISTIC)


class ClassicStrategoGame(StrategoGame):
  """Classic Stratego: 40 pieces a side."""
  ARMY = "classic"
  GAME_TYPE = _game_type("stratego", "Stratego", 2000,
                         pyspiel.GameType.ChanceMode.DETERMINISTIC)


registry.register(BarrageStrategoGame.GAME_TYPE, BarrageStrategoGame)
registry.register(ClassicStrategoGame.GAME_TYPE, ClassicStrategoGame)
