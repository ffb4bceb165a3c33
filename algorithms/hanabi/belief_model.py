"""Learned beliefs over a Hanabi player's own hand, as learned belief search
(LBS; Hu et al., 2021) samples them, and values for blueprints without one.

The belief model reads one player's observations, one per game step, with an
LSTM (HLE's observation shows the last move, so the sequence is the player's
action-observation history); an auto-regressive decoder then gives the
player's hand card by card, oldest slot first: slot h's card is a
categorical over the C·R card identities given the encoder's output and the
card of slot h − 1 (the true one in training, the sampled one in search).
Empty slots (at the end of a game) are neither decoded nor scored: how many
cards a player holds is public.

It learns by maximum likelihood from games a fixed blueprint self-plays on
the batched engine, generated all along training into a replay buffer of
whole games, every player's view of every step a training sequence. A row
of the buffer is either one game from its deal, padded to the longest game
the rules allow (`max_moves`), or (`Config.sequence_length`) whole games
packed back to back, the encoder starting afresh at each game's first step
(`Games.first`); either way no recurrent state is stored, and the packed
rows spend less of each update on padding. The model belongs to one
blueprint and one set of rules; its weights file records both
(`BeliefModel.check`).

LBS bootstraps its k-step rollouts from the blueprint's value. The learned
blueprints have their Q values; for one without (the rule-based bot) the
same games train a value network (`NetworkConfig.value_hidden`): an MLP over
every player's observation at once (together the whole state: both hands,
hints, tokens, fireworks, discards) regressed on the points still to come.
It needs no history, since the rule-based bot decides from the state alone.

`train` runs it with checkpoints and held-out evaluations and resumes
(refilling the replay buffer, which checkpoints leave out);
`examples/hanabi_belief_train.py` is its command line. `BeliefModel` (from
`load`) serves search: the encoder's step, hands drawn from its output, and
the value.
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
from open_spiel_ext.utils import memory
from open_spiel_ext.utils import reporting


def max_moves(rules: engine_lib.Rules) -> int:
  """The most moves a game can last: plays and discards draw the deck and
  then every player moves once more; each hint spends a token, which only
  the start, discards and completed fireworks give."""
  draws = rules.deck_size - rules.players * rules.hand_size + rules.players
  return 2 * draws + rules.max_information_tokens + rules.colors


@dataclasses.dataclass(frozen=True)
class NetworkConfig:
  """The belief model's widths (and the value network's, if any)."""
  hidden: tuple[int, ...] = (256,)  # Dense layers before the encoder LSTM.
  lstm_size: int = 256
  decoder_size: int = 128
  value_hidden: tuple[int, ...] = ()  # The value network; () for none.

  def __post_init__(self):
    learner_lib.check_widths(self, "hidden")
    if self.value_hidden:
      learner_lib.check_widths(self, "value_hidden")
    learner_lib.check_positive(self, "lstm_size", "decoder_size")


@dataclasses.dataclass(frozen=True)
class Config:
  """Training settings (the module docstring)."""
  network: NetworkConfig = NetworkConfig()
  num_envs: int = 64  # Games the blueprint plays per collection.
  replay_capacity: int = 1_024  # Whole games.
  batch_size: int = 16  # Rows per update (every player's view of each).
  updates_per_collect: int = 4
  learning_starts: int = 256  # Rows stored before the first update.
  learning_rate: float = 1e-3  # The reference code's default.
  max_grad_norm: float = 5.0
  # Steps of a buffer row: 0 for one game a row, padded to `max_moves`; else
  # whole games packed back to back (at least `max_moves`).
  sequence_length: int = 0
  # The share of a batch's player-steps whose hands an update decodes and
  # scores, drawn at random among the steps of games: the decoder is about
  # half an update's time, and a player's hand changes little from one step
  # to the next. 1 scores every step.
  decoded_share: float = 1.0

  def __post_init__(self):
    learner_lib.check_positive(
        self, "num_envs", "replay_capacity", "batch_size",
        "updates_per_collect", "learning_rate", "max_grad_norm")
    learner_lib.check_non_negative(self, "learning_starts", "sequence_length")
    if not 0 < self.decoded_share <= 1:
      raise ValueError(f"decoded_share must be in (0, 1], got "
                       f"decoded_share={self.decoded_share}")


# The networks.


class HandBelief(hk.Module):
  """An LSTM encoder of a player's observations and an auto-regressive
  decoder of its hand (module docstring)."""

  def __init__(self, rules: engine_lib.Rules, config: NetworkConfig):
    super().__init__(name="hand_belief")
    self._rules = rules
    self._encoder = layers.LSTMTorso(config.hidden, config.lstm_size,
                                     name="encoder")
    self._decoder = hk.LSTM(config.decoder_size, name="decoder")
    self._card = hk.Linear(rules.num_cards, name="card")

  def remember(self, observations: jax.Array, state: hk.LSTMState
              ) -> tuple[jax.Array, hk.LSTMState]:
    """One encoder step on [B, O] observations."""
    return self._encoder(observations, state)

  def unroll(self, observations: jax.Array, first: jax.Array,
             state: hk.LSTMState) -> jax.Array:
    """[T, B, lstm] encoder outputs over [T, B, O] observations, starting
    afresh where [T, B] `first` (a game's first step)."""
    return hk.dynamic_unroll(hk.ResetCore(self._encoder),
                             (observations, first), state)[0]

  def _slot(self, context: jax.Array, previous: jax.Array, slot: int,
            state: hk.LSTMState) -> tuple[jax.Array, hk.LSTMState]:
    """A slot's card logits from the context and the previous card (-1:
    none before the first slot)."""
    rules = self._rules
    inputs = jnp.concatenate([
        context, jax.nn.one_hot(previous, rules.num_cards),
        jnp.broadcast_to(jax.nn.one_hot(slot, rules.hand_size),
                         (context.shape[0], rules.hand_size))], axis=-1)
    output, state = self._decoder(inputs, state)
    return self._card(output), state

  def log_probs(self, context: jax.Array, hands: jax.Array) -> jax.Array:
    """[B, H, C·R] each slot's log-probabilities given [B, lstm] contexts
    and the [B, H] hands' earlier cards."""
    state = self._decoder.initial_state(context.shape[0])
    previous = jnp.full(context.shape[:1], -1)
    out = []
    for slot in range(self._rules.hand_size):
      logits, state = self._slot(context, previous, slot, state)
      out.append(jax.nn.log_softmax(logits))
      previous = hands[:, slot]
    return jnp.stack(out, axis=1)

  def sample(self, context: jax.Array, key: jax.Array) -> jax.Array:
    """[B, H] hands drawn card by card from [B, lstm] contexts."""
    state = self._decoder.initial_state(context.shape[0])
    previous = jnp.full(context.shape[:1], -1)
    cards = []
    for slot, slot_key in enumerate(jax.random.split(
        key, self._rules.hand_size)):
      logits, state = self._slot(context, previous, slot, state)
      previous = jax.random.categorical(slot_key, logits)
      cards.append(previous)
    return jnp.stack(cards, axis=1)


def state_value(config: NetworkConfig, everyone: jax.Array) -> jax.Array:
  """[B] the value network's points to come from [B, P·O] observations of
  every player (called inside a haiku transform)."""
  return layers.MLP(config.value_hidden, 1, name="value")(everyone)[:, 0]


@functools.lru_cache(maxsize=None)
def network(rules: engine_lib.Rules,
            config: NetworkConfig) -> hk.MultiTransformed:
  """init(rng, observations [B, O], hands [B, H], everyone [B, P·O]) and
  apply = (remember, unroll, log_probs, sample, value)."""

  def forward():
    belief = HandBelief(rules, config)

    def value(everyone):
      if not config.value_hidden:
        raise ValueError("this belief model has no value network "
                         "(value_hidden=())")
      return state_value(config, everyone)

    def init(observations, hands, everyone):
      context, _ = belief.remember(
          observations, initial_state(config, observations.shape[0]))
      log_probs = belief.log_probs(context, hands)
      if config.value_hidden:
        return log_probs, value(everyone)
      return log_probs

    return init, (belief.remember, belief.unroll, belief.log_probs,
                  belief.sample, value)

  return hk.without_apply_rng(hk.multi_transform(forward))


def initial_state(config: NetworkConfig, batch: int) -> hk.LSTMState:
  """The encoder's state before a game's first observation."""
  zeros = jnp.zeros((batch, config.lstm_size))
  return hk.LSTMState(zeros, zeros)


# Training.


class Games(NamedTuple):
  """Rows of whole games of the blueprint, [B, T, ...]: one game a row from
  step 0 (`collect`), or games packed back to back (`pack`)."""
  observation: jax.Array  # [B, T, P, O] uint8 every player's, at step t.
  hands: jax.Array  # [B, T, P, H] int8 the cards held at step t.
  valid: jax.Array  # [B, T] bool: step t is a step of a game (not padding).
  to_go: jax.Array  # [B, T] float32 the points its game scores from t on.
  first: jax.Array  # [B, T] bool: a game starts at step t.


def pack(games: Games, length: int) -> tuple[Games, jax.Array]:
  """One-a-row games (from `collect`) packed whole, in order, into rows of
  `length` steps (at least the rows' own length): a game goes on the row
  being filled if it fits, else starts the next. Returns [B, length] rows
  (as many as the games, the unused ones empty) and which rows are used."""
  count, steps = games.valid.shape
  if length < steps:
    raise ValueError(f"rows of {length} steps cannot hold games of up to "
                     f"{steps} steps")
  lengths = games.valid.sum(axis=1)

  def place(carry, size):
    row, offset = carry
    row, offset = jax.lax.cond(offset + size > length,
                               lambda: (row + 1, jnp.int32(0)),
                               lambda: (row, offset))
    return (row, offset + size), (row, offset)

  _, (rows, offsets) = jax.lax.scan(place, (jnp.int32(0), jnp.int32(0)),
                                    lengths)
  step = jnp.arange(steps)
  row = jnp.broadcast_to(rows[:, None], (count, steps))
  column = jnp.where(games.valid, offsets[:, None] + step, length)

  def scatter(field):
    packed = jnp.zeros((count, length) + field.shape[2:], field.dtype)
    return packed.at[row, column].set(field, mode="drop")

  return (Games(*map(scatter, games)),
          jnp.arange(count) <= rows[-1])


class Sequences(NamedTuple):
  """[B, T] rows as the networks read them: N = B·P sequences, one per
  player's view of a row."""
  observations: jax.Array  # [T, N, O] float32.
  first: jax.Array  # [T, N] bool: the encoder starts afresh.
  hands: jax.Array  # [T·N, H] int32 the cards held (-1: none).
  cards: jax.Array  # [T·N, H] bool: a card held at a step of a game.
  everyone: jax.Array  # [B·T, P·O] float32 every player's observation.
  to_go: jax.Array  # [B·T] float32 points to come.
  valid: jax.Array  # [B·T] bool: a step of a game.


def sequences(games: Games) -> Sequences:
  """The networks' view of a batch of rows."""
  batch, steps, players, size = games.observation.shape
  observation = games.observation.astype(jnp.float32)
  time_major = lambda x: jnp.moveaxis(x, 1, 0)
  hands = time_major(games.hands).reshape(steps * batch * players,
                                          -1).astype(jnp.int32)
  valid = jnp.repeat(time_major(games.valid), players).reshape(-1)
  return Sequences(
      time_major(observation).reshape(steps, batch * players, size),
      jnp.repeat(time_major(games.first), players, axis=1), hands,
      (hands >= 0) & valid[:, None],
      observation.reshape(batch * steps, players * size),
      games.to_go.reshape(-1), games.valid.reshape(-1))


class Trainer:
  """The jitted pieces of training a blueprint's belief model."""

  def __init__(self, blueprint: blueprints.Blueprint, config: Config):
    self.blueprint, self.config = blueprint, config
    self.rules = blueprint.engine.rules
    if blueprint.engine.auto_reset:
      raise ValueError("the blueprint's engine must not auto-reset")
    self.net = network(self.rules, config.network)
    self.optimizer = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm),
        optax.adam(config.learning_rate))
    self._update = training.make_update(self._loss, self.optimizer)
    if config.sequence_length and config.sequence_length < max_moves(
        self.rules):
      raise ValueError(
          f"sequence_length={config.sequence_length} cannot hold a whole "
          f"game: games of these rules last up to {max_moves(self.rules)} "
          "moves")
    self.collect = jax.jit(self._collect, static_argnums=2)
    self.rows = jax.jit(self._rows)
    self.learn = jax.jit(self._learn)
    self.store = jax.jit(buffers.add, donate_argnums=0)
    self.evaluate = jax.jit(self._evaluate)

  def init(self, key: jax.Array) -> training.TrainState:
    rules = self.rules
    params = self.net.init(
        key, jnp.zeros((1, rules.observation_size)),
        jnp.zeros((1, rules.hand_size), jnp.int32),
        jnp.zeros((1, rules.players * rules.observation_size)))
    return training.init_train_state(params, {}, self.optimizer)

  @property
  def row_length(self) -> int:
    """Steps of a buffer row."""
    return self.config.sequence_length or max_moves(self.rules)

  def empty_buffer(self) -> buffers.Buffer:
    rules, steps = self.rules, self.row_length
    example = Games(
        jnp.zeros((steps, rules.players, rules.observation_size), jnp.uint8),
        jnp.zeros((steps, rules.players, rules.hand_size), jnp.int8),
        jnp.zeros(steps, bool), jnp.zeros(steps), jnp.zeros(steps, bool))
    return buffers.init(example, self.config.replay_capacity)

  def _rows(self, blueprint_params: Any, key: jax.Array
           ) -> tuple[Games, jax.Array]:
    """`num_envs` new games as buffer rows, and which rows hold any."""
    games = self._collect(blueprint_params, key, self.config.num_envs)
    if not self.config.sequence_length:
      return games, jnp.ones(self.config.num_envs, bool)
    return pack(games, self.config.sequence_length)

  def _collect(self, blueprint_params: Any, key: jax.Array,
               count: int) -> Games:
    """`count` whole games of the blueprint from shuffled decks, one a
    row."""
    blueprint, engine = self.blueprint, self.blueprint.engine
    states = engine.init(jax.random.split(key, count))

    def move(carry, _):
      states, memory = carry
      after = engine.step(states, blueprint.moves(blueprint_params, memory,
                                                  states))
      record = (states.observation.astype(jnp.uint8),
                states.hands.astype(jnp.int8), ~states.terminated,
                after.rewards[:, 0])
      return (after, blueprint.remember(blueprint_params, memory,
                                        after)), record

    start = (states, blueprint.start(blueprint_params, states))
    _, (observation, hands, valid, reward) = jax.lax.scan(
        move, start, None, length=max_moves(self.rules))
    to_go = jnp.cumsum(reward[::-1], axis=0)[::-1]
    first = jnp.zeros_like(valid).at[0].set(True)
    batch_first = lambda x: jnp.swapaxes(x, 0, 1)
    return Games(*map(batch_first, (observation, hands, valid, to_go,
                                    first)))

  def _losses(self, params: hk.Params, games: Games,
              key: Optional[jax.Array] = None
             ) -> tuple[jax.Array, jax.Array]:
    """The mean cross-entropy per card (nats) and the value's mean squared
    error (0 without a value network); with a `key`, the cross-entropy of
    the `decoded_share` of the player-steps drawn with it."""
    inputs = sequences(games)
    context = self.net.apply[1](
        params, inputs.observations, inputs.first,
        initial_state(self.config.network, inputs.first.shape[1]))
    context = context.reshape(len(inputs.hands), -1)
    hands, cards = inputs.hands, inputs.cards
    if key is not None and self.config.decoded_share < 1:
      count = int(np.ceil(self.config.decoded_share * len(hands)))
      # Steps of games first (in random order), then padding.
      priority = jax.random.uniform(key, (len(hands),)) + cards.any(axis=1)
      _, rows = jax.lax.top_k(priority, count)
      context, hands, cards = context[rows], hands[rows], cards[rows]
    log_probs = self.net.apply[2](params, context, hands)
    picked = jnp.take_along_axis(
        log_probs, jnp.maximum(hands, 0)[..., None], axis=-1)[..., 0]
    cross_entropy = -(picked * cards).sum() / jnp.maximum(cards.sum(), 1)
    if not self.config.network.value_hidden:
      return cross_entropy, jnp.float32(0)
    value = self.net.apply[4](params, inputs.everyone)
    errors = (value - inputs.to_go) * inputs.valid
    return cross_entropy, (errors**2).sum() / jnp.maximum(
        inputs.valid.sum(), 1)

  def _loss(self, params: hk.Params, net_state: hk.State, games: Games,
            key: jax.Array):
    cross_entropy, value_error = self._losses(params, games, key)
    return cross_entropy + value_error, (net_state, (cross_entropy,
                                                     value_error))

  def _learn(self, train: training.TrainState, buffer: buffers.Buffer,
             key: jax.Array) -> tuple[training.TrainState, jax.Array]:
    """`updates_per_collect` updates; their mean losses [2]."""

    def update(train, key):
      games = buffers.sample(buffer, key, self.config.batch_size)
      train, losses = self._update(train, games, jax.random.fold_in(key, 1))
      return train, jnp.stack(losses)

    keys = jax.random.split(key, self.config.updates_per_collect)
    train, losses = jax.lax.scan(update, train, keys)
    return train, losses.mean(axis=0)

  def _evaluate(self, params: hk.Params, games: Games) -> jax.Array:
    return jnp.stack(self._losses(params, games))

  def training_bytes(self) -> int:
    """A lower bound of the bytes `train` allocates: the model and Adam's
    moments, the replay buffer, a collection's `num_envs` games and an
    update's `batch_size` rows, as `jax.eval_shape` sizes them without
    allocating."""

    def allocated(key):
      buffer = self.empty_buffer()
      return (self.init(key), buffer, self.rows(self.blueprint.params, key),
              buffers.sample(buffer, key, self.config.batch_size))

    return memory.tree_bytes(jax.eval_shape(allocated,
                                            jax.random.PRNGKey(0)))

  def seconds_per_update(self) -> float:
    """One update's seconds on this device, timed after compiling, on a
    buffer of one collection."""
    key = jax.random.PRNGKey(0)
    rows, used = self.rows(self.blueprint.params, key)
    buffer = self.store(self.empty_buffer(), rows, used)
    train = self.init(key)
    jax.block_until_ready(self.learn(train, buffer, key))
    started = time.perf_counter()
    jax.block_until_ready(self.learn(train, buffer, key))
    return (time.perf_counter() - started) / self.config.updates_per_collect


