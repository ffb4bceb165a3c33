"""Deep approximate value iteration (DAVI): DeepCubeA's cost-to-go training.

Each iteration draws a batch of states scrambled a uniform 1..K reverse moves
from the goal, computes the one-step lookahead targets

    y(s) = min_a [1 + J_target(next(s, a))],  J_target(goal) = 0, y(goal) = 0,

and takes one Adam step on the mean squared error of J_θ(s) against y. Every
C iterations, if the mean loss since the last check is below ε, θ is copied
into the target network. Until the first copy J_target is 0 everywhere, so
the iterations start from value iteration's J_0 = 0 rather than from a
random network's outputs. Data generation, targets and the updates are one
jitted call on the batched engine, so the whole loop runs on the
accelerator; one call scrambles `generation_batches` batches at once and
trains on them in turn, which spreads the K sequential scramble moves over
several iterations.

`train` runs that loop with progress output, periodic greedy-policy
evaluation per scramble depth (the paper's training curves, plotted to
PNG), checkpoints every few minutes that resume exactly, and exports the
network as a model file that `CostToGo.load` reads.
"""

import dataclasses
import math
import os
from typing import Any, Callable, Optional

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import optax

from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.algorithms.nn import layers
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.algorithms.nn import weights
from open_spiel_ext.games.puzzles import single_player
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import memory
from open_spiel_ext.utils import mirror

SCRAMBLES = ("walk", "distinct")
CHECKPOINT = "checkpoint.pkl"
MODEL = "model.npz"
METRICS = "metrics.jsonl"
MODEL_KIND = "DeepCubeA model"  # Its weights files' kind (nn/weights.py).
# The free-label trainers' models (free_labels.py), whose "distance" networks
# DAVI can start from.
FREE_LABEL_MODEL_KIND = "free-label puzzle model"
PLOT = "training.png"


@dataclasses.dataclass(frozen=True)
class Config:
  """What determines a training run's results.

  Attributes:
    puzzle: the game's short name, one of `puzzles.PUZZLES` (the
      puzzles with a batched engine by size).
    size: the puzzle's size parameter.
    max_scramble: K, training states are 1..K reverse moves from the goal.
    batch_size: states per iteration.
    hidden_sizes: dense layers before the residual blocks.
    num_blocks: residual blocks of width hidden_sizes[-1].
    batch_norm: batch norm after each dense layer.
    learning_rate: Adam's step size.
    lr_decay: the step size is multiplied by this every iteration.
    loss_threshold: ε, the target network is updated only below this loss.
    check_every: C, iterations between target-update checks.
    generation_batches: iterations whose states one scramble call draws
      (C must be a multiple of it).
    scramble: "walk", DeepCubeA's: uniformly random legal reverse moves,
      repeats allowed (on Lights Out, where presses commute and undo
      themselves, K presses then lie fewer than K from the goal); or
      "distinct": no move twice in one scramble (K at most the number of
      moves; on Lights Out K presses then lie exactly K from the goal).
    seed: the run's random seed.
  """
  puzzle: str
  size: int
  max_scramble: int = 500
  batch_size: int = 10000
  hidden_sizes: tuple[int, ...] = (1000, 300)
  num_blocks: int = 2
  batch_norm: bool = True
  learning_rate: float = 1e-3
  lr_decay: float = 1.0
  loss_threshold: float = 0.05
  check_every: int = 1000
  generation_batches: int = 1
  scramble: str = "walk"
  seed: int = 0

  def validate(self) -> None:
    """Raises ValueError naming the first bad setting."""
    puzzles.make_engine(self.puzzle, self.size)
    check_network(self.hidden_sizes, self.num_blocks)
    positive = {"max_scramble": self.max_scramble,
                "batch_size": self.batch_size, "check_every": self.check_every,
                "generation_batches": self.generation_batches,
                "learning_rate": self.learning_rate,
                "loss_threshold": self.loss_threshold}
    for name, value in positive.items():
      if value <= 0:
        raise ValueError(f"{name} must be positive, got {name}={value}")
    if self.check_every % self.generation_batches:
      raise ValueError(
          f"check_every must be a multiple of generation_batches, got "
          f"check_every={self.check_every}, "
          f"generation_batches={self.generation_batches}")
    if self.scramble not in SCRAMBLES:
      raise ValueError(f"scramble must be one of {SCRAMBLES}, got "
                       f"scramble={self.scramble!r}")
    moves = puzzles.make_engine(self.puzzle, self.size).num_actions
    if self.scramble == "distinct" and self.max_scramble > moves:
      raise ValueError(f"scramble='distinct' takes each of the {moves} moves "
                       f"once at most, got max_scramble={self.max_scramble}")
    if not 0 < self.lr_decay <= 1:
      raise ValueError(f"lr_decay must be in (0, 1], got "
                       f"lr_decay={self.lr_decay}")


