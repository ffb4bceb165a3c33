"""CAPI: cooperative approximate policy iteration in the public belief MDP.

A coordinator plays a common-payoff game through its public belief MDP
(`pub_mdp`). At each belief b of an episode it

1. reads a policy over prescriptions that factorises over the acting players'
   private states, π(Γ | b) = ∏_p ∏_x π(Γ_p(x) | b), from a network head (or a
   table per public stage);
2. acquires K prescriptions: K samples, or the K most likely;
3. scores each: q = expected immediate reward + Σ_o P(o) v(b'_o) over the
   public outcomes o, with v the value network on every distinct next belief
   (evaluated once each, in one jitted call per decision);
4. plays the best (a random one of the K with probability ε), and records
   (b, q*, Γ*).

Episodes expand every public branch with positive probability, level by
level; after each, the value network is fitted to q* and the policy to Γ* on
the episode's decisions, and the buffer is cleared. The networks' input is
the belief: one-hots of the public history and each player's 0/1 reach over
its private states, scaled to sum to 1.
"""

import dataclasses
import os
import time
from typing import Iterator, NamedTuple, Optional, Sequence

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import optax

from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.algorithms.nn import layers
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import padding

ACQUISITIONS = ("sample", "most_likely")
POLICIES = ("network", "tabular")
EXPLORATIONS = ("epsilon", "one_per_episode")
# Abstracted Tiny Bridge (the CAPI paper's fig. 5): joint policies worth
# 20.79 exist; the best policy that does not coordinate is worth 20.32.
TINY_BRIDGE = "tiny_bridge_2p(abstracted=True)"
TINY_BRIDGE_TARGET = 20.79
TINY_BRIDGE_NO_COORDINATION = 20.32
# Reach masks are summed as float64 bits (`_action_masks`): exact to 2**53.
_MAX_PRIVATE = 52


@dataclasses.dataclass(frozen=True)
class CapiConfig:
  """Hyperparameters (the Trade Comm settings of the paper by default;
  `tiny_bridge_config()` gives its Tiny Bridge ones).

  `exploration` says where a training episode plays a random one of the
  acquired prescriptions instead of the best: "epsilon" at each decision with
  probability `epsilon`; "one_per_episode" at one decision per episode, drawn
  as a public depth of the game (uniformly) and a belief of the episode at
  that depth (uniformly; none if the episode ends sooner).
  """
  episodes: int = 2_000
  num_prescriptions: int = 10_000
  acquisition: str = "sample"
  policy: str = "network"
  epsilon: float = 0.1
  exploration: str = "epsilon"
  structured_exploration: bool = True
  hidden_sizes: tuple[int, ...] = (256, 256, 256)
  learning_rate: float = 1e-4
  policy_loss_weight: float = 0.01
  updates_per_episode: int = 1
  tabular_policy_rate: float = 0.01
  policy_floor: float = 0.01
  squash_values: bool = False
  eval_every: int = 50
  seed: int = 0

  def validate(self) -> None:
    if self.acquisition not in ACQUISITIONS:
      raise ValueError(f"acquisition must be one of {ACQUISITIONS}, got "
                       f"{self.acquisition!r}")
    if self.exploration not in EXPLORATIONS:
      raise ValueError(f"exploration must be one of {EXPLORATIONS}, got "
                       f"{self.exploration!r}")
    if self.policy not in POLICIES:
      raise ValueError(f"policy must be one of {POLICIES}, got "
                       f"{self.policy!r}")
    for name in ("episodes", "num_prescriptions", "updates_per_episode",
                 "eval_every"):
      if getattr(self, name) < 1:
        raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
    for name in ("epsilon", "tabular_policy_rate", "policy_floor"):
      if not 0 <= getattr(self, name) <= 1:
        raise ValueError(f"{name} must be in [0, 1], got "
                         f"{getattr(self, name)}")
    if not self.hidden_sizes or min(self.hidden_sizes) < 1:
      raise ValueError(f"hidden_sizes must be positive, got "
                       f"{self.hidden_sizes}")
    if self.learning_rate <= 0:
      raise ValueError(f"learning_rate must be > 0, got {self.learning_rate}")


