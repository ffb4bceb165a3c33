"""Learned Hanabi blueprints: a public-private recurrent Q network trained
by independent Q-learning in self-play (R2D2-style), on the batched engine.

The network (as the LBS paper's blueprints): each player's LSTM runs over
the public features of its observations (everything but the partner's cards,
`Rules.private_size`), an MLP over the whole observation, and the two meet
in an element-wise product feeding a dueling head (a state value plus
centred action advantages). The LSTM's state is therefore public: search
can keep one per player and re-run only the MLP for each hand it samples.

Training (R2D2, Kapturowski et al. 2019, as SAD and OBL use it on Hanabi):
`num_envs` games self-play with one shared network, each game with its own
ε (Ape-X's ε_i = ε^(1 + α i / (N − 1))); every player's LSTM steps on every
move. The actors run `unroll` moves at a time and store each game's
segment, with the `n_step` moves after it and the LSTM state at its start
(stored-state replay), in a ring of segments. Each update unrolls the online
and target networks over a batch of segments, resets the LSTM where a game
starts, and regresses Q(s_t, a_t) of the player who moved on the n-step
double-Q target
    r_t + γ r_{t+1} + … + γ^{n−1} r_{t+n−1} + γ^n Q_target(s_{t+n}, a*),
a* the online network's best legal move at t + n (whoever moves then: the
players share the score and the network), cut at the end of the game.
The target network is copied every `target_update_every` updates.

`train` runs it with checkpoints, evaluations (greedy self-play on fixed
decks), a weights snapshot per evaluation, and resumes from its checkpoint;
`examples/hanabi_train.py` is its command line. Weights files
(`save_weights`, `load_weights`) hold the parameters in float16 with the
rules and the network's settings; `LearnedBlueprint` (`load_blueprint`,
`blueprint_from_name`) plays them as a `blueprints.Blueprint`.
"""

import dataclasses
import functools
import os
import time
from typing import Any, Callable, NamedTuple, Optional

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import optax

from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.nn import layers
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.algorithms.nn import weights
from open_spiel_ext.algorithms.rl import buffers
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import reporting

WEIGHTS_DIR = os.path.join(os.path.dirname(__file__), "weights")
STRENGTHS = ("weak", "medium", "strong")
# The network width (public layer, LSTM, private layer) of each preset.
PRESET_WIDTHS = {"small": 128, "full": 256, "six_cards": 256,
                 "seven_cards": 256}

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


@dataclasses.dataclass(frozen=True)
class Config:
  """R2D2's settings (the module docstring)."""
  network: NetworkConfig = NetworkConfig()
  num_envs: int = 128  # Games self-played at once.
  unroll: int = 40  # Moves per stored segment.
  n_step: int = 3
  discount: float = 0.999
  replay_capacity: int = 4_096  # Segments.
  batch_size: int = 32  # Segments per update.
  updates_per_unroll: int = 4  # Updates after each `unroll` moves.
  learning_starts: int = 512  # Segments stored before the first update.
  # The reference (OBL's iql.sh) takes 6.25e-5 over far more updates than
  # a CPU makes in hours.
  learning_rate: float = 2.5e-4
  adam_eps: float = 1.5e-5
  max_grad_norm: float = 5.0
  target_update_every: int = 500  # Updates.
  # Ape-X's per-game ε, from epsilon down to epsilon^(1 + alpha). The
  # reference (OBL) takes 0.1 on full Hanabi; on Hanabi-Small (one life)
  # 0.1 stalled at 0.30 points over 7 M moves and Ape-X's 0.4 reached 3.9.
  epsilon: float = 0.4
  epsilon_alpha: float = 7.0

  def __post_init__(self):
    learner_lib.check_positive(
        self, "num_envs", "unroll", "n_step", "replay_capacity", "batch_size",
        "updates_per_unroll", "learning_rate", "adam_eps", "max_grad_norm",
        "target_update_every")
    learner_lib.check_non_negative(self, "learning_starts", "epsilon_alpha")
    learner_lib.check_unit_interval(self, "discount", "epsilon")


# The network.


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


def _flat(x: jax.Array) -> jax.Array:
  return x.reshape((-1,) + x.shape[2:])


