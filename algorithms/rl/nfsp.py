"""Neural Fictitious Self-Play on a batched JAX engine.

NFSP (Heinrich & Silver, 2016) learns an approximate Nash equilibrium of a
two-player game from self-play: each player keeps a best-response DDQN
(`dqn.py`), trained on its own transitions against the other's behaviour,
and an average policy, a network trained by supervised learning (log-loss)
on a reservoir of the actions it took in best-response mode. In every game
each player plays its best response (ε-greedy) with the anticipatory
probability η and its average policy otherwise, drawn once per game.

Here both players share the two networks: the information-state tensor
names the player, so one network serves both seats (as one network per seat
would, with its parameters shared), and B games run at once on a JAX engine
made with `auto_reset=True`. Each batched step moves the player to move in
every game; a player's transition runs from one of its decisions to its next
one, or to the end of the game, with the rewards it received meanwhile.
Every `best_response.train_every` batched steps both networks take their
updates. The whole step, self-play included, is jitted and scanned.

`train_nfsp` runs it with a log of exact exploitability (for tree-sized
games and m-Clone Leduc), checkpoints and resumption.
"""

import dataclasses
import functools
from typing import Any, Callable, NamedTuple, Optional

import haiku as hk
import jax
import jax.numpy as jnp
import optax

from open_spiel_ext.algorithms.nn import layers
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.algorithms.rl import buffers
from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import memory

NUM_PLAYERS = 2


def _default_best_response() -> dqn.Config:
  """OpenSpiel's Leduc NFSP settings, with Adam at 1e-3 (its SGD's 0.01 is
  too large a step for Adam) and ε decaying over 300,000 batched steps of
  64 games (its 20 million single decisions)."""
  return dqn.Config(hidden_sizes=(128,), learning_rate=1e-3, batch_size=128,
                    buffer_capacity=200_000, learning_starts=1_000,
                    target_update_every=300, epsilon_start=0.06,
                    epsilon_end=0.001, epsilon_decay_steps=300_000)


@dataclasses.dataclass(frozen=True)
class Config:
  """NFSP's settings: the best response's DDQN and the average policy's."""
  best_response: dqn.Config = dataclasses.field(
      default_factory=_default_best_response)
  anticipatory: float = 0.1  # η: the probability of best-response mode.
  average_hidden_sizes: tuple[int, ...] = (128,)
  average_learning_rate: float = 1e-3
  average_batch_size: int = 128
  reservoir_capacity: int = 2_000_000
  average_updates_per_train: int = 1

  def __post_init__(self):
    if not isinstance(self.best_response, dqn.Config):
      raise ValueError(f"best_response must be a dqn.Config, got "
                       f"{type(self.best_response).__name__}")
    learner_lib.check_unit_interval(self, "anticipatory")
    learner_lib.check_positive(self, "average_learning_rate",
                               "average_batch_size", "reservoir_capacity",
                               "average_updates_per_train")
    learner_lib.check_widths(self, "average_hidden_sizes")


@functools.lru_cache(maxsize=None)
def average_network(hidden_sizes: tuple[int, ...],
                    num_actions: int) -> hk.Transformed:
  """The average policy's network (one object per shape, so that code
  jitted on its `apply` compiles once)."""
  return hk.without_apply_rng(hk.transform(
      lambda x: layers.MLP(hidden_sizes, num_actions, name="average")(x)))


class Pending(NamedTuple):
  """Each player's last decision in each game, until its transition closes
  (leaves [B, 2, ...])."""
  observation: jax.Array
  mask: jax.Array
  action: jax.Array
  reward: jax.Array  # What the player received since that decision.
  valid: jax.Array


class State(NamedTuple):
  best_response: dqn.State
  average: training.TrainState
  reservoir: buffers.Buffer
  env: Any
  pending: Pending
  best_response_mode: jax.Array  # [B, 2] this game's mode per player.
  game_return: jax.Array  # [B, 2] each player's return so far this game.
  key: jax.Array


class StepMetrics(NamedTuple):
  episodes: jax.Array  # Games that ended.
  best_response_loss: jax.Array
  average_loss: jax.Array
  # Over the games that ended with one player in best-response mode and the
  # other playing its average policy: how many, and the best responder's
  # returns summed (their mean estimates the average policy's
  # exploitability).
  response_games: jax.Array
  response_return_sum: jax.Array