def tiny_bridge_config(**overrides) -> CapiConfig:
  """The paper's Abstracted Tiny Bridge settings (`overrides` replace any):
  a tabular policy per public stage, the 10,000 most likely prescriptions
  with one random row made uniform (structured exploration), one
  exploratory prescription played per episode, values squashed into the
  payoff range, 100,000 episodes. Where the paper is silent (the tabular
  step, Adam steps per episode) the README says what was chosen and why."""
  settings = dict(episodes=100_000, num_prescriptions=10_000,
                  acquisition="most_likely", policy="tabular",
                  exploration="one_per_episode", structured_exploration=True,
                  squash_values=True, updates_per_episode=4,
                  tabular_policy_rate=0.03, eval_every=500)
  settings.update(overrides)
  return CapiConfig(**settings)


@dataclasses.dataclass(frozen=True)
class Progress:
  """One evaluation: the greedy policy's exact value and the last episode's.

  Attributes:
    episode: episodes played.
    greedy_value: exact expected return of the policy's most likely
      prescriptions.
    search_value: exact expected return of an episode without exploration:
      the best of K acquired prescriptions at every belief.
    episode_return: exact expected return of the last episode's choices
      (exploration included).
    root_q: the q* the last episode chose at the initial belief.
    value_loss: the last update's value loss.
    seconds: wall time since the start.
    seconds_by_part: where the time went: policy, acquisition, rewards,
      next beliefs, value network, training.
    distinct_next_beliefs: value-network evaluations so far.
  """
  episode: int
  greedy_value: float
  search_value: float
  episode_return: float
  root_q: float
  value_loss: float
  seconds: float
  seconds_by_part: dict[str, float]
  distinct_next_beliefs: int


@dataclasses.dataclass
class _Decision:
  """A belief met in an episode: the best prescription found (the training
  targets q* and Γ*) and the one played (Γ* unless exploring), with its
  immediate reward."""
  belief: pub_mdp.Belief
  probability: float
  depth: int = 0
  q: float = 0.0
  target: Optional[tuple[np.ndarray, np.ndarray]] = None
  reward: float = 0.0
  chosen: Optional[tuple[np.ndarray, np.ndarray]] = None


class _Outcomes(NamedTuple):
  """The public outcomes of positive probability that continue the game,
  one entry each, over all K prescriptions."""
  prescription: np.ndarray  # k.
  action0: np.ndarray
  action1: np.ndarray
  stage: np.ndarray  # The next stage.
  probability: np.ndarray
  key_row: np.ndarray  # The next belief's row in `_Scored.keys`.


@dataclasses.dataclass
class _Scored:
  """A decision's K acquired prescriptions, scored but for the values of the
  next beliefs (valued a frontier at a time).

  Attributes:
    gammas: (Γ0, Γ1) on the belief's support (see `_acquire`).
    rewards: [K] expected immediate rewards.
    keys: [U, 3] the distinct next beliefs (stage, reach bits of player 0,
      of player 1).
    priority: [K] breaks ties between prescriptions of the same q (from
      the acquisition).
    outcomes: the continuing outcomes, or None where every outcome ends the
      game.
  """
  gammas: tuple[np.ndarray, np.ndarray]
  rewards: np.ndarray
  keys: np.ndarray
  priority: np.ndarray
  outcomes: Optional[_Outcomes]


