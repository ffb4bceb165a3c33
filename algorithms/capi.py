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
import time
from typing import Iterator, Optional, Sequence

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import optax

from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.algorithms.nn import layers
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.utils import padding

ACQUISITIONS = ("sample", "most_likely")
POLICIES = ("network", "tabular")


@dataclasses.dataclass(frozen=True)
class CapiConfig:
  """Hyperparameters (the Trade Comm settings of the paper by default)."""
  episodes: int = 2_000
  num_prescriptions: int = 10_000
  acquisition: str = "sample"
  policy: str = "network"
  epsilon: float = 0.1
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
    if sum(mdp.num_private) + len(mdp.stages).bit_length() > 62:
      raise ValueError(f"{mdp.game}: beliefs do not pack into 62 bits")
    self.distinct_next_beliefs = 0
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
               explore: bool) -> tuple[np.ndarray, np.ndarray]:
    """K joint prescriptions (Γ0 [K, n0], Γ1 [K, n1]); rows outside the
    belief's support are left at action 0, where they change nothing."""
    stage = self.mdp.stages[belief.stage]
    k = self.config.num_prescriptions
    supported = [(p, x) for p in stage.actors
                 for x in np.flatnonzero(belief.reach[p])]
    rows = [r.copy() for r in rows]
    if explore and supported:
      p, x = supported[self.rng.integers(len(supported))]
      rows[p][x] = 1 / rows[p].shape[1]
    gammas = [np.zeros((k, n), np.int64) for n in self.mdp.num_private]
    if self.config.acquisition == "sample":
      for p in stage.actors:
        support = np.flatnonzero(belief.reach[p])
        gammas[p][:, support] = self._sample_rows(rows[p][support], k).T
    else:
      # A tiny random jitter breaks ties (a uniform row has many) at random
      # rather than in the order of argpartition.
      choices = _most_likely([np.log(np.maximum(rows[p][x], 1e-30)) +
                              self.rng.uniform(0, 1e-9, len(rows[p][x]))
                              for p, x in supported], k)
      for column, (p, x) in enumerate(supported):
        gammas[p][:len(choices), x] = choices[:, column]
      gammas = [g[:len(choices)] for g in gammas]
    return gammas[0], gammas[1]

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
             gamma1: np.ndarray):
    """q [K], immediate rewards [K] and the successors' (k, a0, a1, child)."""
    stage = self.mdp.stages[belief.stage]
    support = [np.flatnonzero(r) for r in belief.reach]
    weights = self.mdp.joint_weights(belief)[np.ix_(*support)]
    weights = weights / weights.sum()
    sub = (gamma0[:, support[0]], gamma1[:, support[1]])
    start = time.perf_counter()
    table = self.mdp.reward_tables[stage.reward_table][np.ix_(*support)]
    rewards = np.asarray(pub_mdp.expected_rewards(weights, table, *sub),
                         np.float64)
    self.timers["rewards"] += time.perf_counter() - start
    if stage.terminal_only:
      return rewards, rewards, None
    start = time.perf_counter()
    probabilities = np.asarray(pub_mdp.outcome_probabilities(
        weights, *sub, stage.num_actions(0), stage.num_actions(1)))
    k, a0, a1 = np.nonzero(probabilities > 0)
    child = stage.children[a0, a1]
    keep = child >= 0
    k, a0, a1, child = k[keep], a0[keep], a1[keep], child[keep]
    bits = [_action_masks(g, s, stage.num_actions(p))[k, a]
            for p, (g, a, s) in enumerate(zip(sub, (a0, a1), support))]
    n0, n1 = self.mdp.num_private
    packed = (child.astype(np.int64) << (n0 + n1)) | (bits[0] << n1) | bits[1]
    packed_keys, inverse = np.unique(packed, return_inverse=True)
    keys = np.stack([packed_keys >> (n0 + n1),
                     (packed_keys >> n1) & ((1 << n0) - 1),
                     packed_keys & ((1 << n1) - 1)], axis=1)
    self.distinct_next_beliefs += len(keys)
    self.timers["next_beliefs"] += time.perf_counter() - start
    start = time.perf_counter()
    values = self._values_of_keys(keys)
    self.timers["value_network"] += time.perf_counter() - start
    future = np.zeros(len(rewards))
    np.add.at(future, k, probabilities[k, a0, a1] * values[inverse.ravel()])
    return rewards + future, rewards, (k, a0, a1, child)

  def _values_of_keys(self, keys: np.ndarray) -> np.ndarray:
    """v of the beliefs named by rows (stage, reach bits of 0, of 1)."""
    features = np.concatenate(
        [self.stage_features[keys[:, 0]]] + [
            pub_mdp.normalised_reach(
                ((keys[:, 1 + p, None] >> np.arange(n)) & 1).astype(np.float32))
            for p, n in enumerate(self.mdp.num_private)], axis=1)
    values = self._value(self.train_state.params, _bucketed(features))
    return np.asarray(values, np.float64)[:len(keys)]

  # Episodes -----------------------------------------------------------------

  def play_episode(self, explore: bool = True) -> list[_Decision]:
    """One episode over every public branch; returns its decisions."""
    frontier = [_Decision(self.mdp.initial_belief(), 1.0)]
    decisions = []
    while frontier:
      start = time.perf_counter()
      rows = self.row_probabilities([d.belief for d in frontier])
      self.timers["policy"] += time.perf_counter() - start
      next_frontier = []
      for decision, policy_rows in zip(frontier, rows):
        next_frontier += self._decide(decision, policy_rows, explore)
      decisions += frontier
      frontier = next_frontier
    return decisions

  def _decide(self, decision: _Decision, rows, explore: bool
             ) -> list[_Decision]:
    belief = decision.belief
    start = time.perf_counter()
    structured = explore and self.config.structured_exploration
    gamma0, gamma1 = self._acquire(belief, rows, structured)
    self.timers["acquisition"] += time.perf_counter() - start
    q, rewards, successors = self._score(belief, gamma0, gamma1)
    best = int(np.argmax(q))
    decision.q, decision.target = float(q[best]), (gamma0[best], gamma1[best])
    if explore and self.rng.random() < self.config.epsilon:
      best = int(self.rng.integers(len(q)))
    decision.reward = float(rewards[best])
    decision.chosen = (gamma0[best], gamma1[best])
    if successors is None:
      return []
    k, a0, a1, child = successors
    children = []
    for chosen_a0, chosen_a1, stage in zip(a0[k == best], a1[k == best],
                                           child[k == best]):
      reach = (pub_mdp.next_reach(belief.reach[0], gamma0[best], chosen_a0),
               pub_mdp.next_reach(belief.reach[1], gamma1[best], chosen_a1))
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
    rows = self._policy_rows(decisions, depths)
    if self.config.policy == "tabular":
      self._update_table(decisions)
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
        for private in np.flatnonzero(decision.belief.reach[player]):
          row = self.table[decision.belief.stage, player, private, :width]
          row *= 1 - rate
          row[decision.target[player][private]] += rate
          np.maximum(row, floor / width, out=row)
          row /= row.sum()

  # Evaluation ---------------------------------------------------------------

  def greedy_prescription(self, belief: pub_mdp.Belief
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Each row's most likely action."""
    rows = self.row_probabilities([belief])[0]
    return rows[0].argmax(-1), rows[1].argmax(-1)

  def greedy_value(self) -> float:
    return pub_mdp.evaluate_policy(self.mdp, self.greedy_prescription)


def _bucketed(features: np.ndarray) -> np.ndarray:
  """Features padded to a power of two of rows (few jit compilations)."""
  return padding.pad_rows(features, padding.next_power_of_two(len(features)))


def _action_masks(gamma: np.ndarray, privates: np.ndarray,
                  num_actions: int) -> np.ndarray:
  """[K, A] bit masks: bit x of [k, a] is set when Γ_k sends private state
  privates[i] = x to action a (gamma is [K, len(privates)])."""
  masks = np.zeros((len(gamma), num_actions), np.int64)
  rows = np.arange(len(gamma))
  for column, private in enumerate(privates):
    masks[rows, gamma[:, column]] |= np.int64(1) << private
  return masks


def _per_depth_weights(depths: np.ndarray) -> np.ndarray:
  """1 / (number of entries at the same depth), per entry."""
  counts = np.bincount(depths)
  return (1 / counts[depths]).astype(np.float32)


def _most_likely(log_probs: Sequence[np.ndarray], k: int) -> np.ndarray:
  """The k most likely joint choices of independent rows, best first.

  Keeps the k best partial assignments row by row, which is exact: the
  prefix of any of the k best full assignments is among the k best prefixes.

  Returns:
    [min(k, total), rows] the chosen index in each row.
  """
  scores = np.zeros(1)
  choices = np.zeros((1, 0), np.int64)
  for row in log_probs:
    combined = (scores[:, None] + row[None, :]).ravel()
    keep = min(k, len(combined))
    best = np.argpartition(-combined, keep - 1)[:keep]
    best = best[np.argsort(-combined[best], kind="stable")]
    parent, action = np.divmod(best, len(row))
    scores = combined[best]
    choices = np.concatenate([choices[parent], action[:, None]], axis=1)
  return choices


def _expected_return(decisions: Sequence[_Decision]) -> float:
  """An episode's exact expected return: it expanded every public branch."""
  return sum(d.probability * d.reward for d in decisions)


def train(mdp: pub_mdp.PubMdp, config: CapiConfig) -> Iterator[Progress]:
  """Runs CAPI; yields progress every `eval_every` episodes and at the end."""
  learner = Capi(mdp, config)
  start = time.perf_counter()
  for episode in range(1, config.episodes + 1):
    decisions = learner.play_episode()
    loss = learner.train_on(decisions)
    if episode % config.eval_every == 0 or episode == config.episodes:
      yield Progress(
          episode=episode, greedy_value=float(learner.greedy_value()),
          search_value=float(_expected_return(
              learner.play_episode(explore=False))),
          episode_return=float(_expected_return(decisions)),
          root_q=decisions[0].q, value_loss=float(loss),
          seconds=time.perf_counter() - start,
          seconds_by_part=dict(learner.timers),
          distinct_next_beliefs=learner.distinct_next_beliefs)