def remember_all(net: hk.MultiTransformed, params: hk.Params,
                 memory: hk.LSTMState,
                 states: engine_lib.HanabiState) -> hk.LSTMState:
  """Every player's LSTM state ([B, P, lstm]) after seeing `states`."""
  batch, players = states.observation.shape[:2]
  _, state = net.apply[0](params, _flat(states.observation),
                          jax.tree.map(_flat, memory))
  return jax.tree.map(lambda x: x.reshape(batch, players, -1), state)


def q_of(net: hk.MultiTransformed, params: hk.Params, memory: hk.LSTMState,
         states: engine_lib.HanabiState, movers: jax.Array,
         legal: jax.Array) -> jax.Array:
  """[B, A] the Q values of player `movers[b]` in game b, -inf where
  `legal` is false."""
  rows = jnp.arange(movers.shape[0])
  q = net.apply[2](params, memory.hidden[rows, movers],
                   states.observation[rows, movers])
  return jnp.where(legal, q, -jnp.inf)


_PRIVATE = "public_private_q/~/private/dense_"
_HEAD = "public_private_q/~q/"


def _q_with_hands(params: hk.Params, config: NetworkConfig,
                  hidden: jax.Array, observation: jax.Array,
                  hands: jax.Array, first_slot: int,
                  num_cards: int) -> jax.Array:
  """[N, A] the network's Q values (`PublicPrivateQ.q`) for one [O]
  observation whose private cards from slot `first_slot` on are replaced by
  each of `hands` ([N, H], -1 empty): the first private layer's input is
  one-hot, so its output is the observation's without those cards plus the
  sum of the hand's rows of its weights. `tests/hanabi_r2d2_test.py` checks
  it against the network."""
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


# Weights files.


def save_weights(path: str, params: hk.Params, rules: engine_lib.Rules,
                 config: NetworkConfig, info: Optional[dict] = None) -> None:
  """The parameters (float16), the rules and the network settings."""
  weights.save(path, params, {"rules": rules.parameters(),
                              "network": dataclasses.asdict(config),
                              "info": info or {}})


def load_weights(path: str
                ) -> tuple[hk.Params, NetworkConfig, engine_lib.Rules, dict]:
  """What `save_weights` wrote: parameters (float32), network settings,
  rules, and the info saved with them."""
  params, meta = weights.load(path, "Hanabi blueprint weights")
  network_settings = {k: tuple(v) if isinstance(v, list) else v
                      for k, v in meta["network"].items()}
  return (params, NetworkConfig(**network_settings),
          engine_lib.Rules(**meta["rules"]), meta["info"])


# Acting.


class Actors(NamedTuple):
  """The self-playing games between unrolls."""
  states: engine_lib.HanabiState
  lstm: hk.LSTMState  # [B, P, lstm] before the current observation.
  first: jax.Array  # [B] bool: the current state starts a game.
  epsilon: jax.Array  # [B] each game's ε.
  score: jax.Array  # [B] the points of the game in progress.


class Segment(NamedTuple):
  """Moves of one game batch ([T, B, ...]), and the LSTM state before them."""
  observation: jax.Array  # [T, B, P, O] uint8
  first: jax.Array  # [T, B] bool
  mover: jax.Array  # [T, B] int32
  action: jax.Array  # [T, B] int32
  legal: jax.Array  # [T, B, A] bool
  reward: jax.Array  # [T, B] float32 the points the move scored.
  terminated: jax.Array  # [T, B] bool: the move ended the game.
  lstm: hk.LSTMState  # [B, P, lstm] before step 0.


def epsilons(config: Config) -> np.ndarray:
  """[num_envs] Ape-X's per-game ε."""
  spread = np.arange(config.num_envs) / max(config.num_envs - 1, 1)
  return (config.epsilon ** (1 + config.epsilon_alpha * spread)).astype(
      np.float32)


