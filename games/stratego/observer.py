"""What a player observes of a Stratego game: the named planes of its tensors
and its strings (`StrategoObserver`, which `game.StrategoGame` makes).

`batched_observer.py` computes the same planes, for the default observation,
over a batch of boards.
"""

import numpy as np

from open_spiel_ext.games.stratego import rules as rules_lib
import pyspiel

INFORMATION_STATE_HISTORY = 8  # Plies of past moves in the info-state tensor.
OBSERVATION_HISTORY = 1  # Plies of past moves in the observation tensor.
PUBLIC = -1  # As a viewer: what both players see.


class StrategoObserver:
  """Named planes over the board, and strings, as one player sees the game.

  Planes are 10×10 and seen from the observer's side: rotated 180° for
  player 1, so that a player's own setup rows are always rows 0-3. Named
  planes (T = number of piece types of the army, H = plies of history):
    own_pieces [T] (identities: private, or public once revealed),
    own_occupied, opponent_revealed [T] (identity known: attacked or a
    Scout's long move), opponent_unknown, own_moved, opponent_moved,
    own_revealed (known to the opponent), opponent_scout_shown, lakes,
    own_captured [T] and opponent_captured [T] (constant planes: the fraction
    of the army's pieces of that type lost), setup_phase (all ones while
    placing), ply_progress (ply / ply_limit), last_moves [H, 2] (origin and
    target of the last H plies, latest first).
  The information state (perfect recall) keeps 8 plies of history and its
  string is the observer's setup and the whole game's moves. Other
  observations keep 1 ply and print the board as the observer sees it; a
  public observation shows only what both players see, a private one only the
  observer's own pieces.
  """

  def __init__(self, game: pyspiel.Game,
               iig_obs_type: pyspiel.IIGObservationType):
    if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS or (
        iig_obs_type.perfect_recall and
        (not iig_obs_type.public_info or iig_obs_type.private_info !=
         pyspiel.PrivateInfoType.SINGLE_PLAYER)):
      raise ValueError(
          f"{game.get_type().short_name}: unsupported observation type "
          f"(perfect_recall={iig_obs_type.perfect_recall}, public_info="
          f"{iig_obs_type.public_info}, private_info="
          f"{iig_obs_type.private_info})")
    self._perfect_recall = iig_obs_type.perfect_recall
    self._public = iig_obs_type.public_info
    self._private = (
        iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER)
    self._history = (INFORMATION_STATE_HISTORY if self._perfect_recall else
                     OBSERVATION_HISTORY)
    self._ply_limit = game.ply_limit
    rules = game.rules
    self._counts = np.array(rules.counts, np.float32)
    num_types = rules.num_types
    sizes = [("own_pieces", num_types), ("own_occupied", 1),
             ("opponent_revealed", num_types), ("opponent_unknown", 1),
             ("own_moved", 1), ("opponent_moved", 1), ("own_revealed", 1),
             ("opponent_scout_shown", 1), ("lakes", 1),
             ("own_captured", num_types), ("opponent_captured", num_types),
             ("setup_phase", 1), ("ply_progress", 1),
             ("last_moves", 2 * self._history)]
    num_planes = sum(size for _, size in sizes)
    self.tensor = np.zeros(num_planes * rules_lib.NUM_SQUARES, np.float32)
    self._planes = self.tensor.reshape(num_planes, rules_lib.NUM_SQUARES)
    self._offsets = {}
    self.dict = {}
    start = 0
    for name, size in sizes:
      self._offsets[name] = start
      self.dict[name] = self._planes[start:start + size].reshape(
          size, rules_lib.BOARD_SIZE, rules_lib.BOARD_SIZE)
      start += size
    self.dict["last_moves"] = self.dict["last_moves"].reshape(
        self._history, 2, rules_lib.BOARD_SIZE, rules_lib.BOARD_SIZE)

  def set_from(self, state: pyspiel.State, player: int) -> None:
    """Writes what `player` observes of `state` into `tensor`."""
    self.tensor.fill(0)
    view = ((lambda square: rules_lib.NUM_SQUARES - 1 - square)
            if player == 1 else (lambda square: square))
    self._set_own_pieces(state, player, view)
    if not self._public:
      return
    planes, offsets = self._planes, self._offsets
    for square in rules_lib.LAKES:
      planes[offsets["lakes"], square] = 1
    if state.setup_done():
      for square in state.pieces[1 - player]:
        known = state.revealed[square] or state.shown_scout[square]
        plane = (offsets["opponent_revealed"] + state.kind[square]
                 if known else offsets["opponent_unknown"])
        planes[plane, view(square)] = 1
        planes[offsets["opponent_moved"], view(square)] = state.moved[square]
        planes[offsets["opponent_scout_shown"], view(square)] = (
            state.shown_scout[square])
    for side, name in ((player, "own_captured"),
                       (1 - player, "opponent_captured")):
      self.dict[name][:] = (np.array(state.captured[side], np.float32) /
                            self._counts)[:, None, None]
    self.dict["setup_phase"][:] = 0 if state.setup_done() else 1
    self.dict["ply_progress"][:] = state.ply / self._ply_limit
    history = self.dict["last_moves"].reshape(self._history, 2, -1)
    for age, (origin, target, _) in enumerate(
        reversed(state.moves[-self._history:])):
      history[age, 0, view(origin)] = 1
      history[age, 1, view(target)] = 1

  def _set_own_pieces(self, state: pyspiel.State, player: int, view) -> None:
    """Own pieces: identities if private or revealed, where, what is known."""
    planes, offsets = self._planes, self._offsets
    for square in state.pieces[player]:
      known = state.revealed[square] or state.shown_scout[square]
      if self._private or (self._public and known):
        planes[offsets["own_pieces"] + state.kind[square], view(square)] = 1
      if self._private or (self._public and state.setup_done()):
        planes[offsets["own_occupied"], view(square)] = 1
      if self._public:
        planes[offsets["own_moved"], view(square)] = state.moved[square]
        planes[offsets["own_revealed"], view(square)] = known

  def string_from(self, state: pyspiel.State, player: int) -> str:
    if self._perfect_recall:
      return state.information_state(player)
    return state.view_string(player if self._private else PUBLIC,
                             self._public, self._private)
