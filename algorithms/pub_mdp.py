"""The public belief MDP (PuB-MDP) of a 2-player common-payoff game.

In a common-payoff game whose private information is dealt by chance at the
start and whose moves are public, a coordinator that sees only public
information can play for both players: at each public decision it hands the
acting player a *prescription*, an action for each of that player's private
states. The coordinator's state, the public belief, is the public stage and
each player's reach contribution over its private states; for deterministic
prescriptions those are 0/1 masks, and the belief over private-state pairs is
`prior[x0, x1] * reach0[x0] * reach1[x1]`, normalised.

`build(game)` walks a pyspiel game into this form: private states (each
player's information-state string once the deal is over), their joint prior,
and a tree of public stages with the reward of every joint action given the
private states. A move the other player does not observe (Trade Comm's trade
offers) merges with that player's reply into one simultaneous stage, allowed
where the reply ends the game. A game too large to walk registers a builder
from its rules instead (`register_rules`, filled from above:
`open_spiel_ext/experiments/pub_mdp_rules.py` registers Trade Comm's, whose
12-item version has 430 million histories; tests check it against the walk
on small item counts).

The vectorised functions below evaluate K prescriptions at once: expected
immediate rewards, the probability of each public outcome, and the next reach
masks.
"""

import dataclasses
import itertools
from typing import Callable, Optional, Sequence

import numpy as np

from open_spiel_ext.algorithms.nn import masking
import pyspiel

CHANCE = int(pyspiel.PlayerId.CHANCE)
# The one "action" of a player who does not act at a stage.
NO_ACTION = -1


@dataclasses.dataclass(frozen=True)
class Stage:
  """One public decision point.

  Attributes:
    actors: the players choosing at this stage: (0,), (1,) or (0, 1).
    actions: per player, the game actions of its local action indices; a
      player who does not act has the single action NO_ACTION.
    children: [A0, A1] the next stage after each joint action, -1 where the
      game ends.
    reward_table: index into `PubMdp.reward_tables`.
    history: the public actions leading here (game action ids).
  """
  actors: tuple[int, ...]
  actions: tuple[np.ndarray, np.ndarray]
  children: np.ndarray
  reward_table: int
  history: tuple[int, ...]

  def num_actions(self, player: int) -> int:
    return len(self.actions[player])

  @property
  def terminal_only(self) -> bool:
    """Whether every joint action ends the game."""
    return bool(np.all(self.children < 0))


@dataclasses.dataclass(frozen=True)
class Belief:
  """A public belief: a stage and each player's 0/1 reach over its privates."""
  stage: int
  reach: tuple[np.ndarray, np.ndarray]

  def key(self) -> tuple[int, bytes, bytes]:
    return (self.stage, self.reach[0].tobytes(), self.reach[1].tobytes())