class Trainer:
  """R2D2's jitted pieces on one Hanabi variant (`trainer` shares them)."""

  def __init__(self, rules: engine_lib.Rules, config: Config):
    self.rules, self.config = rules, config
    self.engine = engine_lib.HanabiEngine(rules, auto_reset=True)
    self.evaluation_engine = engine_lib.HanabiEngine(rules)
    self.net = network(rules, config.network)
    self.optimizer = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm),
        optax.adam(config.learning_rate, eps=config.adam_eps))
    self._update = training.make_update(self._loss, self.optimizer)
    self.collect = jax.jit(self._collect)
    self.learn = jax.jit(self._learn)
    # The ring is updated in place (else each store copies all of it).
    self.store = jax.jit(self._store, donate_argnums=0)

  def init(self, key: jax.Array) -> tuple[training.TrainState, Actors]:
    net_key, env_key = jax.random.split(key)
    example = jnp.zeros((1, self.rules.observation_size))
    params = self.net.init(net_key, example)
    train = training.copy_to_target(training.init_train_state(
        params, {}, self.optimizer, with_target=True))
    config = self.config
    states = self.engine.init(jax.random.split(env_key, config.num_envs))
    actors = Actors(states, initial_memory(config.network, config.num_envs,
                                           self.rules.players),
                    jnp.ones(config.num_envs, bool),
                    jnp.asarray(epsilons(config)),
                    jnp.zeros(config.num_envs))
    return train, actors

  def _collect(self, params: hk.Params, actors: Actors, key: jax.Array
              ) -> tuple[Actors, Segment, jax.Array]:
    """`unroll` moves of every game; also the scores of the games that
    ended (NaN where none did), [T, B]."""
    fresh = initial_memory(self.config.network, self.config.num_envs,
                           self.rules.players)

    def move(actors: Actors, key):
      states = actors.states
      lstm = jax.tree.map(
          lambda f, m: jnp.where(actors.first[:, None, None], f, m),
          fresh, actors.lstm)
      memory = remember_all(self.net, params, lstm, states)
      movers = states.current_player
      q = q_of(self.net, params, memory, states, movers,
               states.legal_action_mask)
      explore_key, pick_key = jax.random.split(key)
      explore = jax.random.uniform(explore_key, movers.shape) < actors.epsilon
      randomly = jax.random.categorical(
          pick_key, jnp.where(states.legal_action_mask, 0.0, -jnp.inf))
      action = jnp.where(explore, randomly,
                         jnp.argmax(q, axis=-1)).astype(jnp.int32)
      after = self.engine.step(states, action)
      reward = after.rewards[:, 0]
      score = actors.score + reward
      record = (states.observation.astype(jnp.uint8), actors.first, movers,
                action, states.legal_action_mask, reward, after.terminated)
      ended = jnp.where(after.terminated, score, jnp.nan)
      return Actors(after, memory, after.terminated, actors.epsilon,
                    jnp.where(after.terminated, 0.0, score)), (record, ended)

    keys = jax.random.split(key, self.config.unroll)
    after, (records, ended) = jax.lax.scan(move, actors, keys)
    return after, Segment(*records, lstm=actors.lstm), ended

  def _q_values(self, params: hk.Params, segment: Segment) -> jax.Array:
    """[T, B, A] the movers' Q values over a batch of segments."""
    steps, batch, players = segment.observation.shape[:3]
    observation = segment.observation.astype(jnp.float32)
    first = jnp.repeat(segment.first, players, axis=1)
    hidden = self.net.apply[1](
        params, observation.reshape(steps, batch * players, -1), first,
        jax.tree.map(_flat, segment.lstm))
    hidden = hidden.reshape(steps, batch, players, -1)
    pick = jax.nn.one_hot(segment.mover, players)[..., None]
    mover_hidden = (hidden * pick).sum(axis=2)
    mover_observation = (observation * pick).sum(axis=2)
    q = self.net.apply[2](params, _flat(mover_hidden),
                          _flat(mover_observation))
    return q.reshape(steps, batch, -1)

  def _targets(self, online: jax.Array, target: jax.Array,
               segment: Segment) -> jax.Array:
    """[T − n, B] the n-step double-Q targets (module docstring)."""
    n, discount = self.config.n_step, self.config.discount
    steps = online.shape[0] - n
    best = jnp.argmax(jnp.where(segment.legal, online, -jnp.inf), axis=-1)
    value = jnp.take_along_axis(target, best[..., None], axis=-1)[..., 0]
    total = jnp.zeros_like(value[:steps])
    alive = jnp.ones_like(total)
    for k in range(n):
      total += alive * discount**k * segment.reward[k:k + steps]
      alive *= 1.0 - segment.terminated[k:k + steps]
    return total + alive * discount**n * value[n:]

  def _loss(self, params: hk.Params, net_state: hk.State,
            target_params: hk.Params, segment: Segment):
    online = self._q_values(params, segment)
    target = self._q_values(target_params, segment)
    targets = jax.lax.stop_gradient(self._targets(online, target, segment))
    steps = targets.shape[0]
    taken = jnp.take_along_axis(online[:steps],
                                segment.action[:steps, :, None], axis=-1)
    errors = taken[..., 0] - targets
    loss = optax.huber_loss(errors).mean()
    return loss, (net_state, (loss, jnp.abs(errors).mean()))

  def _learn(self, train: training.TrainState, buffer: buffers.Buffer,
             key: jax.Array) -> tuple[training.TrainState, jax.Array]:
    """`updates_per_unroll` updates; the mean loss."""

    def update(train, key):
      batch = buffers.sample(buffer, key, self.config.batch_size)
      segment = jax.tree.map(lambda x: jnp.swapaxes(x, 0, 1), batch)
      segment = segment._replace(lstm=batch.lstm)
      train, (loss, _) = self._update(train, train.target_params, segment)
      train = jax.lax.cond(
          train.step % self.config.target_update_every == 0,
          training.copy_to_target, lambda t: t, train)
      return train, loss

    keys = jax.random.split(key, self.config.updates_per_unroll)
    train, losses = jax.lax.scan(update, train, keys)
    return train, losses.mean()

  def _store(self, buffer: buffers.Buffer, pending: Segment,
             following: Segment) -> buffers.Buffer:
    """Stores the pending segments with the first n moves after them."""
    n = self.config.n_step
    moves = jax.tree.map(lambda a, b: jnp.concatenate([a, b[:n]]),
                         pending._replace(lstm=()), following._replace(lstm=()))
    items = jax.tree.map(lambda x: jnp.swapaxes(x, 0, 1), moves)
    items = items._replace(lstm=pending.lstm)
    return buffers.add(buffer, items, jnp.ones(self.config.num_envs, bool))

  def empty_buffer(self) -> buffers.Buffer:
    config, rules = self.config, self.rules
    steps = config.unroll + config.n_step
    zeros = initial_memory(config.network, 1, rules.players)
    example = Segment(
        jnp.zeros((steps, rules.players, rules.observation_size), jnp.uint8),
        jnp.zeros(steps, bool), jnp.zeros(steps, jnp.int32),
        jnp.zeros(steps, jnp.int32),
        jnp.zeros((steps, rules.num_actions), bool), jnp.zeros(steps),
        jnp.zeros(steps, bool), jax.tree.map(lambda x: x[0], zeros))
    return buffers.init(example, config.replay_capacity)