def check_network(hidden_sizes: tuple[int, ...], num_blocks: int) -> None:
  """Raises ValueError unless the layer widths are at least 1 (one layer at
  least) and the residual blocks at least 0."""
  if not hidden_sizes or min(hidden_sizes) < 1 or num_blocks < 0:
    raise ValueError(f"need hidden_sizes >= 1 and num_blocks >= 0, got "
                     f"hidden_sizes={list(hidden_sizes)}, "
                     f"num_blocks={num_blocks}")


def cost_to_go_network(config: Config) -> hk.TransformedWithState:
  """J(encoded states [B, ...], is_training) -> [B] estimated moves to go."""

  def forward(encoded: jax.Array, is_training: bool) -> jax.Array:
    network = layers.ResidualMLP(config.hidden_sizes, config.num_blocks, 1,
                             config.batch_norm, name="cost_to_go")
    return network(encoded, is_training)[:, 0]

  return hk.transform_with_state(forward)


def bellman_targets(child_values: jax.Array, child_is_goal: jax.Array,
                    legal: jax.Array, state_is_goal: jax.Array) -> jax.Array:
  """y = min over legal a of 1 + J(child), with J(goal) = 0, and y(goal) = 0.

  Args:
    child_values: [B, A] target-network estimates of the children.
    child_is_goal: [B, A] which children are goals.
    legal: [B, A] which moves are legal.
    state_is_goal: [B] which states are goals.
  """
  costs = 1.0 + jnp.where(child_is_goal, 0.0, child_values)
  return jnp.where(state_is_goal, 0.0, -masking.masked_max(-costs, legal))


def should_update_target(iteration: int, mean_loss: float, check_every: int,
                         loss_threshold: float) -> bool:
  """Whether θ is copied to the target after `iteration` iterations done."""
  return iteration % check_every == 0 and mean_loss < loss_threshold


def scramble(engine: Any, key: jax.Array, depths: jax.Array,
             max_depth: int, distinct: bool = False) -> jax.Array:
  """States `depths[i]` uniformly random reverse moves from the goal (with
  `distinct`, no move twice in one walk).

  A reverse move that leaves the state unchanged (off the tray, a blocked
  pull) is not taken.
  """
  start = jnp.broadcast_to(engine.goal, (depths.shape[0],) + engine.goal.shape)

  def reverse_moves(states):
    children = engine.prev_states(states)
    return children, jnp.any(children != states[:, None], axis=-1)

  if not distinct:
    return single_player.random_walk(key, start, max_depth, reverse_moves,
                                     depths)

  def move(i, carry):
    states, used = carry
    children, legal = reverse_moves(states)
    legal &= ~used
    noise = jax.random.uniform(jax.random.fold_in(key, i), legal.shape)
    actions = jnp.argmax(jnp.where(legal, noise, -1.0), axis=1)
    moving = (i < depths) & jnp.any(legal, axis=1)
    states = jnp.where(moving[:, None],
                       single_player.chosen_children(children, actions),
                       states)
    return states, used | (moving[:, None] & jax.nn.one_hot(
        actions, legal.shape[1], dtype=bool))

  used = jnp.zeros((depths.shape[0], engine.num_actions), bool)
  return jax.lax.fori_loop(0, max_depth, move, (start, used))[0]


