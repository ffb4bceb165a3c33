"""The learned Hanabi blueprints' network: a public-private recurrent Q
network, and its weights files.

As the LBS paper's blueprints: each player's LSTM runs over the public
features of its observations (everything but the partner's cards,
`Rules.private_size`), an MLP over the whole observation, and the two meet
in an element-wise product feeding a dueling head (a state value plus
centred action advantages). The LSTM's state is therefore public: search
can keep one per player and re-run only the MLP for each hand it samples
(`q_with_hands`).

Weights files (`save_weights`, `load_weights`, over `nn/weights.py`) hold the
parameters in float16 with the rules and the network's settings.
"""

import dataclasses
import functools
from typing import Optional

import haiku as hk
import jax
import jax.numpy as jnp

from open_spiel_ext.algorithms.nn import layers
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.nn import weights
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.games.hanabi import engine as engine_lib


@dataclasses.dataclass(frozen=True)
class NetworkConfig:
  """The public-private network's widths."""
  public_hidden: tuple[int, ...] = (256,)  # Dense layers before the LSTM.
  lstm_size: int = 256
  private_hidden: tuple[int, ...] = (256,)  # Then one layer of lstm_size.

  def __post_init__(self):
    learner_lib.check_widths(self, "public_hidden")
    learner_lib.check_widths(self, "private_hidden")
    learner_lib.check_positive(self, "lstm_size")


class PublicPrivateQ(hk.Module):
  """Q values from a public LSTM and a private MLP (module docstring)."""

  def __init__(self, rules: engine_lib.Rules, config: NetworkConfig):
    super().__init__(name="public_private_q")
    self._private_size = rules.private_size
    self._num_actions = rules.num_actions
    self._lstm_size = config.lstm_size
    self._torso = layers.LSTMTorso(config.public_hidden, config.lstm_size,
                                   name="public")
    self._private = layers.MLP(config.private_hidden + (config.lstm_size,),
                               name="private")

  def initial_state(self, batch: int) -> hk.LSTMState:
    return self._torso.initial_state(batch)

  def remember(self, observations: jax.Array, state: hk.LSTMState
              ) -> tuple[jax.Array, hk.LSTMState]:
    """One step of the LSTM on [B, O] observations' public features."""
    return self._torso(observations[..., self._private_size:], state)

  def unroll(self, observations: jax.Array, first: jax.Array,
             state: hk.LSTMState) -> jax.Array:
    """[T, B, lstm] LSTM outputs over [T, B, O] observations, the state
    reset before step t where `first[t]` (a game starts there)."""
    core = hk.ResetCore(self._torso)
    public = observations[..., self._private_size:]
    return hk.dynamic_unroll(core, (public, first), state)[0]

  def q(self, hidden: jax.Array, observations: jax.Array) -> jax.Array:
    """[B, A] Q values from [B, lstm] LSTM outputs and [B, O] observations."""
    fused = hidden * self._private(observations)
    value = hk.Linear(1, name="value")(fused)
    advantage = hk.Linear(self._num_actions, name="advantage")(fused)
    return value + advantage - advantage.mean(axis=-1, keepdims=True)


@functools.lru_cache(maxsize=None)
def network(rules: engine_lib.Rules,
            config: NetworkConfig) -> hk.MultiTransformed:
  """init(rng, observations [B, O]) and apply = (remember, unroll, q)."""

  def forward():
    net = PublicPrivateQ(rules, config)

    def init(observations):
      hidden, _ = net.remember(observations,
                               net.initial_state(observations.shape[0]))
      return net.q(hidden, observations)

    return init, (net.remember, net.unroll, net.q)

  return hk.without_apply_rng(hk.multi_transform(forward))


def initial_memory(config: NetworkConfig, batch: int,
                   players: int) -> hk.LSTMState:
  """The LSTM state of every player of `batch` games before any step."""
  zeros = jnp.zeros((batch, players, config.lstm_size))
  return hk.LSTMState(zeros, zeros)