@functools.lru_cache(maxsize=None)
def trainer(rules: engine_lib.Rules, config: Config) -> Trainer:
  """The trainer of `rules` and `config`, compiled once per process."""
  return Trainer(rules, config)


class LearnedBlueprint(blueprints.Blueprint):
  """A public-private Q network's greedy policy: each player's LSTM over
  the public features of its observations is the memory; a player's move
  is the best legal action of its Q values, and its value that action's Q
  value."""

  has_value = True

  def __init__(self, engine: engine_lib.HanabiEngine, params: hk.Params,
               config: NetworkConfig):
    super().__init__(engine)
    self.config = config
    self.params = jax.tree.map(jnp.asarray, params)
    self._net = network(engine.rules, config)

  @property
  def key(self):
    return super().key + (self.config,)

  def start(self, params, states):
    fresh = initial_memory(self.config, states.observation.shape[0],
                           self.engine.rules.players)
    return self.remember(params, fresh, states)

  def remember(self, params, memory, states):
    return remember_all(self._net, params, memory, states)

  def act(self, params, memory, states, movers):
    legal = self.engine.legal_actions_of(
        states._replace(current_player=movers))
    q = q_of(self._net, params, memory, states, movers, legal)
    return jnp.argmax(q, axis=-1).astype(jnp.int32)

  def act_with_hands(self, params, memory, game, player, mover, hands):
    """As the default, but without encoding an observation per hand: a
    hand changes only the private part of the mover's observation (one-hot
    cards), so the first private layer is the real observation's with the
    hand's rows of its weights swapped in (`_q_with_hands`)."""
    engine = self.engine
    states = jax.tree.map(lambda x: jnp.broadcast_to(
        x, (hands.shape[0],) + jnp.shape(x)), game)
    states = states._replace(hands=states.hands.at[:, player].set(
        hands.astype(jnp.int32)))
    legal = engine.legal_actions_of(states._replace(
        current_player=jnp.full(hands.shape[0], mover)))
    rules = engine.rules
    offset = (player - mover) % rules.players - 1
    q = _q_with_hands(params, self.config, memory.hidden[mover],
                      game.observation[mover], hands,
                      offset * rules.hand_size, rules.num_cards)
    return jnp.argmax(jnp.where(legal, q, -jnp.inf), axis=-1).astype(
        jnp.int32)

  def value(self, params, memory, states):
    movers = jnp.maximum(states.current_player, 0)
    legal = self.engine.legal_actions_of(states)
    q = q_of(self._net, params, memory, states, movers, legal).max(axis=-1)
    return jnp.where(states.terminated, 0.0, q)