class Davi:
  """The jitted pieces of DAVI for one configuration."""

  def __init__(self, config: Config):
    config.validate()
    self.config = config
    self.engine = puzzles.make_engine(config.puzzle, config.size)
    self.network = cost_to_go_network(config)
    schedule = optax.exponential_decay(config.learning_rate, 1,
                                       config.lr_decay)
    self.optimizer = optax.adam(schedule)
    self._update = training.make_update(self._loss, self.optimizer)
    self.train_step = jax.jit(self._train_step)
    # One Adam step of J toward given targets rather than Bellman ones:
    # with exact distances, the ceiling of what the network can learn.
    self.regress = jax.jit(lambda train_state, states, targets: self._update(
        train_state, self.engine.encode(states), targets))
    self.cost_to_go = jax.jit(self._cost_to_go)
    self.evaluate = jax.jit(self._evaluate, static_argnums=(3, 4))

  def training_states(self, key: jax.Array, batch: int) -> jax.Array:
    """States scrambled a uniform 1..K reverse moves from the goal."""
    depth_key, walk_key = jax.random.split(key)
    k = self.config.max_scramble
    depths = jax.random.randint(depth_key, (batch,), 1, k + 1)
    return scramble(self.engine, walk_key, depths, k,
                    self.config.scramble == "distinct")

  def keys(self) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The run's keys for initialisation, training and evaluation.

    Iteration i uses fold_in(training key, i), so a resumed run draws what an
    uninterrupted one would.
    """
    return tuple(jax.random.split(jax.random.PRNGKey(self.config.seed), 3))

  def init(self) -> training.TrainState:
    """Fresh networks; batch-norm averages start at a batch of real states."""
    init_key = self.keys()[0]
    states = jax.jit(self.training_states, static_argnums=1)(
        init_key, min(self.config.batch_size, 1000))
    params, net_state = self.network.init(init_key,
                                          self.engine.encode(states), True)
    return training.init_train_state(params, net_state, self.optimizer,
                                     with_target=True)

  def training_bytes(self) -> int:
    """A lower bound of the bytes training allocates: the training state
    (θ, the target, Adam's moments), one call's generated states and a
    batch's encoding (the network's input), as `jax.eval_shape` sizes them
    without allocating; the step's activations, not counted, take tens of
    times more."""
    size = self.config.batch_size

    def allocated(key):
      states = self.training_states(key,
                                    self.config.generation_batches * size)
      return self.init(), states, self.engine.encode(states[:size])

    return memory.tree_bytes(jax.eval_shape(allocated,
                                            jax.random.PRNGKey(0)))

  def from_model(self, path: str) -> training.TrainState:
    """θ and the target from a model file of the same network (a DAVI model,
    or a free-label "distance" model, whose network is this one); fresh
    Adam."""
    params, net_state, meta = weights.load_with_state(
        path, (MODEL_KIND, FREE_LABEL_MODEL_KIND))
    theirs = dict(meta.get("config", {}))
    if theirs.get("target", "distance") != "distance":
      raise ValueError(f"model {path} predicts {theirs['target']!r}, not a "
                       "distance: only a distance network can start DAVI")
    theirs["hidden_sizes"] = tuple(theirs.get("hidden_sizes", ()))
    mine = dataclasses.asdict(self.config)
    network_fields = ("puzzle", "size", "hidden_sizes", "num_blocks",
                      "batch_norm")
    if any(mine[f] != theirs.get(f) for f in network_fields):
      raise ValueError(
          f"model {path} has network "
          f"{ {f: theirs.get(f) for f in network_fields} }, this run "
          f"{ {f: mine[f] for f in network_fields} }")
    params, net_state = jax.tree.map(jnp.asarray, (params, net_state))
    return training.copy_to_target(training.init_train_state(
        params, net_state, self.optimizer, with_target=True))

  def _cost_to_go(self, params: hk.Params, net_state: hk.State,
                  states: jax.Array) -> jax.Array:
    """J(states) in evaluation mode, 0 at goals."""
    values, _ = self.network.apply(params, net_state, None,
                                   self.engine.encode(states), False)
    return jnp.where(self.engine.is_goal(states), 0.0, values)

  def targets(self, train_state: training.TrainState,
              states: jax.Array) -> jax.Array:
    """The Bellman targets of `states` under the target network."""
    children = self.engine.next_states(states)
    batch, actions = children.shape[:2]
    flat = children.reshape((batch * actions,) + children.shape[2:])
    values, _ = self.network.apply(train_state.target_params,
                                   train_state.target_net_state, None,
                                   self.engine.encode(flat), False)
    values = jnp.where(training.has_target(train_state), values, 0.0)
    return bellman_targets(
        values.reshape(batch, actions),
        self.engine.is_goal(flat).reshape(batch, actions),
        self.engine.legal_mask(states), self.engine.is_goal(states))

  def _train_step(self, train_state: training.TrainState,
                  key: jax.Array) -> tuple[training.TrainState, jax.Array]:
    """`generation_batches` DAVI iterations on one call's fresh states.

    Returns the new state and each iteration's loss.
    """
    batches, size = self.config.generation_batches, self.config.batch_size
    states = self.training_states(key, batches * size)
    return jax.lax.scan(self._iteration, train_state,
                        states.reshape((batches, size) + states.shape[1:]))

  def _iteration(self, train_state: training.TrainState,
                 states: jax.Array) -> tuple[training.TrainState, jax.Array]:
    """One DAVI iteration: targets and one Adam step on a batch."""
    return self._update(train_state, self.engine.encode(states),
                        self.targets(train_state, states))

  def _loss(self, params: hk.Params, net_state: hk.State, encoded: jax.Array,
            targets: jax.Array) -> tuple[jax.Array,
                                         tuple[hk.State, jax.Array]]:
    """The mean squared error of J against the Bellman targets (also the
    auxiliary output)."""
    values, net_state = self.network.apply(params, net_state, None, encoded,
                                           True)
    loss = jnp.mean((values - targets)**2)
    return loss, (net_state, loss)

  def _greedy_solved(self, params: hk.Params, net_state: hk.State,
                     states: jax.Array, steps: int) -> jax.Array:
    """Which states the greedy policy argmin_a 1 + J(child) solves."""

    def move(_, states):
      children = self.engine.next_states(states)
      batch, actions = children.shape[:2]
      flat = children.reshape((batch * actions,) + children.shape[2:])
      values = 1.0 + self._cost_to_go(params, net_state, flat).reshape(
          batch, actions)
      best = masking.masked_argmax(-values, self.engine.legal_mask(states))
      chosen = single_player.chosen_children(children, best)
      return jnp.where(self.engine.is_goal(states)[:, None], states, chosen)

    return self.engine.is_goal(jax.lax.fori_loop(0, steps, move, states))

  def _evaluate(self, params: hk.Params, net_state: hk.State, key: jax.Array,
                depths: tuple[int, ...],
                per_depth: int) -> tuple[jax.Array, jax.Array]:
    """Greedy solve rate and mean J of `per_depth` states at each depth."""
    k = self.config.max_scramble
    depth_of = jnp.repeat(jnp.asarray(depths), per_depth)
    states = scramble(self.engine, key, depth_of, k,
                      self.config.scramble == "distinct")
    solved = self._greedy_solved(params, net_state, states, greedy_steps(k))
    values = self._cost_to_go(params, net_state, states)
    return (solved.reshape(len(depths), per_depth).mean(axis=1),
            values.reshape(len(depths), per_depth).mean(axis=1))


def greedy_steps(max_scramble: int) -> int:
  """The greedy policy's move limit in evaluations: 2K, at most 200."""
  return min(2 * max_scramble, 200)