# Held-out games are collected this many at a time.
HELD_OUT_CHUNK = 64
MODEL_KIND = "Hanabi belief model"  # Its weights files' kind (nn/weights.py).


@checkpoints.reads_former_tuples()
@dataclasses.dataclass(frozen=True)
class LogEntry:
  updates: int
  games: int  # Games the blueprint played for training.
  wall_time: float  # Seconds of training (evaluations not counted).
  cross_entropy: float  # Training batches', per card, since the last entry.
  value_error: float
  eval_cross_entropy: float  # On the held-out games.
  eval_value_error: float


class _Carry(NamedTuple):
  """What a checkpoint keeps."""
  train: training.TrainState
  key: jax.Array
  games: jax.Array


@dataclasses.dataclass
class _Replay:
  """The replay buffer, which checkpoints leave out: new games refill it."""
  buffer: buffers.Buffer


def train(blueprint: blueprints.Blueprint, blueprint_name: str,
          config: Config, output_dir: str, max_updates: int,
          max_seconds: float = float("inf"), eval_every: int = 500,
          eval_games: int = 256, seed: int = 0,
          on_entry: Optional[Callable[[LogEntry], None]] = None,
          warm_start: Optional["BeliefModel"] = None) -> list[LogEntry]:
  """Trains the belief model of `blueprint` (named `blueprint_name` in the
  weights file) until `max_updates` updates or `max_seconds` of training,
  resuming from output_dir/checkpoint.pkl; every `eval_every` updates it
  evaluates on `eval_games` held-out games, checkpoints, and writes
  output_dir/belief.npz and metrics.jsonl. Returns the log.

  A checkpoint keeps the model, its optimiser and the counters but not the
  replay buffer (of full Hanabi, over 100 MB): a resumed run refills it with
  new games of the blueprint, `learning_starts` rows before it learns
  again, so it goes on from where it stopped but not bit for bit as if
  never stopped.

  With `warm_start` (a model of `blueprint` with `config.network`), a new
  run starts from its parameters, a fresh optimiser and its recorded
  updates and games (so `max_updates` counts them too): how a run goes on
  where its checkpoint cannot travel, only its model."""
  for name, value in (("max_updates", max_updates),
                      ("eval_every", eval_every), ("eval_games", eval_games)):
    if value < 1:
      raise ValueError(f"{name} must be at least 1, got {name}={value}")
  run = Trainer(blueprint, config)
  record = {"rules": run.rules.parameters(), "seed": seed,
            "blueprint": blueprint.fingerprint,
            **dataclasses.asdict(config)}
  key, init_key, eval_key = jax.random.split(jax.random.PRNGKey(seed), 3)
  held_out = _held_out(run, eval_key, eval_games)
  per_collect = config.updates_per_collect

  replay = _Replay(run.empty_buffer())

  def advance(carry: _Carry, updates: int):
    """Collects games, and learns once the buffer is full enough, until
    `updates` updates were made (collections before then make none)."""
    losses = []
    while len(losses) * per_collect < updates:
      key, collect_key, learn_key = jax.random.split(carry.key, 3)
      rows, used = run.rows(blueprint.params, collect_key)
      replay.buffer = run.store(replay.buffer, rows, used)
      train_state = carry.train
      if int(replay.buffer.size) >= max(config.learning_starts,
                                        config.batch_size):
        train_state, mean = run.learn(train_state, replay.buffer, learn_key)
        losses.append(mean)
      carry = _Carry(train_state, key, carry.games + config.num_envs)
    return carry, losses

  def make_entry(carry: _Carry, step, losses, seconds, log) -> LogEntry:
    del step
    mean = np.mean(np.asarray(losses), axis=0) if losses else [np.nan] * 2
    evaluated = np.asarray(run.evaluate(carry.train.params, held_out))
    entry = LogEntry(int(carry.train.step), int(carry.games), seconds,
                     float(mean[0]), float(mean[1]), float(evaluated[0]),
                     float(evaluated[1]))
    save_model(os.path.join(output_dir, "belief.npz"), carry.train.params,
               blueprint, blueprint_name, config.network,
               {"updates": entry.updates, "games": entry.games,
                "eval_cross_entropy": entry.eval_cross_entropy})
    reporting.write_log(log + [entry],
                        os.path.join(output_dir, "metrics.jsonl"))
    return entry

  if warm_start is not None:
    record["warm_start"] = {"path": os.path.basename(warm_start.path),
                            **warm_start.info}
  train_state, games = _start(run, init_key, warm_start)
  carry = _Carry(train_state, key, games)
  _, log = learner_lib.run_in_chunks(
      carry, advance, make_entry, max_updates, eval_every, record,
      os.path.join(output_dir, "checkpoint.pkl"), on_entry=on_entry,
      stop=lambda log: log[-1].wall_time >= max_seconds)
  return log