def merge_leading_axes(x: jax.Array) -> jax.Array:
  """[N, M, ...] -> [N·M, ...]."""
  return x.reshape((-1,) + x.shape[2:])


def remember_all(net: hk.MultiTransformed, params: hk.Params,
                 memory: hk.LSTMState,
                 states: engine_lib.HanabiState) -> hk.LSTMState:
  """Every player's LSTM state ([B, P, lstm]) after seeing `states`."""
  batch, players = states.observation.shape[:2]
  _, state = net.apply[0](params, merge_leading_axes(states.observation),
                          jax.tree.map(merge_leading_axes, memory))
  return jax.tree.map(lambda x: x.reshape(batch, players, -1), state)


def q_of(net: hk.MultiTransformed, params: hk.Params, memory: hk.LSTMState,
         states: engine_lib.HanabiState, movers: jax.Array,
         legal: jax.Array) -> jax.Array:
  """[B, A] the Q values of player `movers[b]` in game b, masked
  (`nn/masking.py`) where `legal` is false."""
  rows = jnp.arange(movers.shape[0])
  q = net.apply[2](params, memory.hidden[rows, movers],
                   states.observation[rows, movers])
  return masking.masked_logits(q, legal)


WEIGHTS_KIND = "Hanabi blueprint weights"  # Its files' kind (nn/weights.py).
_PRIVATE = "public_private_q/~/private/dense_"
_HEAD = "public_private_q/~q/"


def q_with_hands(params: hk.Params, config: NetworkConfig,
                 hidden: jax.Array, observation: jax.Array,
                 hands: jax.Array, first_slot: int,
                 num_cards: int) -> jax.Array:
  """[N, A] the network's Q values (`PublicPrivateQ.q`) for one [O]
  observation whose private cards from slot `first_slot` on are replaced by
  each of `hands` ([N, H], -1 empty): the first private layer's input is
  one-hot, so its output is the observation's without those cards plus the
  sum of the hand's rows of its weights.
  `tests/algorithms/hanabi/hanabi_learned_blueprint_test.py` checks it
  against the network."""
  first = params[_PRIVATE + "0"]
  start, size = first_slot * num_cards, hands.shape[1] * num_cards
  cleared = jnp.asarray(observation).at[start:start + size].set(0.0)
  rows = start + jnp.arange(hands.shape[1]) * num_cards + jnp.maximum(
      hands, 0)
  swapped = jnp.where((hands >= 0)[..., None], first["w"][rows], 0.0)
  x = jax.nn.relu(cleared @ first["w"] + first["b"] + swapped.sum(axis=1))
  for layer in range(1, len(config.private_hidden) + 1):
    dense = params[_PRIVATE + str(layer)]
    x = jax.nn.relu(x @ dense["w"] + dense["b"])
  fused = hidden * x
  value = fused @ params[_HEAD + "value"]["w"] + params[_HEAD + "value"]["b"]
  advantage = (fused @ params[_HEAD + "advantage"]["w"] +
               params[_HEAD + "advantage"]["b"])
  return value + advantage - advantage.mean(axis=-1, keepdims=True)


def save_weights(path: str, params: hk.Params, rules: engine_lib.Rules,
                 config: NetworkConfig, info: Optional[dict] = None) -> None:
  """The parameters (float16), the rules and the network settings."""
  weights.save(path, params, {"rules": rules.parameters(),
                              "network": dataclasses.asdict(config),
                              "info": info or {}}, kind=WEIGHTS_KIND)


def load_weights(path: str
                ) -> tuple[hk.Params, NetworkConfig, engine_lib.Rules, dict]:
  """What `save_weights` wrote: parameters (float32), network settings,
  rules, and the info saved with them."""
  params, meta = weights.load(path, WEIGHTS_KIND)
  network_settings = {k: tuple(v) if isinstance(v, list) else v
                      for k, v in meta["network"].items()}
  return (params, NetworkConfig(**network_settings),
          engine_lib.Rules(**meta["rules"]), meta["info"])