def eval_depths(max_scramble: int, count: int) -> tuple[int, ...]:
  """`count` scramble depths spread over 1..K."""
  return tuple(sorted({int(round(d)) for d in
                       np.linspace(1, max_scramble, count)}))


@dataclasses.dataclass
class RunConfig:
  """How a run is carried out; none of it changes the trained network.

  Attributes:
    iterations: stop after this many iterations in all (resumed ones too).
    output_dir: checkpoint, model, metrics and plot go here.
    max_seconds: also stop after this long (this process's share).
    max_training_seconds: also stop once the run's training time (resumed
      sessions included) reaches this: a budget that survives restarts.
    checkpoint_seconds: wall time between checkpoints.
    log_every: iterations between progress lines.
    eval_every: iterations between greedy-policy evaluations (0: never).
    eval_depths: scramble depths evaluated (spread over 1..K).
    eval_states: states per evaluated depth.
    model_dtype: precision of the exported model's weights.
    init_model: a model.npz whose network starts a fresh run (fine-tuning:
      its weights become θ and the target, Adam starts afresh).
    mirror_dir: if set, each checkpoint also exports the model and copies
      it with the metrics and plot there (for a machine whose disk goes
      away with it); a run whose output_dir holds no checkpoint resumes
      from the mirrored model, at its iteration and training seconds, with
      Adam (and so the step-size decay) afresh, as `init_model` starts.
  """
  iterations: int
  output_dir: str
  max_seconds: float = math.inf
  max_training_seconds: float = math.inf
  checkpoint_seconds: float = 300.0
  log_every: int = 100
  eval_every: int = 1000
  eval_depths: int = 10
  eval_states: int = 100
  model_dtype: str = "float32"
  init_model: str = ""
  mirror_dir: str = ""


