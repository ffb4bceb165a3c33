"""RPS choice, the XDO thesis's hard instance for PSRO.

Player 0 picks which of `games` rock-paper-scissors games both play (both
observe the pick), then both play it simultaneously (player 1 does not see
player 0's move): win +1, loss −1, tie 0. The value is 0. In normal form player
1 has 3^games pure strategies, one move per possible pick, which is what makes
PSRO's restricted game grow exponentially while XDO's stays small.
"""

from typing import Any, Optional

import numpy as np

from open_spiel_ext.games import registry
from open_spiel_ext.games import subgame_matrix
from open_spiel_ext.games import validation

# Payoffs to player 0; rows and columns are rock, paper, scissors.
RPS_PAYOFFS = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=np.float64)

_GAME_TYPE = subgame_matrix.game_type(
    "rps_choice", "Choice of Rock-Paper-Scissors games", {"games": 2},
    chance_picks=False)


class RpsChoiceGame(subgame_matrix.SubgameMatrixGame):
  """Player 0 picks one of `games` RPS games, then both play it."""

  def __init__(self, params: Optional[dict[str, Any]] = None):
    params = validation.with_defaults(_GAME_TYPE, params)
    validation.require_at_least("rps_choice", "games", params["games"], 1)
    subgame_matrix.check_size("rps_choice", params, params["games"], 3,
                              ("games",))
    payoffs = np.broadcast_to(RPS_PAYOFFS, (params["games"], 3, 3))
    super().__init__(_GAME_TYPE, params, payoffs,
                     ["Rock", "Paper", "Scissors"])


registry.register(_GAME_TYPE, RpsChoiceGame)