class NFSP:
  """NFSP's jitted self-play on one engine (see the module docstring)."""

  def __init__(self, config: Config, env: Any, batch: int):
    if not getattr(env, "auto_reset", False):
      raise ValueError(f"NFSP needs an engine made with auto_reset=True, got "
                       f"{getattr(env, 'name', env)}")
    if env.num_players != NUM_PLAYERS:
      raise ValueError(f"NFSP plays two-player games, got {env.num_players} "
                       "players")
    self.config = config
    self.env = env
    self.batch = batch
    self.best_response = dqn.DQN(config.best_response, env.observation_shape,
                                 env.num_actions, batch)
    self.average_network = average_network(config.average_hidden_sizes,
                                           env.num_actions)
    self.average_optimizer = optax.adam(config.average_learning_rate)
    self._average_update = training.make_update(self._average_loss,
                                                self.average_optimizer)
    self.run = jax.jit(self._run, static_argnums=1)

  def init(self, key: jax.Array) -> State:
    br_key, avg_key, env_key, mode_key, key = jax.random.split(key, 5)
    shape = self.env.observation_shape
    example = (jnp.zeros(shape, jnp.float32),
               jnp.zeros(self.env.num_actions, bool), jnp.int32(0))
    params = self.average_network.init(
        avg_key, jnp.zeros((1,) + shape, jnp.float32))
    pending = Pending(
        jnp.zeros((self.batch, NUM_PLAYERS) + shape, jnp.float32),
        jnp.zeros((self.batch, NUM_PLAYERS, self.env.num_actions), bool),
        jnp.zeros((self.batch, NUM_PLAYERS), jnp.int32),
        jnp.zeros((self.batch, NUM_PLAYERS)),
        jnp.zeros((self.batch, NUM_PLAYERS), bool))
    return State(
        self.best_response.init(br_key),
        training.init_train_state(params, {}, self.average_optimizer),
        buffers.init(example, self.config.reservoir_capacity),
        self.env.init(jax.random.split(env_key, self.batch)), pending,
        self._draw_modes(mode_key), jnp.zeros((self.batch, NUM_PLAYERS)),
        key)

  def average_policy(self, state: State) -> learner_lib.LearnedPolicy:
    return learner_lib.LearnedPolicy(self.average_network.apply,
                                     state.average.params)

  def _draw_modes(self, key: jax.Array) -> jax.Array:
    return jax.random.bernoulli(key, self.config.anticipatory,
                                (self.batch, NUM_PLAYERS))

  def _average_loss(self, params, net_state, batch):
    observation, mask, action = batch
    log_probabilities = masking.masked_log_softmax(
        self.average_network.apply(params, observation), mask)
    loss = -jnp.take_along_axis(log_probabilities, action[:, None], -1).mean()
    return loss, (net_state, loss)

  def _train_average(self, average: training.TrainState,
                     reservoir: buffers.Buffer,
                     key: jax.Array) -> tuple[training.TrainState, jax.Array]:
    def one_update(average, update_key):
      batch = buffers.sample(reservoir, update_key,
                             self.config.average_batch_size)
      return self._average_update(average, batch)

    average, losses = jax.lax.scan(
        one_update, average,
        jax.random.split(key, self.config.average_updates_per_train))
    return average, losses.mean()

  def _act(self, state: State, observation, mask, player, key):
    br_key, avg_key = jax.random.split(key)
    rows = jnp.arange(self.batch)
    best = self.best_response.act(state.best_response, observation, mask,
                                  br_key)
    average = masking.masked_sample(
        avg_key, self.average_network.apply(state.average.params,
                                            observation), mask)
    in_br_mode = state.best_response_mode[rows, player]
    return jnp.where(in_br_mode, best, average), in_br_mode

  def _step(self, state: State, _) -> tuple[State, StepMetrics]:
    key, act_key, reservoir_key, mode_key, br_key, avg_key = (
        jax.random.split(state.key, 6))
    env, pending = state.env, state.pending
    rows = jnp.arange(self.batch)
    player = env.current_player
    observation = env.observation[rows, player]
    mask = env.legal_action_mask
    actions, in_br_mode = self._act(state, observation, mask, player,
                                    act_key)
    reservoir = buffers.reservoir_add(state.reservoir,
                                      (observation, mask, actions),
                                      in_br_mode, reservoir_key)
    mine = jax.tree.map(lambda x: x[rows, player], pending)
    continuing = learner_lib.Transition(
        mine.observation, mine.mask, mine.action, mine.reward,
        jnp.zeros(self.batch), observation, mask)
    pending = jax.tree.map(
        lambda x, new: x.at[rows, player].set(new), pending,
        Pending(observation, mask, actions, jnp.zeros(self.batch),
                jnp.ones(self.batch, bool)))
    env = self.env.step(env, actions)
    pending = pending._replace(reward=pending.reward + env.rewards)
    done = env.terminated
    game_return = state.game_return + env.rewards
    responding = (done[:, None] & state.best_response_mode &
                  ~state.best_response_mode[:, ::-1])
    endings = [learner_lib.Transition(
        pending.observation[:, p], pending.mask[:, p], pending.action[:, p],
        pending.reward[:, p], jnp.ones(self.batch),
        jnp.zeros_like(observation), jnp.zeros_like(mask))
               for p in range(NUM_PLAYERS)]
    transitions = jax.tree.map(lambda *x: jnp.concatenate(x),
                               continuing, *endings)
    valid = jnp.concatenate([mine.valid] + [pending.valid[:, p] & done
                                            for p in range(NUM_PLAYERS)])
    best_response, br_metrics = self.best_response.learn(
        state.best_response, transitions, valid, br_key)
    due = (reservoir.size >= max(self.config.best_response.learning_starts,
                                 1)) & (best_response.env_steps %
                                        self.config.best_response.train_every
                                        == 0)
    idle = jnp.float32(learner_lib.NOT_TRAINED)
    average, average_loss = jax.lax.cond(
        due, self._train_average, lambda a, r, k: (a, idle), state.average,
        reservoir, avg_key)
    pending = pending._replace(valid=pending.valid & ~done[:, None])
    modes = jnp.where(done[:, None], self._draw_modes(mode_key),
                      state.best_response_mode)
    return (State(best_response, average, reservoir, env, pending, modes,
                  jnp.where(done[:, None], 0.0, game_return), key),
            StepMetrics(done.sum(), br_metrics["loss"], average_loss,
                        responding.sum(),
                        jnp.where(responding, game_return, 0.0).sum()))

  def _run(self, state: State, steps: int) -> tuple[State, StepMetrics]:
    state, metrics = jax.lax.scan(self._step, state, None, length=steps)
    return state, StepMetrics(metrics.episodes.sum(),
                              jnp.nanmean(metrics.best_response_loss),
                              jnp.nanmean(metrics.average_loss),
                              metrics.response_games.sum(),
                              metrics.response_return_sum.sum())