@dataclasses.dataclass(frozen=True)
class PubMdp:
  """A game's public belief MDP.

  Attributes:
    game: the pyspiel game.
    private_names: per player, the information-state string of each private
      state.
    prior: [n0, n1] probability of each private-state pair.
    stages: the public stages, the root first.
    reward_tables: [n0, n1, A0, A1] expected reward of each joint action at
      the stages that use the table, given the private states.
    feature_actions: per public step (depth), the game actions that can be
      taken there, in the order of the public-history features.
  """
  game: pyspiel.Game
  private_names: tuple[tuple[str, ...], tuple[str, ...]]
  prior: np.ndarray
  stages: tuple[Stage, ...]
  reward_tables: tuple[np.ndarray, ...]
  feature_actions: tuple[tuple[int, ...], ...]

  @property
  def num_private(self) -> tuple[int, int]:
    return self.prior.shape

  @property
  def num_features(self) -> int:
    """Length of `belief_features`."""
    return sum(map(len, self.feature_actions)) + sum(self.num_private)

  def initial_belief(self) -> Belief:
    n0, n1 = self.num_private
    return Belief(0, (np.ones(n0, np.float32), np.ones(n1, np.float32)))

  def joint_weights(self, belief: Belief) -> np.ndarray:
    """[n0, n1] unnormalised probability of each private pair."""
    return self.prior * np.outer(belief.reach[0], belief.reach[1])

  def public_features(self, stage: int) -> np.ndarray:
    """One-hot of the public action taken at each step so far."""
    parts = []
    history = self.stages[stage].history
    for depth, actions in enumerate(self.feature_actions):
      one_hot = np.zeros(len(actions), np.float32)
      if depth < len(history):
        one_hot[actions.index(history[depth])] = 1
      parts.append(one_hot)
    return np.concatenate(parts)

  def belief_features(self, belief: Belief) -> np.ndarray:
    """Public-history one-hots, then each player's reach normalised to sum
    to 1 (as in CAPI's reference code, which feeds the marginals)."""
    return np.concatenate([self.public_features(belief.stage)] + [
        normalised_reach(r[None])[0] for r in belief.reach]).astype(np.float32)

  def prescription_space(self, stage: int) -> list[tuple[np.ndarray,
                                                          np.ndarray]]:
    """Every deterministic joint prescription at a stage, as (Γ0, Γ1)."""
    per_player = []
    for player, n in enumerate(self.num_private):
      per_player.append(list(itertools.product(
          range(self.stages[stage].num_actions(player)), repeat=n)))
    return [(np.array(g0), np.array(g1))
            for g0, g1 in itertools.product(*per_player)]

  def step(self, belief: Belief, gamma0: np.ndarray, gamma1: np.ndarray
          ) -> tuple[float, list[tuple[float, Belief]]]:
    """Applies one joint prescription to a belief with positive probability.

    Returns:
      (expected immediate reward, [(probability, next belief)] over the
      public outcomes with positive probability that do not end the game).
    """
    stage = self.stages[belief.stage]
    weights = self.joint_weights(belief)
    total = weights.sum()
    if total <= 0:
      raise ValueError(f"belief at stage {belief.stage} has probability 0")
    weights = weights / total
    table = self.reward_tables[stage.reward_table]
    reward = float(expected_rewards(weights, table, gamma0[None],
                                    gamma1[None])[0])
    probabilities = np.asarray(outcome_probabilities(
        weights, gamma0[None], gamma1[None], stage.num_actions(0),
        stage.num_actions(1)))[0]
    successors = []
    for a0, a1 in zip(*np.nonzero(probabilities)):
      child = stage.children[a0, a1]
      if child >= 0:
        successors.append((float(probabilities[a0, a1]), Belief(
            int(child), (next_reach(belief.reach[0], gamma0, a0),
                         next_reach(belief.reach[1], gamma1, a1)))))
    return reward, successors


def expected_rewards(weights: np.ndarray, table: np.ndarray,
                     gamma0: np.ndarray, gamma1: np.ndarray) -> np.ndarray:
  """[K] expected reward of K joint prescriptions.

  Where only one player acts (the other has the single action 0), the other
  player's private states are summed out first, so the cost is K × n rather
  than K × n0 × n1.

  Args:
    weights: [n0, n1] belief over private pairs (summing to 1).
    table: [n0, n1, A0, A1] reward of each joint action given the privates.
    gamma0: [K, n0] player 0's local action in each private state.
    gamma1: [K, n1] player 1's.
  """
  n0, n1 = weights.shape
  if table.shape[3] == 1:
    per_action = np.einsum("xy,xya->xa", weights, table[:, :, :, 0])
    return per_action[np.arange(n0), gamma0].sum(-1)
  if table.shape[2] == 1:
    per_action = np.einsum("xy,xyb->yb", weights, table[:, :, 0, :])
    return per_action[np.arange(n1), gamma1].sum(-1)
  rewards = table[np.arange(n0)[None, :, None], np.arange(n1)[None, None, :],
                  gamma0[:, :, None], gamma1[:, None, :]]
  return np.einsum("kxy,xy->k", rewards, weights)


def outcome_probabilities(weights: np.ndarray, gamma0: np.ndarray,
                          gamma1: np.ndarray, num_actions0: int,
                          num_actions1: int) -> np.ndarray:
  """[K, A0, A1] probability of each public joint action under K prescriptions.
  """
  if num_actions1 == 1:
    return action_totals(weights.sum(1), gamma0, num_actions0)[:, :, None]
  if num_actions0 == 1:
    return action_totals(weights.sum(0), gamma1, num_actions1)[:, None, :]
  chosen0 = np.eye(num_actions0, dtype=weights.dtype)[gamma0]
  chosen1 = np.eye(num_actions1, dtype=weights.dtype)[gamma1]
  return np.einsum("xy,kxa,kyb->kab", weights, chosen0, chosen1)