def _start(run: Trainer, key: jax.Array,
           warm_start: Optional["BeliefModel"]
          ) -> tuple[training.TrainState, jax.Array]:
  """The training state and games count a run starts from: a new model's,
  or `warm_start`'s parameters (in float32) with a fresh optimiser."""
  if warm_start is None:
    return run.init(key), jnp.int32(0)
  warm_start.check(run.blueprint)
  if warm_start.config != run.config.network:
    raise ValueError(f"the belief model {warm_start.path} has the network "
                     f"{warm_start.config}, not the run's "
                     f"{run.config.network}")
  params = jax.tree.map(lambda x: jnp.asarray(x, jnp.float32),
                        warm_start.params)
  state = training.init_train_state(params, {}, run.optimizer)
  return (state._replace(step=jnp.int32(warm_start.info.get("updates", 0))),
          jnp.int32(warm_start.info.get("games", 0)))


def held_out_cross_entropy(model: "BeliefModel",
                           blueprint: blueprints.Blueprint,
                           games: int = 256, seed: int = 0) -> float:
  """`model`'s cross-entropy per card on the held-out games that `train`
  with `seed` and `games` scores on (the same whatever the model's
  settings). Raises ValueError if `model` is not `blueprint`'s."""
  model.check(blueprint)
  run = Trainer(blueprint, Config(network=model.config))
  eval_key = jax.random.split(jax.random.PRNGKey(seed), 3)[2]
  return float(run.evaluate(model.params, _held_out(run, eval_key,
                                                    games))[0])