@dataclasses.dataclass
class Progress:
  """Where a run stands (what `train` returns); saved with the checkpoint.

  Attributes:
    iteration: iterations done.
    target_updates: copies of θ into the target network so far.
    window_losses: the losses since the last target-update check.
    seconds: training time so far (resumed runs included).
    started_from: the file name of the model a fine-tuning run started from
      (`RunConfig.init_model`; empty for a fresh network).
    started_from_seconds: the training time behind that model.
  """
  iteration: int = 0
  target_updates: int = 0
  window_losses: list[float] = dataclasses.field(default_factory=list)
  seconds: float = 0.0
  started_from: str = ""
  started_from_seconds: float = 0.0


def save_checkpoint(path: str, config: Config,
                    train_state: training.TrainState,
                    progress: Progress) -> None:
  """Writes everything a run needs to resume, atomically."""
  checkpoints.save(path, train_state, config, key=Davi(config).keys()[1],
                   step=progress.iteration,
                   extra={"progress": dataclasses.asdict(progress)})


def load_checkpoint(path: str, config: Config
                   ) -> tuple[training.TrainState, Progress]:
  """A run's saved state; refuses one made with another configuration."""
  saved = checkpoints.restore(path, config)
  return saved.tree, Progress(**saved.extra["progress"])


def export_model(path: str, config: Config,
                 train_state: training.TrainState, info: dict[str, Any],
                 dtype: str = "float32") -> None:
  """Writes the network (weights, batch-norm averages, config) as one
  weights file (`nn/weights.py`)."""
  weights.save(path, train_state.params,
               {"config": dataclasses.asdict(config), **info}, dtype=dtype,
               state=train_state.net_state, kind=MODEL_KIND)


class CostToGo:
  """A trained cost-to-go network as a batch heuristic for search."""

  def __init__(self, config: Config, params: hk.Params,
               net_state: hk.State, info: Optional[dict[str, Any]] = None):
    self.config = config
    self.info = info or {}
    self.davi = Davi(config)
    self.engine = self.davi.engine
    self._params, self._net_state = params, net_state

  @classmethod
  def load(cls, path: str) -> "CostToGo":
    """Reads a model written by `export_model`."""
    params, net_state, meta = weights.load_with_state(path, MODEL_KIND)
    config_fields = meta.pop("config")
    config_fields["hidden_sizes"] = tuple(config_fields["hidden_sizes"])
    params, net_state = jax.tree.map(jnp.asarray, (params, net_state))
    return cls(Config(**config_fields), params, net_state, meta)

  def network_weights(self) -> tuple[hk.Params, hk.State]:
    return self._params, self._net_state

  def __call__(self, states: np.ndarray) -> np.ndarray:
    """[B, D] states -> [B] estimated moves to the goal (0 at goals)."""
    return np.asarray(self.davi.cost_to_go(self._params, self._net_state,
                                           jnp.asarray(states)))


