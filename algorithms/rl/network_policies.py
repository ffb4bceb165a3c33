"""Network policies as OpenSpiel policies, and their exact exploitability.

A network policy is a function from a batch of information-state tensors
(and the players whose they are) to logits over the game's actions; its
action probabilities are the softmax over the legal actions
(`nn.masking`). `NetworkPolicy` wraps one as an `open_spiel.python.policy.
Policy`, for any OpenSpiel tool. For a game the tree engine can walk,
`tabulate` evaluates the network once, in one batched call, on every
information state: the result is a policy array of the `GameTree`, so
`TreeSweeps` gives exact best-response values and exploitability (and
`tree.policies.to_tabular` an OpenSpiel `TabularPolicy`).

A game that copies each action of a smaller one (`games/registry.py`'s
`Clones`, such as m-Clone Leduc of Leduc poker, whose tree outgrows memory
long before m = 20) has the smaller game's information states and tensors,
and a cloned policy plays like the policy of the smaller game that gives
each base action the summed probability of its copies (`collapse_clones`).
Best responses need only one copy of each base action, so the two have the
same exploitability: `CloneEvaluator` computes it on the smaller game's
tree (Leduc's 936 information states) for any number of copies.
"""

from typing import Callable, Optional, Sequence

import numpy as np

from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.tree import game_tree as game_tree_lib
from open_spiel_ext.algorithms.tree import sweeps as sweeps_lib
import pyspiel

# [B, *tensor shape] information-state tensors, [B] players -> [B, actions].
LogitsFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


class NetworkPolicy(policy_lib.Policy):
  """A logits function as an OpenSpiel policy (softmax over legal actions)."""

  def __init__(self, game: pyspiel.Game, logits_fn: LogitsFn,
               players: Optional[Sequence[int]] = None):
    if not game.get_type().provides_information_state_tensor:
      raise ValueError(f"NetworkPolicy reads information-state tensors, "
                       f"which game {game} does not provide")
    super().__init__(game, list(range(game.num_players()))
                     if players is None else list(players))
    self._logits_fn = logits_fn

  def action_probabilities(self, state: pyspiel.State,
                           player_id: Optional[int] = None
                          ) -> dict[int, float]:
    player = state.current_player() if player_id is None else player_id
    probabilities = _probabilities(
        self._logits_fn, np.asarray([state.information_state_tensor(player)],
                                    np.float32),
        np.asarray([player]), _mask([state.legal_actions(player)],
                                    self.game.num_distinct_actions()))[0]
    return {action: float(probabilities[action])
            for action in state.legal_actions(player)}


def _mask(legal_actions: Sequence[Sequence[int]],
          num_actions: int) -> np.ndarray:
  mask = np.zeros((len(legal_actions), num_actions), bool)
  for row, actions in enumerate(legal_actions):
    mask[row, actions] = True
  return mask


def _probabilities(logits_fn: LogitsFn, tensors: np.ndarray,
                   players: np.ndarray, legal: np.ndarray) -> np.ndarray:
  logits = np.asarray(logits_fn(tensors, players), np.float64)
  if logits.shape != legal.shape:
    raise ValueError(f"the network gave logits of shape {logits.shape}; "
                     f"the game needs {legal.shape}")
  return masking.masked_softmax(logits, legal)


def infoset_tensors(tree: game_tree_lib.GameTree) -> np.ndarray:
  """[infosets, *shape] the information-state tensor of each information
  state of `tree`, from one of its histories."""
  shape = tree.game.information_state_tensor_shape()
  return np.stack([
      np.reshape(tree.state(node).information_state_tensor(player), shape)
      for node, player in zip(tree.infoset_node, tree.infoset_player)
  ]).astype(np.float32)


def tabulate(tree: game_tree_lib.GameTree, logits_fn: LogitsFn,
             legal: Optional[np.ndarray] = None) -> np.ndarray:
  """[infosets, actions] the network's policy at every information state,
  from one batched call (`legal` defaults to the tree's legal actions)."""
  legal = tree.legal if legal is None else legal
  return _probabilities(logits_fn, infoset_tensors(tree),
                        tree.infoset_player, legal)


def collapse_clones(policy: np.ndarray, clones: int) -> np.ndarray:
  """[..., clones · A] probabilities of a game whose actions are `clones`
  copies of a base game's A -> [..., A] the base game's, summing each base
  action's copies (action a is base a % A of copy a // A)."""
  base_actions = policy.shape[-1] // clones
  return policy.reshape(policy.shape[:-1] +
                        (clones, base_actions)).sum(axis=-2)


class CloneEvaluator:
  """Exact exploitability of network policies of a game that copies the
  actions of `base_game` (`games/registry.py`'s `Clones`), for any number of
  copies, on the tree of `base_game` (built once)."""

  def __init__(self, base_game: pyspiel.Game):
    self.sweeps = sweeps_lib.for_game(base_game)
    self._tensors = infoset_tensors(self.sweeps.tree)

  def collapsed_policy(self, logits_fn: LogitsFn, clones: int) -> np.ndarray:
    """[base infosets, base actions] the base policy a cloned network
    plays."""
    if clones < 1:
      raise ValueError(f"clones must be >= 1, got clones={clones}")
    tree = self.sweeps.tree
    cloned_legal = np.tile(tree.legal, clones)
    return collapse_clones(_probabilities(logits_fn, self._tensors,
                                          tree.infoset_player, cloned_legal),
                           clones)

  def exploitability(self, logits_fn: LogitsFn, clones: int) -> float:
    """The cloned policy's exploitability in the game with `clones`
    copies."""
    return self.sweeps.exploitability(self.collapsed_policy(logits_fn,
                                                            clones))
