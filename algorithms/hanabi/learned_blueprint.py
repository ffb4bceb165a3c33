"""The learned Hanabi blueprint: a public-private Q network
(`q_network.py`) played greedily as a `blueprints.Blueprint`."""

import haiku as hk
import jax
import jax.numpy as jnp

from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import q_network
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.games.hanabi import engine as engine_lib


class LearnedBlueprint(blueprints.Blueprint):
  """A public-private Q network's greedy policy: each player's LSTM over
  the public features of its observations is the memory; a player's move
  is the best legal action of its Q values, and its value that action's Q
  value."""

  has_value = True

  def __init__(self, engine: engine_lib.HanabiEngine, params: hk.Params,
               config: q_network.NetworkConfig):
    super().__init__(engine)
    self.config = config
    self.params = jax.tree.map(jnp.asarray, params)
    self._net = q_network.network(engine.rules, config)

  @property
  def key(self):
    return super().key + (self.config,)

  def start(self, params, states):
    fresh = q_network.initial_memory(self.config, states.observation.shape[0],
                                     self.engine.rules.players)
    return self.remember(params, fresh, states)

  def remember(self, params, memory, states):
    return q_network.remember_all(self._net, params, memory, states)

  def act(self, params, memory, states, movers):
    legal = self.engine.legal_actions_of(
        states._replace(current_player=movers))
    q = q_network.q_of(self._net, params, memory, states, movers, legal)
    return jnp.argmax(q, axis=-1).astype(jnp.int32)

  def act_with_hands(self, params, memory, game, player, mover, hands):
    """As the default, but without encoding an observation per hand: a
    hand changes only the private part of the mover's observation (one-hot
    cards), so the first private layer is the real observation's with the
    hand's rows of its weights swapped in (`q_network.q_with_hands`)."""
    engine = self.engine
    states = jax.tree.map(lambda x: jnp.broadcast_to(
        x, (hands.shape[0],) + jnp.shape(x)), game)
    states = states._replace(hands=states.hands.at[:, player].set(
        hands.astype(jnp.int32)))
    legal = engine.legal_actions_of(states._replace(
        current_player=jnp.full(hands.shape[0], mover)))
    rules = engine.rules
    offset = (player - mover) % rules.players - 1
    q = q_network.q_with_hands(params, self.config, memory.hidden[mover],
                               game.observation[mover], hands,
                               offset * rules.hand_size, rules.num_cards)
    return masking.masked_argmax(q, legal).astype(jnp.int32)

  def value(self, params, memory, states):
    movers = jnp.maximum(states.current_player, 0)
    legal = self.engine.legal_actions_of(states)
    q = q_network.q_of(self._net, params, memory, states, movers,
                       legal).max(axis=-1)
    return jnp.where(states.terminated, 0.0, q)


def load_blueprint(engine: engine_lib.HanabiEngine,
                   path: str) -> LearnedBlueprint:
  """The blueprint of a weights file (ValueError if it was trained on other
  rules)."""
  params, config, rules, _ = q_network.load_weights(path)
  if rules != engine.rules:
    raise ValueError(f"{path} was trained on {rules}, not on {engine.rules}")
  return LearnedBlueprint(engine, params, config)