class Capi:
  """A CAPI learner for one game and one seed."""

  def __init__(self, mdp: pub_mdp.PubMdp, config: CapiConfig):
    config.validate()
    self.mdp, self.config = mdp, config
    self.rng = np.random.default_rng(config.seed)
    self.num_actions = mdp.game.num_distinct_actions()
    self.max_private = max(mdp.num_private)
    policy_outputs = (2 * self.max_private * self.num_actions
                      if config.policy == "network" else 0)
    self._payoff_range = (mdp.game.min_utility(), mdp.game.max_utility())

    def forward(features, with_policy=True):
      trunk = layers.residual_trunk(features, config.hidden_sizes)
      value = hk.Linear(1, name="value")(trunk)[:, 0]
      if config.squash_values:
        low, high = self._payoff_range
        value = low + (high - low) * jax.nn.sigmoid(value)
      if not (with_policy and policy_outputs):
        return value, jnp.zeros((features.shape[0],))
      logits = hk.Linear(policy_outputs, name="policy")(trunk)
      return value, logits.reshape(
          (-1, 2, self.max_private, self.num_actions))

    self.network = hk.without_apply_rng(hk.transform(forward))
    self.optimizer = optax.adam(config.learning_rate)
    self.train_state = training.init_train_state(
        self.network.init(jax.random.PRNGKey(config.seed),
                          np.zeros((1, mdp.num_features), np.float32)), {},
        self.optimizer)
    self._apply = jax.jit(self.network.apply)
    self._value = jax.jit(lambda params, features: self.network.apply(
        params, features, with_policy=False)[0])
    self._update = jax.jit(training.make_update(self._loss, self.optimizer))
    if config.policy == "tabular":
      self.table = self._uniform_table()
      # The loss ignores policy rows; one fixed shape keeps one compilation.
      self._no_policy_rows = (*[np.zeros(1, np.int32)] * 4,
                              np.ones((1, self.num_actions), bool),
                              np.zeros(1, np.float32))
    if (sum(mdp.num_private) + len(mdp.stages).bit_length() > 62 or
        self.max_private > _MAX_PRIVATE):
      raise ValueError(f"{mdp.game}: beliefs do not pack into 62 bits with "
                       f"at most {_MAX_PRIVATE} private states a player "
                       f"(it has {mdp.num_private})")
    self.distinct_next_beliefs = 0
    self.num_depths = _num_depths(mdp)
    self.stage_features = np.stack(
        [mdp.public_features(s) for s in range(len(mdp.stages))])
    self.timers = dict.fromkeys(("policy", "acquisition", "rewards",
                                 "next_beliefs", "value_network", "training"),
                                0.0)

  # Policy -------------------------------------------------------------------

  def _uniform_table(self) -> np.ndarray:
    width = max(s.num_actions(p) for s in self.mdp.stages for p in range(2))
    table = np.zeros((len(self.mdp.stages), 2, self.max_private, width))
    for index, stage in enumerate(self.mdp.stages):
      for player in range(2):
        table[index, player, :, :stage.num_actions(player)] = (
            1 / stage.num_actions(player))
    return table

  def row_probabilities(self, beliefs: Sequence[pub_mdp.Belief]
                       ) -> list[list[np.ndarray]]:
    """Per belief and player, [n_p, A_p] the policy over local actions."""
    if self.config.policy == "tabular":
      return [[self.table[b.stage, p, :n, :self.mdp.stages[b.stage]
                          .num_actions(p)] for p, n in
               enumerate(self.mdp.num_private)] for b in beliefs]
    features = np.stack([self.mdp.belief_features(b) for b in beliefs])
    _, logits = self._apply(self.train_state.params, _bucketed(features))
    logits = np.asarray(logits, np.float64)
    rows = []
    for index, belief in enumerate(beliefs):
      stage = self.mdp.stages[belief.stage]
      per_player = []
      for player, n in enumerate(self.mdp.num_private):
        actions = stage.actions[player]
        if player in stage.actors:
          chosen = logits[index, player, :n][:, actions]
          chosen = np.exp(chosen - chosen.max(-1, keepdims=True))
          per_player.append(chosen / chosen.sum(-1, keepdims=True))
        else:
          per_player.append(np.ones((n, 1)))
      rows.append(per_player)
    return rows

  # Acquisition --------------------------------------------------------------

  def _acquire(self, belief: pub_mdp.Belief, rows: list[np.ndarray],
               explore: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """K joint prescriptions on the belief's support and a priority [K]
    that breaks ties between equally good ones (the likelier, or the first
    sampled).

    Returns:
      (Γ0 [K, |support0|], Γ1 [K, |support1|], priority): each player's
      local action in each private state its reach allows (the other private
      states change nothing); a player who does not act has action 0 (a
      broadcast view).
    """
    stage = self.mdp.stages[belief.stage]
    k = self.config.num_prescriptions
    supports = [np.flatnonzero(r) for r in belief.reach]
    supported = [(p, x) for p in stage.actors for x in supports[p]]
    rows = [r.copy() for r in rows]
    if explore and supported:
      p, x = supported[self.rng.integers(len(supported))]
      rows[p][x] = 1 / rows[p].shape[1]
    if self.config.acquisition == "sample":
      chosen = {p: self._sample_rows(rows[p][supports[p]], k).T
                for p in stage.actors}
      priority = -np.arange(k, dtype=np.float64)
    else:
      # A tiny random jitter breaks ties (a uniform row has many) at random
      # rather than in the order of argpartition.
      log_rows = [np.log(np.maximum(rows[p][supports[p]], 1e-30)) +
                  self.rng.uniform(0, 1e-9, rows[p][supports[p]].shape)
                  for p in stage.actors]
      choices, priority = _most_likely(
          [row for player_rows in log_rows for row in player_rows], k)
      ends = np.cumsum([len(supports[p]) for p in stage.actors])
      chosen = dict(zip(stage.actors, np.split(choices, ends[:-1], axis=1)))
      k = len(choices)
    gammas = [chosen[p] if p in chosen else
              np.broadcast_to(np.zeros(1, np.int64), (k, len(supports[p])))
              for p in range(2)]
    return gammas[0], gammas[1], priority

  def _sample_rows(self, probabilities: np.ndarray, k: int) -> np.ndarray:
    """[rows, k] independent draws from each row's distribution: multinomial
    counts, spelled out, then shuffled within the row (about twice as fast as
    inverse-CDF sampling for k in the thousands)."""
    probabilities = probabilities / probabilities.sum(-1, keepdims=True)
    counts = self.rng.multinomial(k, probabilities)
    num_rows, width = probabilities.shape
    ordered = np.repeat(np.tile(np.arange(width), num_rows), counts.ravel())
    return self.rng.permuted(ordered.reshape(num_rows, k), axis=1)

  # Scoring ------------------------------------------------------------------

  def _score(self, belief: pub_mdp.Belief, gamma0: np.ndarray,
             gamma1: np.ndarray, priority: np.ndarray) -> _Scored:
    """Immediate rewards and the distinct next beliefs of K prescriptions
    (given on the belief's support, as `_acquire` returns them)."""
    stage = self.mdp.stages[belief.stage]
    support = [np.flatnonzero(r) for r in belief.reach]
    weights = self.mdp.joint_weights(belief)[np.ix_(*support)]
    weights = weights / weights.sum()
    sub = (gamma0, gamma1)
    start = time.perf_counter()
    table = self.mdp.reward_tables[stage.reward_table][np.ix_(*support)]
    rewards = pub_mdp.expected_rewards(weights, table, *sub)
    self.timers["rewards"] += time.perf_counter() - start
    if stage.terminal_only:
      return _Scored(sub, rewards, np.zeros((0, 3), np.int64), priority, None)
    start = time.perf_counter()
    probabilities = pub_mdp.outcome_probabilities(
        weights, *sub, stage.num_actions(0), stage.num_actions(1))
    continuing = stage.children >= 0
    k, a0, a1 = np.nonzero((probabilities > 0) & continuing)
    # A next belief here is a small integer: the continuing outcome (numbered
    # 0, 1, ...), then the reach bits of each acting player numbered along
    # its support (a player with one action keeps its whole support).
    outcome = (np.cumsum(continuing) - 1).reshape(continuing.shape)[a0, a1]
    w0, w1 = widths = [len(s) if stage.num_actions(p) > 1 else 0
                       for p, s in enumerate(support)]
    bits = [_action_masks(g, np.arange(w), stage.num_actions(p))[k, a]
            if w else 0
            for p, (g, a, w) in enumerate(zip(sub, (a0, a1), widths))]
    packed = (outcome << (w0 + w1)) | (bits[0] << w1) | bits[1]
    distinct, inverse = _distinct(packed,
                                  int(continuing.sum()) << (w0 + w1))
    compact = ((distinct >> w1) & ((1 << w0) - 1), distinct & ((1 << w1) - 1))
    keys = np.stack([stage.children[continuing][distinct >> (w0 + w1)]] + [
        _spread_bits(c, s) if w else
        np.full(len(distinct), np.sum(np.int64(1) << s))
        for c, s, w in zip(compact, support, widths)], axis=1)
    self.distinct_next_beliefs += len(keys)
    self.timers["next_beliefs"] += time.perf_counter() - start
    return _Scored(sub, rewards, keys, priority,
                   _Outcomes(k, a0, a1, stage.children[a0, a1],
                             probabilities[k, a0, a1], inverse))

  def _values_of_keys(self, keys: np.ndarray) -> np.ndarray:
    """v of the beliefs named by rows (stage, reach bits of 0, of 1)."""
    if not len(keys):
      return np.zeros(0)
    features = np.concatenate(
        [self.stage_features[keys[:, 0]]] + [
            pub_mdp.normalised_reach(
                ((keys[:, 1 + p, None] >> np.arange(n)) & 1).astype(np.float32))
            for p, n in enumerate(self.mdp.num_private)], axis=1)
    values = self._value(self.train_state.params, _bucketed(features))
    return np.asarray(values, np.float64)[:len(keys)]

  # Episodes -----------------------------------------------------------------

  def play_episode(self, explore: bool = True) -> list[_Decision]:
    """One episode over every public branch; returns its decisions.

    The episode goes a public depth at a time: every belief of the frontier
    acquires and scores its prescriptions (and draws whether it explores,
    in the order the random stream had when beliefs were played one at a
    time), then the value network runs once on all their distinct next
    beliefs.
    """
    structured = explore and self.config.structured_exploration
    one_per_episode = explore and self.config.exploration == "one_per_episode"
    explored_depth = (int(self.rng.integers(self.num_depths))
                      if one_per_episode else -1)
    frontier = [_Decision(self.mdp.initial_belief(), 1.0)]
    decisions = []
    depth = 0
    while frontier:
      start = time.perf_counter()
      rows = self.row_probabilities([d.belief for d in frontier])
      self.timers["policy"] += time.perf_counter() - start
      explored = (int(self.rng.integers(len(frontier)))
                  if depth == explored_depth else -1)
      scored, played = [], []
      for index, (decision, policy_rows) in enumerate(zip(frontier, rows)):
        start = time.perf_counter()
        acquired = self._acquire(decision.belief, policy_rows, structured)
        self.timers["acquisition"] += time.perf_counter() - start
        scored.append(self._score(decision.belief, *acquired))
        if one_per_episode:
          exploring = index == explored
        else:
          exploring = explore and self.rng.random() < self.config.epsilon
        played.append(int(self.rng.integers(len(scored[-1].rewards)))
                      if exploring else None)
      start = time.perf_counter()
      values = self._values_of_keys(np.concatenate([s.keys for s in scored]))
      self.timers["value_network"] += time.perf_counter() - start
      ends = np.cumsum([len(s.keys) for s in scored])
      next_frontier = []
      for decision, scores, next_values, exploratory in zip(
          frontier, scored, np.split(values, ends[:-1]), played):
        next_frontier += self._decide(decision, scores, next_values,
                                      exploratory)
      decisions += frontier
      frontier = next_frontier
      depth += 1
    return decisions

  def _decide(self, decision: _Decision, scored: _Scored,
              next_values: np.ndarray, exploratory: Optional[int]
             ) -> list[_Decision]:
    """Records the best prescription and plays it, or acquired prescription
    `exploratory` if given; returns the children."""
    belief = decision.belief
    q = np.asarray(scored.rewards, np.float64)
    outcomes = scored.outcomes
    if outcomes is not None:
      q = q + np.bincount(
          outcomes.prescription,
          outcomes.probability * next_values[outcomes.key_row],
          minlength=len(q))
    ties = np.flatnonzero(q == q.max())
    best = int(ties[np.argmax(scored.priority[ties])])
    decision.q = float(q[best])
    decision.target = decision.chosen = _full_prescription(
        belief, scored.gammas, best)
    if exploratory is not None:
      best = exploratory
      decision.chosen = _full_prescription(belief, scored.gammas, best)
    decision.reward = float(scored.rewards[best])
    if outcomes is None:
      return []
    played = outcomes.prescription == best
    children = []
    for chosen_a0, chosen_a1, stage in zip(outcomes.action0[played],
                                           outcomes.action1[played],
                                           outcomes.stage[played]):
      reach = (pub_mdp.next_reach(belief.reach[0], decision.chosen[0],
                                  chosen_a0),
               pub_mdp.next_reach(belief.reach[1], decision.chosen[1],
                                  chosen_a1))
      next_belief = pub_mdp.Belief(int(stage), reach)
      share = (self.mdp.joint_weights(next_belief).sum() /
               self.mdp.joint_weights(belief).sum())
      children.append(_Decision(next_belief, decision.probability * share,
                                decision.depth + 1))
    return children

  # Training -----------------------------------------------------------------

  def _loss(self, params, net_state, features, targets, weights, row_sample,
            row_player, row_private, row_action, row_legal, row_weights):
    """The value loss toward q*, plus the policy's cross-entropy toward Γ*
    (network policy only); the value loss is the auxiliary output."""
    values, logits = self.network.apply(params, features)
    value_loss = jnp.sum(weights * (values - targets)**2)
    if self.config.policy != "network":
      return value_loss, (net_state, value_loss)
    log_probs = masking.masked_log_softmax(
        logits[row_sample, row_player, row_private], row_legal)
    chosen = jnp.take_along_axis(log_probs, row_action[:, None], 1)[:, 0]
    policy_loss = -jnp.sum(row_weights * chosen)
    return value_loss + self.config.policy_loss_weight * policy_loss, (
        net_state, value_loss)

  def train_on(self, decisions: Sequence[_Decision]) -> float:
    """Fits v to q* and the policy to Γ*; returns the value loss.

    As in the reference code, each depth of the public tree weighs the same:
    the losses are means within a depth, summed over depths.
    """
    start = time.perf_counter()
    size = padding.next_power_of_two(len(decisions))
    features = padding.pad_rows(np.stack([self.mdp.belief_features(d.belief)
                                          for d in decisions]), size)
    targets = padding.pad_rows(np.array([d.q for d in decisions], np.float32),
                               size)
    depths = np.array([d.depth for d in decisions])
    weights = padding.pad_rows(_per_depth_weights(depths), size)
    if self.config.policy == "tabular":
      self._update_table(decisions)
      rows = self._no_policy_rows
    else:
      rows = self._policy_rows(decisions, depths)
    loss = 0.0
    for _ in range(self.config.updates_per_episode):
      self.train_state, loss = self._update(self.train_state, features,
                                            targets, weights, *rows)
    self.timers["training"] += time.perf_counter() - start
    return float(loss)

  def _policy_rows(self, decisions, depths):
    """Padded (sample, player, private, game action, legal mask, weight)."""
    entries = []
    for index, decision in enumerate(decisions):
      stage = self.mdp.stages[decision.belief.stage]
      for player in stage.actors:
        for private in np.flatnonzero(decision.belief.reach[player]):
          entries.append((index, player, private, stage.actions[player][
              decision.target[player][private]], stage.actions[player]))
    size = padding.next_power_of_two(len(entries))
    columns = [np.zeros(size, np.int32) for _ in range(4)]
    legal = np.zeros((size, self.num_actions), bool)
    for row, (*values, actions) in enumerate(entries):
      for column, value in zip(columns, values):
        column[row] = value
      legal[row, actions] = True
    weights = np.zeros(size, np.float32)
    if entries:
      weights[:len(entries)] = _per_depth_weights(depths[columns[0][:len(
          entries)]])
    return (*columns, legal, weights)

  def _update_table(self, decisions):
    """Moves each played row toward Γ*, then floors it and renormalises."""
    rate, floor = self.config.tabular_policy_rate, self.config.policy_floor
    for decision in decisions:
      stage = self.mdp.stages[decision.belief.stage]
      for player in stage.actors:
        width = stage.num_actions(player)
        privates = np.flatnonzero(decision.belief.reach[player])
        rows = self.table[decision.belief.stage, player, privates, :width]
        rows *= 1 - rate
        rows[np.arange(len(privates)),
             decision.target[player][privates]] += rate
        np.maximum(rows, floor / width, out=rows)
        self.table[decision.belief.stage, player, privates, :width] = (
            rows / rows.sum(-1, keepdims=True))

  # Evaluation ---------------------------------------------------------------

  def greedy_prescription(self, belief: pub_mdp.Belief
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Each row's most likely action."""
    rows = self.row_probabilities([belief])[0]
    return rows[0].argmax(-1), rows[1].argmax(-1)

  def greedy_value(self) -> float:
    return pub_mdp.evaluate_policy(self.mdp, self.greedy_prescription)


def _bucketed(features: np.ndarray) -> np.ndarray:
  """Features padded to one of four sizes per doubling of rows (a few jit
  compilations, at most 25% of the rows wasted)."""
  return padding.pad_rows(features, padding.next_bucket(len(features)))


def _action_masks(gamma: np.ndarray, privates: np.ndarray,
                  num_actions: int) -> np.ndarray:
  """[K, A] bit masks: bit x of [k, a] is set when Γ_k sends private state
  privates[i] = x to action a (gamma is [K, len(privates)]). The bits are
  summed as float64, exact up to `_MAX_PRIVATE` private states."""
  return pub_mdp.action_totals(2.0**privates, gamma,
                               num_actions).astype(np.int64)


def _full_prescription(belief: pub_mdp.Belief,
                       gammas: tuple[np.ndarray, np.ndarray], index: int
                      ) -> tuple[np.ndarray, np.ndarray]:
  """Acquired prescription `index` (gammas on the belief's support) over
  every private state: (Γ0 [n0], Γ1 [n1]), action 0 off the support."""
  full = []
  for reach, gamma in zip(belief.reach, gammas):
    row = np.zeros(len(reach), np.int64)
    row[np.flatnonzero(reach)] = gamma[index]
    full.append(row)
  return full[0], full[1]


def _num_depths(mdp: pub_mdp.PubMdp) -> int:
  """How many public depths (decisions in a row) the game can last."""
  depth, level = 0, [0]
  while level:
    depth += 1
    level = [int(child) for stage in level
             for child in mdp.stages[stage].children.ravel() if child >= 0]
  return depth


def _distinct(values: np.ndarray, bound: int
             ) -> tuple[np.ndarray, np.ndarray]:
  """np.unique(values, return_inverse=True) for integers in [0, bound):
  by counting, without a sort, when the bound is small."""
  if bound > max(1 << 16, 4 * len(values)):
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct, inverse.ravel()
  present = np.bincount(values, minlength=bound) > 0
  return np.flatnonzero(present), (np.cumsum(present) - 1)[values]


def _spread_bits(compact: np.ndarray, positions: np.ndarray) -> np.ndarray:
  """Moves bit i of each compact mask to bit positions[i]."""
  bits = (compact[:, None] >> np.arange(len(positions))) & 1
  return (bits << positions).sum(-1)


def _per_depth_weights(depths: np.ndarray) -> np.ndarray:
  """1 / (number of entries at the same depth), per entry."""
  counts = np.bincount(depths)
  return (1 / counts[depths]).astype(np.float32)


def _most_likely(log_probs: Sequence[np.ndarray], k: int
                ) -> tuple[np.ndarray, np.ndarray]:
  """The k most likely joint choices of independent rows, in no order.

  Keeps the k best partial assignments row by row, which is exact: the
  prefix of any of the k best full assignments is among the k best prefixes.

  Returns:
    ([min(k, total), rows] the chosen index in each row, [min(k, total)]
    their summed log-probabilities).
  """
  scores = np.zeros(1)
  links = []  # Per row: (index of the kept prefix extended, action taken).
  for row in log_probs:
    combined = (scores[:, None] + row[None, :]).ravel()
    best = (np.argpartition(combined, len(combined) - k)[-k:]
            if len(combined) > k else np.arange(len(combined)))
    links.append(np.divmod(best, len(row)))
    scores = combined[best]
  kept = np.arange(len(scores))
  choices = np.zeros((len(kept), len(links)), np.int64)
  for column in range(len(links) - 1, -1, -1):
    parent, action = links[column]
    choices[:, column] = action[kept]
    kept = parent[kept]
  return choices, scores


def _expected_return(decisions: Sequence[_Decision]) -> float:
  """An episode's exact expected return: it expanded every public branch."""
  return sum(d.probability * d.reward for d in decisions)


def train(mdp: pub_mdp.PubMdp, config: CapiConfig,
          checkpoint_path: Optional[str] = None) -> Iterator[Progress]:
  """Runs CAPI; yields progress every `eval_every` episodes and at the end.

  With `checkpoint_path` the learner (networks, tabular policy, random state,
  progress so far) is saved there at every evaluation, and a run whose
  checkpoint exists resumes from it: it yields its earlier progress again,
  then goes on exactly as the uninterrupted run would. A checkpoint of
  other settings is refused (ValueError).
  """
  learner = Capi(mdp, config)
  log, done, seconds = [], 0, 0.0
  if checkpoint_path and os.path.exists(checkpoint_path):
    log, done, seconds = _restore(learner, checkpoint_path)
    yield from log
  start = time.perf_counter() - seconds
  for episode in range(done + 1, config.episodes + 1):
    decisions = learner.play_episode()
    loss = learner.train_on(decisions)
    if episode % config.eval_every == 0 or episode == config.episodes:
      log.append(Progress(
          episode=episode, greedy_value=float(learner.greedy_value()),
          search_value=float(_expected_return(
              learner.play_episode(explore=False))),
          episode_return=float(_expected_return(decisions)),
          root_q=decisions[0].q, value_loss=float(loss),
          seconds=time.perf_counter() - start,
          seconds_by_part=dict(learner.timers),
          distinct_next_beliefs=learner.distinct_next_beliefs))
      if checkpoint_path:
        _save(learner, checkpoint_path, log)
      yield log[-1]


def _save(learner: Capi, path: str, log: list[Progress]) -> None:
  """Checkpoints the learner after the last logged episode."""
  checkpoints.save(
      path, learner.train_state, learner.config, step=log[-1].episode,
      extra={"log": [dataclasses.asdict(p) for p in log],
             # Kept out of the (JAX, float32) tree: float64, exactly.
             "table": getattr(learner, "table", None),
             "rng": learner.rng.bit_generator.state,
             "timers": dict(learner.timers),
             "distinct_next_beliefs": learner.distinct_next_beliefs})


def _restore(learner: Capi, path: str) -> tuple[list[Progress], int, float]:
  """Loads a checkpoint into the learner; returns (its progress log,
  episodes done, seconds spent)."""
  saved = checkpoints.restore(path, learner.config)
  learner.train_state = saved.tree
  if saved.extra["table"] is not None:
    learner.table = saved.extra["table"]
  learner.rng.bit_generator.state = saved.extra["rng"]
  learner.timers = dict(saved.extra["timers"])
  learner.distinct_next_beliefs = saved.extra["distinct_next_beliefs"]
  log = [Progress(**p) for p in saved.extra["log"]]
  return log, saved.step, log[-1].seconds
