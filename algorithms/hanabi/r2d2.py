"""R2D2: trains the learned Hanabi blueprints' public-private recurrent Q
network (`q_network.py`) by independent Q-learning in self-play, on the
batched engine.

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

`train` runs it with checkpoints, evaluations (greedy self-play of the
`learned_blueprint.LearnedBlueprint` on fixed decks), a weights snapshot
per evaluation (`q_network.save_weights`), and resumes from its checkpoint;
`examples/hanabi_train.py` is its command line.
"""

import dataclasses
import functools
import os
import re
import time
from typing import Any, Callable, NamedTuple, Optional

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import optax

from open_spiel_ext.algorithms.hanabi import blueprints
from open_spiel_ext.algorithms.hanabi import learned_blueprint
from open_spiel_ext.algorithms.hanabi import q_network
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.algorithms.rl import buffers
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.games.hanabi import engine as engine_lib
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import memory
from open_spiel_ext.utils import reporting


@dataclasses.dataclass(frozen=True)
class Config:
  """R2D2's settings (the module docstring)."""
  network: q_network.NetworkConfig = q_network.NetworkConfig()
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
    self.net = q_network.network(rules, config.network)
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
    actors = Actors(states, q_network.initial_memory(
                        config.network, config.num_envs, self.rules.players),
                    jnp.ones(config.num_envs, bool),
                    jnp.asarray(epsilons(config)),
                    jnp.zeros(config.num_envs))
    return train, actors

  def _collect(self, params: hk.Params, actors: Actors, key: jax.Array
              ) -> tuple[Actors, Segment, jax.Array]:
    """`unroll` moves of every game; also the scores of the games that
    ended (NaN where none did), [T, B]."""
    fresh = q_network.initial_memory(
        self.config.network, self.config.num_envs, self.rules.players)

    def move(actors: Actors, key):
      states = actors.states
      lstm = jax.tree.map(
          lambda f, m: jnp.where(actors.first[:, None, None], f, m),
          fresh, actors.lstm)
      memory = q_network.remember_all(self.net, params, lstm, states)
      movers = states.current_player
      q = q_network.q_of(self.net, params, memory, states, movers,
                         states.legal_action_mask)
      explore_key, pick_key = jax.random.split(key)
      explore = jax.random.uniform(explore_key, movers.shape) < actors.epsilon
      randomly = masking.masked_sample(
          pick_key, jnp.zeros(states.legal_action_mask.shape),
          states.legal_action_mask)
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
        jax.tree.map(q_network.merge_leading_axes, segment.lstm))
    hidden = hidden.reshape(steps, batch, players, -1)
    pick = jax.nn.one_hot(segment.mover, players)[..., None]
    mover_hidden = (hidden * pick).sum(axis=2)
    mover_observation = (observation * pick).sum(axis=2)
    q = self.net.apply[2](params, q_network.merge_leading_axes(mover_hidden),
                          q_network.merge_leading_axes(mover_observation))
    return q.reshape(steps, batch, -1)

  def _targets(self, online: jax.Array, target: jax.Array,
               segment: Segment) -> jax.Array:
    """[T − n, B] the n-step double-Q targets (module docstring)."""
    n, discount = self.config.n_step, self.config.discount
    steps = online.shape[0] - n
    best = masking.masked_argmax(online, segment.legal)
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
    zeros = q_network.initial_memory(config.network, 1, rules.players)
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


def training_bytes(rules: engine_lib.Rules, config: Config) -> int:
  """A lower bound of the bytes `train` allocates: what it keeps between
  unrolls (the networks and Adam's moments, the replay ring, the `num_envs`
  games in progress and the segment waiting to be stored), as
  `jax.eval_shape` sizes it without allocating."""
  run = trainer(rules, config)

  def kept(key):
    train_state, actors = run.init(key)
    actors, segment, _ = run.collect(train_state.params, actors, key)
    return train_state, run.empty_buffer(), actors, segment

  return memory.tree_bytes(jax.eval_shape(kept, jax.random.PRNGKey(0)))


# The training run.


SNAPSHOTS = "snapshots"  # The folder of the weights snapshots.


@checkpoints.reads_former_tuples()
@dataclasses.dataclass(frozen=True)
class LogEntry:
  moves: int  # Moves played by the self-playing games, all together.
  updates: int
  wall_time: float  # Seconds of training (evaluations not counted).
  loss: float  # Mean over the updates since the last entry.
  train_score: float  # Mean of the exploring games that ended since then.
  eval_score: float  # Greedy self-play on the evaluation decks.
  eval_standard_error: float
  snapshot: str  # The weights file of this evaluation, in the output_dir.


def _remove_snapshots_after(output_dir: str, moves: int) -> None:
  """Removes the weights snapshots of evaluations after `moves` (those of
  a run that stopped before its checkpoint kept them), which the resumed
  run makes again."""
  folder = os.path.join(output_dir, SNAPSHOTS)
  if not os.path.isdir(folder):
    return
  for name in os.listdir(folder):
    match = re.fullmatch(r"moves_(\d+)\.npz", name)
    if match and int(match.group(1)) > moves:
      os.remove(os.path.join(folder, name))


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


def _record(rules: engine_lib.Rules, config: Config,
            seed: int) -> dict[str, Any]:
  """The run's whole configuration, as its checkpoints keep it."""
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
  record = _record(rules, config, seed)
  path = os.path.join(output_dir, "checkpoint.pkl")
  if os.path.exists(path):
    saved = checkpoints.restore(path, record)
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
  _remove_snapshots_after(output_dir, moves)
  metrics = reporting.resumed_metrics(
      os.path.join(output_dir, "metrics.jsonl"), moves, counter="moves")
  losses, scores = [], []
  started, saved_at = time.perf_counter() - wall_time, time.perf_counter()
  per_unroll = config.unroll * config.num_envs

  def save():
    checkpoints.save(path, (train_state, buffer, actors, pending), record,
                     key, moves, {"log": [dataclasses.asdict(e) for e in log],
                                  "wall_time": wall_time})

  # A stop signal waits for the unroll to end: checkpointed, then raised.
  with checkpoints.interrupts_held() as interrupts:
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
        evaluated = blueprints.self_play_scores(
            learned_blueprint.LearnedBlueprint(
                run.evaluation_engine, train_state.params, config.network),
            decks)
        snapshot = os.path.join(SNAPSHOTS, f"moves_{moves}.npz")
        entry = LogEntry(moves, int(train_state.step), wall_time,
                         float(np.mean(losses)) if losses else float("nan"),
                         float(np.mean(scores)) if scores else float("nan"),
                         float(evaluated.mean()),
                         reporting.standard_error(evaluated), snapshot)
        q_network.save_weights(os.path.join(output_dir, snapshot),
                               train_state.params, rules, config.network,
                               {"moves": moves, "eval_score": entry.eval_score})
        log.append(entry)
        metrics.write(reporting.as_record(entry))
        if on_entry:
          on_entry(entry)
        losses, scores = [], []
        started = time.perf_counter() - wall_time  # Evaluations not counted.
      if time.perf_counter() - saved_at >= checkpoint_seconds:
        save()
        saved_at = time.perf_counter()
      if interrupts.requested:
        save()
        interrupts.stop()
  save()
  metrics.close()
  return log
