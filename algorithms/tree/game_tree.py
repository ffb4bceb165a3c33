"""A two-player zero-sum game walked once into flat arrays.

Every history (node) of the game gets a row: who acts, its information state,
its parent, the action that led to it, the chance probability of that action,
and, at terminals, player 0's utility. Nodes are numbered level by level (a
node's level is its depth). Sweeps (`sweeps.py`) then go over levels top-down
for reach probabilities and bottom-up for values, one vectorised step per
level, which needs every information set to lie on one level: games whose
information sets mix depths are refused with a ValueError.

Games wrapped around an OpenSpiel C++ game (`open_spiel_ext.games.wrapped`) are
walked through their C++ states with the wrapper's action map, at C++ speed.
"""

import dataclasses
from typing import Callable, Sequence

import numpy as np

from open_spiel_ext.games import wrapped
import pyspiel

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


@dataclasses.dataclass(frozen=True)
class GameTree:
  """The arrays of a game tree; nodes in level order, the root first.

  Attributes:
    game: the game that was walked.
    num_actions: the game's number of distinct actions.
    player: [nodes] 0 or 1 at decisions, CHANCE, or TERMINAL.
    infoset: [nodes] information-state index at decisions, else -1.
    parent: [nodes] parent node, -1 at the root.
    action: [nodes] action leading from the parent, -1 at the root.
    chance_prob: [nodes] probability of that action if the parent is a chance
      node, else 1.
    utility: [nodes] player 0's utility at terminals, else 0.
    level_starts: [levels + 1] nodes of level L are
      level_starts[L]:level_starts[L+1].
    infoset_player: [infosets] the player acting there.
    legal: [infosets, num_actions] legal-action mask.
    infoset_keys: [infosets] information-state strings.
    infoset_node: [infosets] one node of each information set.
  """
  game: pyspiel.Game
  num_actions: int
  player: np.ndarray
  infoset: np.ndarray
  parent: np.ndarray
  action: np.ndarray
  chance_prob: np.ndarray
  utility: np.ndarray
  level_starts: np.ndarray
  infoset_player: np.ndarray
  legal: np.ndarray
  infoset_keys: tuple[str, ...]
  infoset_node: np.ndarray

  @property
  def num_nodes(self) -> int:
    return len(self.player)

  @property
  def num_infosets(self) -> int:
    return len(self.infoset_player)

  @property
  def num_levels(self) -> int:
    return len(self.level_starts) - 1

  def history(self, node: int) -> list[int]:
    """The actions from the root to `node`."""
    actions = []
    while self.parent[node] >= 0:
      actions.append(int(self.action[node]))
      node = self.parent[node]
    return actions[::-1]

  def state(self, node: int) -> pyspiel.State:
    """The game state of `node`, rebuilt from its history."""
    state = self.game.new_initial_state()
    for action in self.history(node):
      state.apply_action(action)
    return state


def _check_game(game: pyspiel.Game) -> None:
  game_type = game.get_type()
  if game.num_players() != 2:
    raise ValueError(f"The tree engine needs a 2-player game; {game} has "
                     f"num_players={game.num_players()}")
  if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
    raise ValueError(f"The tree engine needs a sequential game; {game} has "
                     f"dynamics={game_type.dynamics}: load it through "
                     "turn_based_simultaneous_game")
  if game_type.utility != pyspiel.GameType.Utility.ZERO_SUM:
    raise ValueError(f"The tree engine needs a zero-sum game; {game} has "
                     f"utility={game_type.utility}")
  if game_type.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
    raise ValueError(f"The tree engine needs explicit chance; {game} has "
                     "chance_mode=SAMPLED_STOCHASTIC")
  if not game_type.provides_information_state_string:
    raise ValueError(f"The tree engine needs information-state strings, "
                     f"which {game} does not provide")


def _walker(game: pyspiel.Game):
  """Root state and (legal actions, child) functions to walk the game with."""
  if isinstance(game, wrapped.WrappedGame):
    action_map = game.action_map

    def legal_actions(state, player):
      return action_map.outer_actions(player, state.legal_actions())

    def child(state, player, action):
      return state.child(action_map.inner_action(player, action))

    return game.inner_game.new_initial_state(), legal_actions, child

  return (game.new_initial_state(), lambda state, player: state.legal_actions(),
          lambda state, player, action: state.child(action))