def _held_out(run: Trainer, key: jax.Array, count: int) -> Games:
  """`count` games of the blueprint for evaluations (never trained on), one
  a row; the same games whatever the training settings."""
  keys = jax.random.split(key, -(-count // HELD_OUT_CHUNK))
  games = [run.collect(run.blueprint.params, k, HELD_OUT_CHUNK)
           for k in keys]
  return jax.tree.map(lambda *x: jnp.concatenate(x)[:count], *games)


# Weights files and search's use of them.


def save_model(path: str, params: hk.Params, blueprint: blueprints.Blueprint,
               blueprint_name: str, config: NetworkConfig,
               info: Optional[dict[str, Any]] = None) -> None:
  """The model's parameters with its rules, network settings and blueprint."""
  weights.save(path, params, {
      "rules": blueprint.engine.rules.parameters(),
      "network": dataclasses.asdict(config),
      "blueprint": blueprint.fingerprint, "blueprint_name": blueprint_name,
      "info": info or {}}, kind=MODEL_KIND)


class BeliefModel:
  """A trained belief model (and value network) of one blueprint."""

  def __init__(self, params: hk.Params, config: NetworkConfig,
               rules: engine_lib.Rules, blueprint: str, blueprint_name: str,
               path: str = "(in memory)",
               info: Optional[dict[str, Any]] = None):
    self.params = jax.tree.map(jnp.asarray, params)
    self.info = info or {}  # What training recorded (updates, games, ...).
    self.config, self.rules = config, rules
    self.blueprint, self.blueprint_name, self.path = (blueprint,
                                                      blueprint_name, path)
    net = network(rules, config)
    self.remember = jax.jit(net.apply[0])
    self.value = jax.jit(net.apply[4])
    self._sample = jax.jit(net.apply[3])

  @property
  def has_value(self) -> bool:
    return bool(self.config.value_hidden)

  def check(self, blueprint: blueprints.Blueprint) -> None:
    """Raises ValueError unless the model was trained on `blueprint`'s games
    under its rules."""
    rules = blueprint.engine.rules
    if rules != self.rules:
      raise ValueError(f"the belief model {self.path} was trained on "
                       f"{self.rules}, not on {rules}")
    if blueprint.fingerprint != self.blueprint:
      raise ValueError(
          f"the belief model {self.path} was trained on the games of the "
          f"blueprint {self.blueprint_name!r} ({self.blueprint}), not of "
          f"{blueprint.fingerprint}")

  def start(self) -> hk.LSTMState:
    """The encoder's state before a game (batch of one)."""
    return initial_state(self.config, 1)

  def sample(self, context: jax.Array, count: int, present: int,
             key: jax.Array) -> np.ndarray:
    """[count, H] int8 hands drawn from a [1, lstm] context, -1 in the
    slots past the `present` cards held."""
    hands = np.asarray(self._sample(
        self.params, jnp.broadcast_to(context, (count, context.shape[-1])),
        key), np.int8)
    hands[:, present:] = -1
    return hands


def game_contexts(model: BeliefModel, observations: np.ndarray) -> jax.Array:
  """[T, lstm] the encoder's output after each of a game's [T, O]
  observations of one player (what `BeliefModel.sample` draws from)."""
  net = network(model.rules, model.config)
  first = jnp.zeros((len(observations), 1), bool).at[0].set(True)
  return net.apply[1](model.params, jnp.asarray(observations)[:, None],
                      first, initial_state(model.config, 1))[:, 0]


def true_hand_log_probs(model: BeliefModel, observations: np.ndarray,
                        hands: np.ndarray) -> np.ndarray:
  """[T] the model's log-probability of the hand a player truly held at
  each step of a game, given its [T, O] observations and [T, H] hands."""
  net = network(model.rules, model.config)
  context = game_contexts(model, observations)
  hands = jnp.asarray(hands, jnp.int32)
  log_probs = net.apply[2](model.params, context, hands)
  picked = jnp.take_along_axis(log_probs, jnp.maximum(hands, 0)[..., None],
                               axis=-1)[..., 0]
  return np.asarray(jnp.where(hands >= 0, picked, 0.0).sum(axis=1))


def load(path: str) -> BeliefModel:
  """The model `save_model` wrote."""
  if not os.path.exists(path):
    raise ValueError(f"no belief model at {path} (train one with "
                     "examples/hanabi_belief_train.py)")
  params, meta = weights.load(path, MODEL_KIND)
  settings = {k: tuple(v) if isinstance(v, list) else v
              for k, v in meta["network"].items()}
  return BeliefModel(params, NetworkConfig(**settings),
                     engine_lib.Rules(**meta["rules"]), meta["blueprint"],
                     meta["blueprint_name"], path, meta["info"])