def action_totals(values: np.ndarray, gamma: np.ndarray,
                  num_actions: int) -> np.ndarray:
  """[K, A] float64: the sum of values[x] over the private states x that
  prescription k sends to action a (gamma is [K, n], values [n])."""
  num_prescriptions = len(gamma)
  cells = np.arange(num_prescriptions)[:, None] * num_actions + gamma
  totals = np.bincount(cells.ravel(),
                       np.broadcast_to(values, gamma.shape).ravel(),
                       minlength=num_prescriptions * num_actions)
  return totals.reshape(num_prescriptions, num_actions)


def normalised_reach(reach: np.ndarray) -> np.ndarray:
  """[B, n] reach masks scaled to sum to 1 (an all-zero row stays zero)."""
  totals = reach.sum(-1, keepdims=True)
  return reach / np.where(totals > 0, totals, 1)


def next_reach(reach: np.ndarray, gamma: np.ndarray, action: int
              ) -> np.ndarray:
  """A player's reach mask after its prescription `gamma` took `action`."""
  return (reach * (np.asarray(gamma) == action)).astype(reach.dtype)


def build(game: pyspiel.Game) -> PubMdp:
  """The PuB-MDP of a 2-player common-payoff game (see the module docstring).

  Raises:
    ValueError: the game is not 2-player common-payoff, has chance after the
      first move, legal actions that depend on private information, or moves
      that are neither public nor a hidden move answered by the game's last.
  """
  game_type = game.get_type()
  if game.num_players() != 2 or game_type.utility not in (
      pyspiel.GameType.Utility.IDENTICAL,
      pyspiel.GameType.Utility.GENERAL_SUM):
    raise ValueError(f"{game} is not a 2-player common-payoff game")
  if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
    raise ValueError(f"{game} is not sequential")
  from_rules = _RULES.get(game_type.short_name)
  return from_rules(game) if from_rules else _Walker(game).build()


# Builders of a game's PuB-MDP from its rules, by the game's short name.
_RULES: dict[str, Callable[[pyspiel.Game], PubMdp]] = {}


def register_rules(short_name: str,
                   builder: Callable[[pyspiel.Game], PubMdp]) -> None:
  """Makes `build` call `builder(game)` for the games of `short_name`
  instead of walking their tree.

  Raises:
    ValueError: `short_name` has a builder already.
  """
  if short_name in _RULES:
    raise ValueError(f"short_name={short_name!r} has a PuB-MDP builder "
                     "already")
  _RULES[short_name] = builder