def load_blueprint(engine: engine_lib.HanabiEngine,
                   path: str) -> LearnedBlueprint:
  """The blueprint of a weights file (ValueError if it was trained on other
  rules)."""
  params, config, rules, _ = load_weights(path)
  if rules != engine.rules:
    raise ValueError(f"{path} was trained on {rules}, not on {engine.rules}")
  return LearnedBlueprint(engine, params, config)


def shipped_path(preset: str, strength: str = "strong") -> str:
  """Where the package keeps a preset's learned blueprint of a strength."""
  if strength not in STRENGTHS:
    raise ValueError(f"unknown blueprint strength {strength!r}; the "
                     f"strengths are {', '.join(STRENGTHS)}")
  return os.path.join(WEIGHTS_DIR, f"{preset}_{strength}.npz")


def blueprint_from_name(engine: engine_lib.HanabiEngine, preset: str,
                        name: str) -> blueprints.Blueprint:
  """"rules" (the rule-based bot), a shipped strength of `preset` ("weak",
  "medium", "strong"), or the path of a weights file."""
  if name == "rules":
    return blueprints.RuleBlueprint(engine)
  path = shipped_path(preset, name) if name in STRENGTHS else name
  if not os.path.exists(path):
    shipped = (sorted(f for f in os.listdir(WEIGHTS_DIR) if f.endswith(
        ".npz")) if os.path.isdir(WEIGHTS_DIR) else [])
    raise ValueError(f"no blueprint {name!r}: {path} does not exist (give "
                     f"'rules', a strength of {', '.join(STRENGTHS)}, or a "
                     f"weights file; shipped: {', '.join(shipped) or 'none'})")
  return load_blueprint(engine, path)


# The training run.


class LogEntry(NamedTuple):
  moves: int  # Moves played by the self-playing games, all together.
  updates: int
  wall_time: float  # Seconds of training (evaluations not counted).
  loss: float  # Mean over the updates since the last entry.
  train_score: float  # Mean of the exploring games that ended since then.
  eval_score: float  # Greedy self-play on the evaluation decks.
  eval_standard_error: float
  snapshot: str  # The weights file of this evaluation, in the output_dir.


def evaluation_decks(rules: engine_lib.Rules, games: int,
                     seed: int) -> np.ndarray:
  """[games, deck_size] fixed shuffles for evaluations."""
  rng = np.random.default_rng([seed, 1_000_003])
  return np.stack([rng.permutation(rules.ordered_deck())
                   for _ in range(games)])


def pick_strengths(log: list[LogEntry], weak: float = 0.65,
                   medium: float = 0.9) -> dict[str, LogEntry]:
  """The snapshots shipped as weak, medium and strong: the best evaluated,
  and the first to reach `medium` and `weak` times its score (the LBS
  paper's weak blueprint scores 64% of its strong one)."""
  strong = max(log, key=lambda e: e.eval_score)
  first = lambda share: next(e for e in log
                             if e.eval_score >= share * strong.eval_score)
  return {"weak": first(weak), "medium": first(medium), "strong": strong}