def train(config: Config, run_config: RunConfig,
          log: Callable[[str], None] = print
         ) -> tuple[training.TrainState, Progress]:
  """Runs (or resumes) DAVI until `run_config.iterations` or its time limit."""
  # Imported here: reporting pulls in matplotlib.
  from open_spiel_ext.utils import reporting  # pylint: disable=g-import-not-at-top
  os.makedirs(run_config.output_dir, exist_ok=True)
  checkpoint_path = os.path.join(run_config.output_dir, CHECKPOINT)
  davi = Davi(config)
  mirrored = os.path.join(run_config.mirror_dir, MODEL)
  if os.path.exists(checkpoint_path):
    train_state, progress = load_checkpoint(checkpoint_path, config)
    log(f"resumed from {checkpoint_path} at iteration {progress.iteration}")
  elif run_config.mirror_dir and os.path.exists(mirrored):
    train_state, progress = _from_mirror(davi, mirrored, run_config)
    log(f"resumed from the model mirrored in {run_config.mirror_dir} at "
        f"iteration {progress.iteration} (Adam afresh)")
  elif run_config.init_model:
    train_state = davi.from_model(run_config.init_model)
    progress = Progress(**_started_from(run_config.init_model))
    log(f"started from the network in {run_config.init_model}")
  else:
    train_state, progress = davi.init(), Progress()
  metrics_path = os.path.join(run_config.output_dir, METRICS)
  metrics = reporting.resumed_metrics(metrics_path, progress.iteration)
  _, train_key, eval_key = davi.keys()
  window = [np.asarray(progress.window_losses, np.float32)]
  step = config.generation_batches

  def train_step(clock: checkpoints.TrainingClock) -> int:
    nonlocal train_state, window
    # Waiting for each step keeps the clock, the checkpoints and Ctrl-C to
    # one step: JAX's asynchronous dispatch would queue up to check_every
    # iterations ahead (a Ctrl-C on the cube waited minutes for them).
    train_state, losses = jax.block_until_ready(davi.train_step(
        train_state, jax.random.fold_in(train_key, progress.iteration)))
    progress.iteration += step
    window.append(losses)
    if progress.iteration % config.check_every == 0:
      mean_loss = float(np.mean(_as_floats(window)))
      window = []
      if should_update_target(progress.iteration, mean_loss,
                              config.check_every, config.loss_threshold):
        train_state = training.copy_to_target(train_state)
        progress.target_updates += 1
    if _crossed(progress.iteration, step, run_config.log_every):
      record = {"kind": "train", "iteration": progress.iteration,
                "loss": float(losses[-1]),
                "target_updates": progress.target_updates,
                "seconds": clock.training_seconds()}
      metrics.write(record)
      log(f"iteration {progress.iteration:7d}  loss {record['loss']:.4f}  "
          f"target updates {progress.target_updates:4d}  "
          f"{record['seconds']:8.1f} s")
    if _crossed(progress.iteration, step, run_config.eval_every):
      _evaluate_and_plot(davi, train_state, jax.random.fold_in(
          eval_key, progress.iteration), progress, run_config, metrics, log)
    return progress.iteration

  def save(training_seconds: float) -> None:
    progress.window_losses = _as_floats(window).tolist()
    progress.seconds = training_seconds
    save_checkpoint(checkpoint_path, config, train_state, progress)
    if run_config.mirror_dir:
      _export_and_mirror(config, train_state, progress, run_config)

  try:
    checkpoints.train_until(run_config, progress.iteration, progress.seconds,
                            train_step, save, log)
  finally:
    metrics.close()
  _export(config, train_state, progress, run_config)
  log(f"stopped at iteration {progress.iteration} after "
      f"{progress.seconds:.0f} s of training; wrote {CHECKPOINT}, {MODEL}, "
      f"{METRICS} and {PLOT} to {run_config.output_dir}")
  return train_state, progress


def _started_from(path: str) -> dict[str, Any]:
  """The Progress fields that name the model a run starts from: its file
  name and the training seconds behind it (its own start's included)."""
  info = weights.load_with_state(path, (MODEL_KIND, FREE_LABEL_MODEL_KIND))[2]
  return {"started_from": os.path.basename(path),
          "started_from_seconds": (info.get("training_seconds", 0.0) +
                                   info.get("started_from_seconds", 0.0))}


def _from_mirror(davi: Davi, path: str, run_config: RunConfig
                ) -> tuple[training.TrainState, Progress]:
  """The model mirrored at `path` as a run's start (Adam afresh), its
  progress from the model's info, its metrics copied into the run's
  folder."""
  info = CostToGo.load(path).info
  mirror.copy_files(run_config.mirror_dir, run_config.output_dir, (METRICS,))
  return davi.from_model(path), Progress(
      iteration=info["iterations"], target_updates=info["target_updates"],
      seconds=info["training_seconds"],
      started_from=info.get("started_from", ""),
      started_from_seconds=info.get("started_from_seconds", 0.0))


def _export(config: Config, train_state: training.TrainState,
            progress: Progress, run_config: RunConfig) -> None:
  """Writes the model and the training plot into the run's folder."""
  info = {"iterations": progress.iteration,
          "target_updates": progress.target_updates,
          "training_seconds": round(progress.seconds, 1),
          "hardware": jax.devices()[0].device_kind}
  if progress.started_from:
    info.update(started_from=progress.started_from,
                started_from_seconds=round(progress.started_from_seconds, 1))
  export_model(os.path.join(run_config.output_dir, MODEL), config, train_state,
               info, run_config.model_dtype)
  plot_training(os.path.join(run_config.output_dir, METRICS),
                os.path.join(run_config.output_dir, PLOT), config)