class _Walker:
  """Walks a pyspiel game's public tree, all deals at once."""

  def __init__(self, game: pyspiel.Game):
    self.game = game
    self.deals = []  # (state, probability)
    self._deal(game.new_initial_state(), 1.0)
    names = ([], [])
    self.private = []  # per deal: (x0, x1)
    for state, _ in self.deals:
      pair = []
      for player in range(2):
        name = state.information_state_string(player)
        if name not in names[player]:
          names[player].append(name)
        pair.append(names[player].index(name))
      self.private.append(tuple(pair))
    self.names = (tuple(names[0]), tuple(names[1]))
    self.prior = np.zeros((len(names[0]), len(names[1])))
    for (state, probability), (x0, x1) in zip(self.deals, self.private):
      self.prior[x0, x1] += probability
    self.stages = []
    self.tables = []
    self.table_index = {}
    self.feature_actions = {}

  def _deal(self, state: pyspiel.State, probability: float) -> None:
    if state.is_chance_node():
      for action, p in state.chance_outcomes():
        self._deal(state.child(action), probability * p)
    elif state.is_terminal():
      raise ValueError(f"{self.game} can end before any player moves")
    else:
      self.deals.append((state, probability))

  def build(self) -> PubMdp:
    self._stage([state for state, _ in self.deals], ())
    depth = max(self.feature_actions, default=-1) + 1
    return PubMdp(
        game=self.game, private_names=self.names,
        prior=self.prior.astype(np.float32), stages=tuple(self.stages),
        reward_tables=tuple(self.tables),
        feature_actions=tuple(tuple(sorted(self.feature_actions.get(d, ())))
                              for d in range(depth)))

  def _common(self, states: Sequence[pyspiel.State], what: str, value_of):
    values = {repr(value_of(state)) for state in states}
    if len(values) != 1:
      raise ValueError(f"{self.game}: {what} depends on private information "
                       f"after public history {states[0].history()}")
    return value_of(states[0])

  def _stage(self, states: list[pyspiel.State], history: tuple[int, ...]
            ) -> int:
    """Adds the stage whose histories are `states` (one per deal)."""
    if any(state.is_chance_node() for state in states):
      raise ValueError(f"{self.game} has chance after a player's move")
    actor = self._common(states, "the player to move",
                         lambda s: s.current_player())
    actions = self._common(states, "the legal actions",
                           lambda s: s.legal_actions())
    index = len(self.stages)
    self.stages.append(None)
    other = 1 - actor
    if self._is_hidden(states[0], actor, actions):
      stage = self._simultaneous_stage(states, actor, actions, history)
    else:
      children = np.full((len(actions), 1), -1)
      table = np.zeros(self.prior.shape + (len(actions), 1))
      for local, action in enumerate(actions):
        next_states = [state.child(action) for state in states]
        if next_states[0].is_terminal():
          table[:, :, local, 0] = self._rewards(next_states)
        else:
          self.feature_actions.setdefault(len(history), set()).add(action)
          children[local, 0] = self._stage(next_states, history + (action,))
      stage_actions = [None, None]
      stage_actions[actor] = np.array(actions)
      stage_actions[other] = np.array([NO_ACTION])
      if actor == 1:
        children, table = children.T, np.swapaxes(table, 2, 3)
      stage = Stage((actor,), tuple(stage_actions), children,
                    self._table(table), history)
    self.stages[index] = stage
    return index

  def _is_hidden(self, state: pyspiel.State, actor: int,
                 actions: Sequence[int]) -> bool:
    """Whether the other player's view is the same after every action."""
    views = {state.child(a).information_state_string(1 - actor)
             for a in actions}
    if len(views) == len(actions):
      return False
    if len(views) == 1:
      return True
    raise ValueError(f"{self.game}: player {actor}'s move after "
                     f"{state.history()} is partly observed")

  def _simultaneous_stage(self, states, actor, actions, history) -> Stage:
    """A hidden move and the other player's reply, which must end the game."""
    replies = None
    table = None
    for local, action in enumerate(actions):
      next_states = [state.child(action) for state in states]
      if any(s.is_terminal() or s.current_player() != 1 - actor
             for s in next_states):
        raise ValueError(f"{self.game}: a hidden move must be answered by "
                         f"the other player")
      reply_actions = self._common(next_states, "the legal actions",
                                   lambda s: s.legal_actions())
      if replies is None:
        replies = reply_actions
        table = np.zeros(self.prior.shape + (len(actions), len(replies)))
      elif replies != reply_actions:
        raise ValueError(f"{self.game}: replies to a hidden move differ")
      for reply_local, reply in enumerate(replies):
        ends = [s.child(reply) for s in next_states]
        if not all(s.is_terminal() for s in ends):
          raise ValueError(f"{self.game}: the reply to a hidden move must "
                           f"end the game")
        table[:, :, local, reply_local] = self._rewards(ends)
    stage_actions = [None, None]
    stage_actions[actor] = np.array(actions)
    stage_actions[1 - actor] = np.array(replies)
    if actor == 1:
      table = np.swapaxes(table, 2, 3)
    children = np.full(table.shape[2:], -1)
    return Stage((0, 1), tuple(stage_actions), children, self._table(table),
                 history)

  def _rewards(self, terminals: Sequence[pyspiel.State]) -> np.ndarray:
    """[n0, n1] expected common payoff of terminal histories, one per deal."""
    total = np.zeros_like(self.prior)
    for state, (_, probability), (x0, x1) in zip(terminals, self.deals,
                                                  self.private):
      returns = state.returns()
      if returns[0] != returns[1]:
        raise ValueError(f"{self.game} is not common-payoff: returns "
                         f"{returns} after {state.history()}")
      total[x0, x1] += probability * returns[0]
    return np.divide(total, self.prior, out=np.zeros_like(total),
                     where=self.prior > 0)

  def _table(self, table: np.ndarray) -> int:
    table = table.astype(np.float32)
    key = (table.shape, table.tobytes())
    if key not in self.table_index:
      self.table_index[key] = len(self.tables)
      self.tables.append(table)
    return self.table_index[key]