def _run_config(rules: engine_lib.Rules, config: Config,
                seed: int) -> dict[str, Any]:
  return {"rules": rules.parameters(), "seed": seed,
          **dataclasses.asdict(config)}


def train(rules: engine_lib.Rules, config: Config, output_dir: str,
          max_moves: int, max_seconds: float = float("inf"),
          eval_every: int = 200_000, eval_games: int = 1_000, seed: int = 0,
          checkpoint_seconds: float = 300.0,
          on_entry: Optional[Callable[[LogEntry], None]] = None
         ) -> list[LogEntry]:
  """Trains until `max_moves` moves or `max_seconds` of training, resuming
  from output_dir/checkpoint.pkl (made with the same rules, config and
  seed); evaluates every `eval_every` moves (and at the end) on
  `eval_games` fixed decks, writing a weights snapshot each time. Returns
  the log (also in output_dir/metrics.jsonl)."""
  for name, value in (("max_moves", max_moves), ("eval_every", eval_every),
                      ("eval_games", eval_games)):
    if value < 1:
      raise ValueError(f"{name} must be at least 1, got {name}={value}")
  run = trainer(rules, config)
  run_config = _run_config(rules, config, seed)
  path = os.path.join(output_dir, "checkpoint.pkl")
  if os.path.exists(path):
    saved = checkpoints.restore(path, run_config)
    tree, key, moves = saved.tree, saved.key, saved.step
    log = [LogEntry(**e) for e in saved.extra["log"]]
    wall_time = saved.extra["wall_time"]
    print(f"resumed {path} at {moves:,d} moves", flush=True)
  else:
    key, init_key = jax.random.split(jax.random.PRNGKey(seed))
    train_state, actors = run.init(init_key)
    tree = (train_state, run.empty_buffer(), actors, None)
    moves, log, wall_time = 0, [], 0.0
  train_state, buffer, actors, pending = tree
  decks = evaluation_decks(rules, eval_games, seed)
  losses, scores = [], []
  started, saved_at = time.perf_counter() - wall_time, time.perf_counter()
  per_unroll = config.unroll * config.num_envs

  def save():
    checkpoints.save(path, (train_state, buffer, actors, pending), run_config,
                     key, moves, {"log": [e._asdict() for e in log],
                                  "wall_time": wall_time})

  while moves < max_moves and wall_time < max_seconds:
    key, collect_key, learn_key = jax.random.split(key, 3)
    actors, segment, ended = run.collect(train_state.params, actors,
                                         collect_key)
    if pending is not None:
      buffer = run.store(buffer, pending, segment)
    pending = segment
    ended = np.asarray(ended)
    scores.extend(ended[~np.isnan(ended)].tolist())
    if int(buffer.size) >= max(config.learning_starts, config.batch_size):
      train_state, loss = run.learn(train_state, buffer, learn_key)
      losses.append(float(loss))
    moves += per_unroll
    wall_time = time.perf_counter() - started
    if moves // eval_every > (moves - per_unroll) // eval_every or (
        moves >= max_moves or wall_time >= max_seconds):
      evaluated = blueprints.self_play_scores(LearnedBlueprint(
          run.evaluation_engine, train_state.params, config.network), decks)
      snapshot = os.path.join("snapshots", f"moves_{moves}.npz")
      entry = LogEntry(moves, int(train_state.step), wall_time,
                       float(np.mean(losses)) if losses else float("nan"),
                       float(np.mean(scores)) if scores else float("nan"),
                       float(evaluated.mean()),
                       reporting.standard_error(evaluated), snapshot)
      save_weights(os.path.join(output_dir, snapshot), train_state.params,
                   rules, config.network,
                   {"moves": moves, "eval_score": entry.eval_score})
      log.append(entry)
      reporting.write_log(log, os.path.join(output_dir, "metrics.jsonl"))
      if on_entry:
        on_entry(entry)
      losses, scores = [], []
      started = time.perf_counter() - wall_time  # Evaluations not counted.
    if time.perf_counter() - saved_at >= checkpoint_seconds:
      save()
      saved_at = time.perf_counter()
  save()
  return log