def _export_and_mirror(config: Config, train_state: training.TrainState,
                       progress: Progress, run_config: RunConfig) -> None:
  """Exports the model and copies it, the metrics and the plot into
  `run_config.mirror_dir`, each file replaced whole."""
  _export(config, train_state, progress, run_config)
  mirror.copy_files(run_config.output_dir, run_config.mirror_dir,
                    (MODEL, METRICS, PLOT))


def _as_floats(losses: list[Any]) -> np.ndarray:
  """The losses of a list of [iterations] arrays, on the host, in order."""
  return np.concatenate([np.zeros(0, np.float32)] +
                        [np.asarray(x, np.float32) for x in losses])


def _crossed(iteration: int, step: int, every: int) -> bool:
  """Whether the last `step` iterations passed a multiple of `every` (> 0)."""
  return every > 0 and iteration // every > (iteration - step) // every


def _evaluate_and_plot(davi: Davi, train_state: training.TrainState,
                       key: jax.Array, progress: Progress,
                       run_config: RunConfig, metrics: Any,
                       log: Callable[[str], None]) -> None:
  """Greedy solve rate and mean J per depth: recorded, printed, plotted."""
  depths = eval_depths(davi.config.max_scramble, run_config.eval_depths)
  solved, values = jax.device_get(
      davi.evaluate(train_state.params, train_state.net_state, key, depths,
                    run_config.eval_states))
  metrics.write({"kind": "eval", "iteration": progress.iteration,
                 "depths": list(depths), "solved": solved.tolist(),
                 "cost_to_go": values.tolist()})
  log(f"  greedy ({greedy_steps(davi.config.max_scramble)} moves) by "
      "scramble depth:")
  log("    " + "  ".join(f"{d:>5d}" for d in depths) + "   depth")
  log("    " + "  ".join(f"{100 * s:5.0f}" for s in solved) + "   % solved")
  log("    " + "  ".join(f"{v:5.1f}" for v in values) + "   mean J")
  plot_training(os.path.join(run_config.output_dir, METRICS),
                os.path.join(run_config.output_dir, PLOT), davi.config)


def plot_training(metrics_path: str, plot_path: str,
                  config: Config) -> None:
  """Loss and target updates; greedy solve rate and mean J by depth."""
  from open_spiel_ext.utils import reporting  # pylint: disable=g-import-not-at-top
  plt = reporting.plt
  records = reporting.read_json_lines(metrics_path)
  train_records = [r for r in records if r["kind"] == "train"]
  evals = [r for r in records if r["kind"] == "eval"]
  fig, axes = plt.subplots(1, 3, figsize=(17, 4.5))
  if train_records:
    axes[0].plot([r["iteration"] for r in train_records],
                 [r["loss"] for r in train_records], label="loss")
    axes[0].set_yscale("log")
    twin = axes[0].twinx()
    twin.plot([r["iteration"] for r in train_records],
              [r["target_updates"] for r in train_records], "C1",
              label="target updates")
    twin.set_ylabel("target updates")
  axes[0].set_xlabel("iteration")
  axes[0].set_ylabel("MSE loss")
  colours = plt.cm.viridis(np.linspace(0, 1, max(len(evals), 1)))
  for colour, record in zip(colours, evals):
    label = f"iteration {record['iteration']}"
    axes[1].plot(record["depths"], 100 * np.asarray(record["solved"]),
                 color=colour, marker=".", label=label)
    axes[2].plot(record["depths"], record["cost_to_go"], color=colour,
                 marker=".", label=label)
  axes[1].set_ylabel(f"% solved greedily ({greedy_steps(config.max_scramble)}"
                     " moves)")
  axes[2].set_ylabel("mean cost-to-go estimate")
  for axis in axes[1:]:
    axis.set_xlabel("scramble depth")
    axis.grid(True, alpha=0.3)
  if evals:
    axes[2].legend(fontsize=7)
  fig.suptitle(f"DAVI on {puzzles.model_name(config.puzzle, config.size)}")
  reporting.save_figure(fig, plot_path, dpi=100)
