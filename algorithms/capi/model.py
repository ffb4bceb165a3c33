"""CAPI's learned parts: the value network and the policy over prescriptions
(a head on the value network's trunk, or a table per public stage), and
their updates toward an episode's targets.

The networks' input is the belief: one-hots of the public history and each
player's 0/1 reach over its private states, scaled to sum to 1.
"""

import dataclasses
from typing import Optional, Sequence

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import optax

from open_spiel_ext.algorithms import pub_mdp
from open_spiel_ext.algorithms.capi import config as config_lib
from open_spiel_ext.algorithms.nn import layers
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.utils import padding


@dataclasses.dataclass
class Decision:
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


class PolicyValue:
  """The value network and the policy of one CAPI learner."""

  def __init__(self, mdp: pub_mdp.PubMdp, config: config_lib.Config):
    self.mdp, self.config = mdp, config
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
    self.stage_features = np.stack(
        [mdp.public_features(s) for s in range(len(mdp.stages))])

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

  # Values -------------------------------------------------------------------

  def values(self, keys: np.ndarray) -> np.ndarray:
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

  def train_on(self, decisions: Sequence[Decision]) -> float:
    """Fits v to q* and the policy to Γ*; returns the value loss.

    As in the reference code, each depth of the public tree weighs the same:
    the losses are means within a depth, summed over depths.
    """
    size = padding.next_power_of_two(len(decisions))
    features = padding.pad_rows(np.stack([self.mdp.belief_features(d.belief)
                                          for d in decisions]), size)
    targets = padding.pad_rows(np.array([d.q for d in decisions], np.float32),
                               size)
    depths = np.array([d.depth for d in decisions])
    weights = padding.pad_rows(per_depth_weights(depths), size)
    if self.config.policy == "tabular":
      self._update_table(decisions)
      rows = self._no_policy_rows
    else:
      rows = self._policy_rows(decisions, depths)
    loss = 0.0
    for _ in range(self.config.updates_per_episode):
      self.train_state, loss = self._update(self.train_state, features,
                                            targets, weights, *rows)
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
      weights[:len(entries)] = per_depth_weights(depths[columns[0][:len(
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


def _bucketed(features: np.ndarray) -> np.ndarray:
  """Features padded to one of four sizes per doubling of rows (a few jit
  compilations, at most 25% of the rows wasted)."""
  return padding.pad_rows(features, padding.next_bucket(len(features)))


def per_depth_weights(depths: np.ndarray) -> np.ndarray:
  """1 / (number of entries at the same depth), per entry."""
  counts = np.bincount(depths)
  return (1 / counts[depths]).astype(np.float32)