@checkpoints.reads_former_tuples()
@dataclasses.dataclass(frozen=True)
class LogEntry:
  step: int  # Batched steps so far.
  episodes: int  # Games finished so far.
  wall_time: float  # Seconds of training so far (evaluations not counted).
  exploitability: Optional[float]  # Of the average policy, if evaluated.
  best_response_loss: float
  average_loss: float
  # The best response's mean return against the average policy in this
  # stretch's games (see StepMetrics); NaN if there were none.
  response_return: float


def state_bytes(env: Any, config: Config, num_envs: int) -> int:
  """A lower bound of the bytes `train_nfsp` allocates: its state (the
  networks, the buffers, `num_envs` games in progress), as `jax.eval_shape`
  sizes it without allocating."""
  return memory.tree_bytes(jax.eval_shape(NFSP(config, env, num_envs).init,
                                          jax.random.PRNGKey(0)))


def train_nfsp(env: Any, config: Config, *, steps: int, num_envs: int = 64,
               eval_every: Optional[int] = None, seed: int = 0,
               exploitability: Optional[Callable[[learner_lib.LearnedPolicy],
                                                 float]] = None,
               checkpoint_path: Optional[str] = None,
               on_entry: Optional[Callable[[LogEntry], None]] = None,
               stop: Optional[Callable[[list[LogEntry]], bool]] = None
              ) -> tuple[learner_lib.LearnedPolicy, list[LogEntry]]:
  """Runs NFSP for `steps` batched steps of `num_envs` games.

  Args:
    env: a two-player JAX engine made with `auto_reset=True`.
    config: NFSP's settings.
    steps: batched steps (each moves one player in every game).
    num_envs: games played at once.
    eval_every: steps between log entries (evaluations, checkpoints); a
      tenth of the run by default.
    seed: the run's seed.
    exploitability: the average policy's exploitability; by default exact
      (`evaluation.exploitability_of`) where the game's tree fits, else (or
      for an engine whose `game` is None: a restricted game) none.
    checkpoint_path: where to checkpoint; an existing checkpoint of the same
      settings is resumed.
    on_entry: called with each log entry as it is made.
    stop: called with the log after each entry; True ends the run early.

  Returns:
    (the average policy, the log).
  """
  run_config = learner_lib.RunConfig(steps, num_envs,
                                     eval_every or max(steps // 10, 1), seed)
  if exploitability is None and env.game is not None:
    exploitability = evaluation.exploitability_of(env.game)
  nfsp = NFSP(config, env, num_envs)

  def make_entry(state, step, metrics, wall_time, log):
    return LogEntry(
        step, (log[-1].episodes if log else 0) + int(metrics.episodes),
        wall_time,
        exploitability(nfsp.average_policy(state)) if exploitability else None,
        float(metrics.best_response_loss), float(metrics.average_loss),
        float(metrics.response_return_sum) / int(metrics.response_games)
        if int(metrics.response_games) else float("nan"))

  state, log = learner_lib.run_in_chunks(
      nfsp.init(jax.random.PRNGKey(seed)), nfsp.run, make_entry, steps,
      run_config.eval_every,
      run_config.as_record(config, game=learner_lib.env_name(env)),
      checkpoint_path,
      on_entry, stop)
  return nfsp.average_policy(state), log
