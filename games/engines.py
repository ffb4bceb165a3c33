"""The JAX engine of a game, for the learners: one lookup for every game
that has one (`games/batched_poker.py`, `games/batched_loss_game.py`,
`games/stratego/env.py`)."""

from typing import Any

from open_spiel_ext.games import batched_loss_game
from open_spiel_ext.games import batched_poker
from open_spiel_ext.games.stratego import env as stratego_env
from open_spiel_ext.games.stratego import game as stratego_game
import pyspiel

_LOSS_GAMES = ("loss_game", "turn_based_simultaneous_game")
# Stratego's learners see actions in their own frame (one network plays
# either seat) and material shaping whose sum over a game is 0
# (`games/stratego/env.py`), so returns are still the games' results.
STRATEGO_MATERIAL_SHAPING = 1.0


def for_game(game: pyspiel.Game, auto_reset: bool = True,
             continuous: bool = False) -> Any:
  """The engine of `game` (poker: Kuhn, Leduc, m-Clone Leduc; the Loss Game,
  turn-based, binned or with `continuous` actions; Stratego).

  Raises:
    ValueError: no JAX engine plays `game`, or not with continuous actions.
  """
  if game.get_type().short_name in _LOSS_GAMES:
    return batched_loss_game.TurnBasedLossGame(game, auto_reset, continuous)
  if continuous:
    raise ValueError(f"{game} has discrete actions; continuous actions are "
                     "the Loss Game's")
  if isinstance(game, stratego_game.StrategoGame):
    return stratego_env.StrategoEnv(game, auto_reset, relative_actions=True,
                                    material_shaping=STRATEGO_MATERIAL_SHAPING)
  return batched_poker.for_game(game, auto_reset)