def _walk(root: pyspiel.State, legal_actions: Callable, child: Callable):
  """Walks the whole tree depth first; returns per-node lists and infosets."""
  players, infosets, parents, actions, probs, utilities, depths = ([], [], [],
                                                                   [], [], [],
                                                                   [])
  infoset_ids = {}
  infoset_actions = []
  stack = [(root, -1, -1, 1.0, 0)]
  while stack:
    state, parent, action, prob, depth = stack.pop()
    node = len(players)
    depths.append(depth)
    parents.append(parent)
    actions.append(action)
    probs.append(prob)
    if state.is_terminal():
      players.append(TERMINAL)
      infosets.append(-1)
      utilities.append(state.returns()[0])
      continue
    utilities.append(0.0)
    player = state.current_player()
    players.append(player)
    if player == CHANCE:
      infosets.append(-1)
      stack.extend((state.child(a), node, a, p, depth + 1)
                   for a, p in reversed(state.chance_outcomes()))
      continue
    key = (player, state.information_state_string(player))
    legal = legal_actions(state, player)
    infoset = infoset_ids.setdefault(key, len(infoset_ids))
    if infoset == len(infoset_actions):
      infoset_actions.append((legal, node))
    infosets.append(infoset)
    stack.extend((child(state, player, a), node, a, 1.0, depth + 1)
                 for a in reversed(legal))
  return (players, infosets, parents, actions, probs, utilities, depths,
          infoset_ids, infoset_actions)


def _check_one_depth_per_infoset(game: pyspiel.Game, depth: np.ndarray,
                                 infoset: np.ndarray,
                                 num_infosets: int) -> None:
  decisions = infoset >= 0
  shallowest = np.full(num_infosets, np.iinfo(np.int64).max)
  deepest = np.zeros(num_infosets, np.int64)
  np.minimum.at(shallowest, infoset[decisions], depth[decisions])
  np.maximum.at(deepest, infoset[decisions], depth[decisions])
  if np.any(shallowest != deepest):
    raise ValueError(f"The tree engine needs each information set at one "
                     f"depth; {game} has information sets spanning depths")


def build_tree(game: pyspiel.Game) -> GameTree:
  """Walks `game` once into a GameTree."""
  _check_game(game)
  (players, infosets, parents, actions, probs, utilities, depths, infoset_ids,
   infoset_actions) = _walk(*_walker(game))
  parent = np.asarray(parents, np.int64)
  infoset = np.asarray(infosets, np.int64)
  level = np.asarray(depths, np.int64)
  _check_one_depth_per_infoset(game, level, infoset, len(infoset_ids))
  order = np.argsort(level, kind="stable")  # Keeps depth-first order within.
  new_index = np.empty_like(order)
  new_index[order] = np.arange(len(order))
  parent_sorted = parent[order]
  parent_sorted[parent_sorted >= 0] = new_index[parent_sorted[
      parent_sorted >= 0]]

  num_actions = game.num_distinct_actions()
  legal = np.zeros((len(infoset_ids), num_actions), bool)
  infoset_node = np.zeros(len(infoset_ids), np.int64)
  for index, (legal_actions, node) in enumerate(infoset_actions):
    legal[index, legal_actions] = True
    infoset_node[index] = new_index[node]
  keys = sorted(infoset_ids, key=infoset_ids.get)
  return GameTree(
      game=game,
      num_actions=num_actions,
      player=np.asarray(players, np.int8)[order],
      infoset=infoset[order].astype(np.int32),
      parent=parent_sorted.astype(np.int32),
      action=np.asarray(actions, np.int32)[order],
      chance_prob=np.asarray(probs, np.float64)[order],
      utility=np.asarray(utilities, np.float64)[order],
      level_starts=np.searchsorted(level[order],
                                   np.arange(level.max() + 2)),
      infoset_player=np.asarray([player for player, _ in keys], np.int8),
      legal=legal,
      infoset_keys=tuple(key for _, key in keys),
      infoset_node=infoset_node)


def tree_sizes(tree: GameTree) -> dict[str, int]:
  """Counts of histories by kind and of information states."""
  return {
      "histories": tree.num_nodes,
      "decision": int(np.sum(tree.player >= 0)),
      "terminal": int(np.sum(tree.player == TERMINAL)),
      "chance": int(np.sum(tree.player == CHANCE)),
      "information_states": tree.num_infosets,
  }


def infosets_of(tree: GameTree, player: int) -> Sequence[int]:
  """The information states of `player`."""
  return np.flatnonzero(tree.infoset_player == player)