@dataclasses.dataclass(frozen=True)
class BeliefGraph:
  """Every belief deterministic prescriptions reach, with every transition.

  Beliefs are numbered in breadth-first order, the initial belief first, so a
  belief's successors come after it.

  Attributes:
    beliefs: the beliefs.
    prescriptions: per belief, its stage's joint prescriptions (Γ0, Γ1).
    valid: [beliefs, J] which of the J entries are prescriptions (J: most
      prescriptions at any belief; the rest is padding).
    rewards: [beliefs, J] expected immediate reward (0 for padding).
    next_belief: [beliefs, J, O] successor beliefs (-1: none or padding).
    probability: [beliefs, J, O] their probabilities.
  """
  beliefs: tuple[Belief, ...]
  prescriptions: tuple[list[tuple[np.ndarray, np.ndarray]], ...]
  valid: np.ndarray
  rewards: np.ndarray
  next_belief: np.ndarray
  probability: np.ndarray

  def values(self, choice: np.ndarray) -> np.ndarray:
    """[B] expected return from the initial belief of B coordinator policies.

    Args:
      choice: [B, beliefs] the prescription each policy picks at each belief.
    """
    values = np.zeros(choice.shape, np.float64)
    rows = np.arange(choice.shape[0])
    for belief in reversed(range(len(self.beliefs))):
      picked = choice[:, belief]
      successors = self.next_belief[belief, picked]
      future = np.where(successors >= 0,
                        values[rows[:, None], np.maximum(successors, 0)], 0)
      values[:, belief] = self.rewards[belief, picked] + np.sum(
          self.probability[belief, picked] * future, axis=1)
    return values[:, 0]

  def optimal_values(self) -> np.ndarray:
    """[beliefs] the best expected return from each belief (dynamic program)."""
    values = np.zeros(len(self.beliefs))
    for belief in reversed(range(len(self.beliefs))):
      successors = self.next_belief[belief]
      future = np.where(successors >= 0, values[np.maximum(successors, 0)], 0)
      values[belief] = masking.masked_max(
          self.rewards[belief] + np.sum(self.probability[belief] * future,
                                        axis=1), self.valid[belief])
    return values


def belief_graph(mdp: PubMdp, max_prescriptions: int = 100_000
                ) -> BeliefGraph:
  """Enumerates the PuB-MDP reachable with deterministic prescriptions.

  Raises:
    ValueError: a stage has more than `max_prescriptions` joint prescriptions
      (Trade Comm with 12 items has 12^12 at its first stage).
  """
  for index, stage in enumerate(mdp.stages):
    count = np.prod([float(stage.num_actions(p))**n
                     for p, n in enumerate(mdp.num_private)])
    if count > max_prescriptions:
      raise ValueError(f"stage {index} of {mdp.game} has {count:.3g} joint "
                       f"prescriptions, more than max_prescriptions="
                       f"{max_prescriptions}")
  beliefs, index = [mdp.initial_belief()], {}
  index[beliefs[0].key()] = 0
  transitions = []
  for belief in beliefs:  # Grows as successors are found.
    rows = []
    prescriptions = mdp.prescription_space(belief.stage)
    for gamma0, gamma1 in prescriptions:
      reward, successors = mdp.step(belief, gamma0, gamma1)
      row = []
      for probability, successor in successors:
        if successor.key() not in index:
          index[successor.key()] = len(beliefs)
          beliefs.append(successor)
        row.append((index[successor.key()], probability))
      rows.append((reward, row))
    transitions.append((prescriptions, rows))
  width = max(len(rows) for _, rows in transitions)
  outcomes = max(len(row) for _, rows in transitions for _, row in rows)
  valid = np.zeros((len(beliefs), width), bool)
  rewards = np.zeros((len(beliefs), width))
  next_belief = np.full((len(beliefs), width, max(outcomes, 1)), -1)
  probability = np.zeros(next_belief.shape)
  for b, (_, rows) in enumerate(transitions):
    for j, (reward, row) in enumerate(rows):
      valid[b, j], rewards[b, j] = True, reward
      for o, (successor, p) in enumerate(row):
        next_belief[b, j, o], probability[b, j, o] = successor, p
  return BeliefGraph(tuple(beliefs), tuple(p for p, _ in transitions), valid,
                     rewards, next_belief, probability)


def evaluate_policy(mdp: PubMdp, policy, belief: Optional[Belief] = None
                   ) -> float:
  """Expected return of a deterministic coordinator policy, exactly.

  Args:
    mdp: the PuB-MDP.
    policy: maps a Belief to its joint prescription (Γ0, Γ1).
    belief: where to start; the initial belief by default.
  """
  belief = belief or mdp.initial_belief()
  reward, successors = mdp.step(belief, *policy(belief))
  return reward + sum(p * evaluate_policy(mdp, policy, child)
                      for p, child in successors)
