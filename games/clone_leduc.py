"""m-Clone Leduc poker, the XDO thesis's game where PSRO's pure strategies explode.

Every fold/call/raise of Leduc poker is duplicated `clones` times: action id `a`
is base action `a % 3` (0 fold, 1 call, 2 raise) played through clone `a // 3`.
Chance outcomes are Leduc's. Clones are indistinguishable to both players, so
information-state and observation strings and tensors are exactly Leduc's (936
information states for any number of clones), while the number of histories
grows with every cloned decision (9,457 for one clone, 468,517 for two): the
game registers itself as Leduc's clones (`registry.register_clones`), so that
exact evaluations walk Leduc's tree.
The rules are OpenSpiel's C++ `leduc_poker` state.
"""

from typing import Any, Optional

from open_spiel_ext.games import registry
from open_spiel_ext.games import validation
from open_spiel_ext.games import wrapped
import pyspiel

NUM_BASE_ACTIONS = 3

_LEDUC = pyspiel.load_game("leduc_poker")
_GAME_TYPE = wrapped.derived_game_type(
    _LEDUC.get_type(),
    short_name="xdo_clone_leduc",
    long_name="Clone Leduc Poker (XDO)",
    parameter_specification={"clones": 2})


class CloneActionMap(wrapped.ActionMap):
  """Player action `a` is Leduc's `a % 3` through clone `a // 3`."""

  def __init__(self, clones: int):
    self.clones = clones

  def outer_actions(self, player: int, inner_actions: list[int]) -> list[int]:
    if player == pyspiel.PlayerId.CHANCE:
      return inner_actions
    return sorted(base + NUM_BASE_ACTIONS * clone
                  for clone in range(self.clones)
                  for base in inner_actions)

  def inner_action(self, player: int, action: int) -> int:
    if player == pyspiel.PlayerId.CHANCE:
      return action
    return action % NUM_BASE_ACTIONS


class CloneLeducGame(wrapped.WrappedGame):
  """Leduc poker with every player action duplicated `clones` times."""

  def __init__(self, params: Optional[dict[str, Any]] = None):
    params = validation.with_defaults(_GAME_TYPE, params)
    clones = params["clones"]
    validation.require_at_least(_GAME_TYPE.short_name, "clones", clones, 1)
    super().__init__(_GAME_TYPE, params, _LEDUC, NUM_BASE_ACTIONS * clones,
                     CloneActionMap(clones))

  def new_initial_state(self) -> "CloneLeducState":
    return CloneLeducState(self, self.inner_game.new_initial_state())


class CloneLeducState(wrapped.WrappedState):
  """A Clone Leduc state: a Leduc state plus the clone index of each action."""

  def _action_to_string(self, player: int, action: int) -> str:
    base_string = super()._action_to_string(player, action)
    if player == pyspiel.PlayerId.CHANCE:
      return base_string
    return f"{base_string}#{action // NUM_BASE_ACTIONS}"

  def __str__(self) -> str:
    clone_indices = [
        str(item.action // NUM_BASE_ACTIONS)
        for item in self.full_history()
        if item.player != pyspiel.PlayerId.CHANCE
    ]
    return f"{self.inner}Clone indices: {' '.join(clone_indices)}"


def _clones_of(game: CloneLeducGame) -> registry.Clones:
  return registry.Clones(_LEDUC, game.get_parameters()["clones"])


registry.register(_GAME_TYPE, CloneLeducGame)
registry.register_clones(_GAME_TYPE.short_name, _clones_of)
