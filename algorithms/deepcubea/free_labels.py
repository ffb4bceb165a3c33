"""Puzzle networks trained on labels that cost nothing: the random walk knows.

DAVI (`davi.py`) labels each state with a Bellman backup, one network call
on every child; on a CPU that labelling is most of the cost, and the labels
are only as good as the network. Here the random walk that makes a training
state also labels it, for free:

- "distance" (CayleyPy): regress the number of steps of a walk from the
  goal that never returns to a state of its last `history` steps (MSE);
- "last_move" (EfficientCube): predict the move that undoes the walk's last
  step, the first move of a way home (cross-entropy over the moves);
- "pressed" (EfficientCube's Lights Out): for walks that never take a move
  twice, predict the set of moves taken so far (one sigmoid per move). On
  Lights Out that set is the board's unique solution when the toggle matrix
  is invertible (7×7), so every step of the walk teaches the whole answer.

Each iteration walks `walks` fresh walks of `walk_length` steps from the
goal in one jitted call and trains on every state along them (no stored
data set), one Adam step. `train` runs that loop with a progress line,
periodic greedy solve rates by walk depth (plotted to PNG), checkpoints
that resume exactly, and exports a model file that `Model.load` reads and
`beam.py` searches with. A "distance" network is DAVI's cost-to-go network
(same layers, same names), so DAVI can start from it (`davi.RunConfig
.init_model`).
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

from open_spiel_ext.algorithms.deepcubea import davi
from open_spiel_ext.algorithms.deepcubea import puzzles
from open_spiel_ext.algorithms.nn import layers
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.algorithms.nn import weights
from open_spiel_ext.games.puzzles import single_player
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import memory
from open_spiel_ext.utils import mirror

DISTANCE, LAST_MOVE, PRESSED = "distance", "last_move", "pressed"
TARGETS = (DISTANCE, LAST_MOVE, PRESSED)
POLICY_TARGETS = (LAST_MOVE, PRESSED)
MODEL_KIND = davi.FREE_LABEL_MODEL_KIND
CHECKPOINT = "checkpoint.pkl"
MODEL = "model.npz"
METRICS = "metrics.jsonl"
PLOT = "training.png"
CHUNK = 16384  # States a network call evaluates at once in a search.


@dataclasses.dataclass(frozen=True)
class Config:
  """What determines a training run's results.

  Attributes:
    puzzle: the game's short name, one of `puzzles.PUZZLES` (the
      puzzles with a batched engine by size).
    size: the puzzle's size parameter.
    target: "distance", "last_move" or "pressed" (see the module docstring).
    walk_length: steps of each walk; its states are 1..walk_length steps
      from the goal.
    walks: walks per iteration (an iteration trains on walks·walk_length
      states).
    distinct: walks never take the same move twice (required by
      "pressed"; walk_length at most the number of moves).
    history: a walk never steps onto any of the last `history` states it
      visited (the state it is on included): 1 forbids undoing the last
      move, 4 also a cube face turned a fourth time or two commuting moves
      undone.
    hidden_sizes: dense layers before the residual blocks.
    num_blocks: residual blocks of width hidden_sizes[-1].
    batch_norm: batch norm after each dense layer.
    learning_rate: Adam's step size.
    lr_decay: the step size is multiplied by this every iteration.
    seed: the run's random seed.
  """
  puzzle: str
  size: int
  target: str = LAST_MOVE
  walk_length: int = 26
  walks: int = 400
  distinct: bool = False
  history: int = 4
  hidden_sizes: tuple[int, ...] = (1024, 256)
  num_blocks: int = 1
  batch_norm: bool = True
  learning_rate: float = 1e-3
  lr_decay: float = 1.0
  seed: int = 0

  def validate(self) -> None:
    """Raises ValueError naming the first bad setting."""
    engine = puzzles.make_engine(self.puzzle, self.size)
    if self.target not in TARGETS:
      raise ValueError(f"target must be one of {TARGETS}, got "
                       f"target={self.target!r}")
    positive = {"walk_length": self.walk_length, "walks": self.walks,
                "learning_rate": self.learning_rate}
    for name, value in positive.items():
      if value <= 0:
        raise ValueError(f"{name} must be positive, got {name}={value}")
    if self.history < 0:
      raise ValueError(f"history must be >= 0, got history={self.history}")
    if self.target == PRESSED and not self.distinct:
      raise ValueError("target='pressed' needs walks that never repeat a "
                       "move: set distinct=True")
    if self.distinct and self.walk_length > engine.num_actions:
      raise ValueError(f"distinct walks take each of the {engine.num_actions}"
                       f" moves once at most, got walk_length="
                       f"{self.walk_length}")
    if not 0 < self.lr_decay <= 1:
      raise ValueError(f"lr_decay must be in (0, 1], got "
                       f"lr_decay={self.lr_decay}")
    davi.check_network(self.hidden_sizes, self.num_blocks)

  @property
  def batch_size(self) -> int:
    """States an iteration trains on."""
    return self.walks * self.walk_length



def network(config: Config, num_actions: int) -> hk.TransformedWithState:
  """(encoded states [B, ...], is_training) -> [B] distances, or [B, A]
  logits of the last move or of each move's having been taken."""
  if config.target == DISTANCE:  # DAVI's network, so DAVI can start from it.
    return davi.cost_to_go_network(davi.Config(
        puzzle=config.puzzle, size=config.size,
        hidden_sizes=config.hidden_sizes, num_blocks=config.num_blocks,
        batch_norm=config.batch_norm))

  def forward(encoded: jax.Array, is_training: bool) -> jax.Array:
    return layers.ResidualMLP(config.hidden_sizes, config.num_blocks,
                              num_actions, config.batch_norm,
                              name="move_logits")(encoded, is_training)

  return hk.transform_with_state(forward)


def walks(engine: Any, key: jax.Array, count: int, length: int,
          distinct: bool, history: int) -> tuple[jax.Array, jax.Array]:
  """`count` random walks of `length` reverse moves from the goal.

  Each step takes a uniformly random reverse move that changes the state,
  does not return to any of the last `history` states (nor, if `distinct`,
  repeats a move of the walk); where none is left it takes any move that
  changes the state (or stays, if none does).

  Returns:
    states [length, count, D]: the state after each step;
    moves [length, count]: the reverse move of each step, which is also the
      forward move that undoes it (`prev_states(s)[:, m]` is the state that
      move m takes to s; stays are -1).
  """
  start = jnp.broadcast_to(engine.goal, (count,) + engine.goal.shape)
  recent = jnp.broadcast_to(start[None], (max(history, 1),) + start.shape)
  used = jnp.zeros((count, engine.num_actions), bool)

  def step(carry, step_key):
    states, recent, used = carry
    children = engine.prev_states(states)
    changes = jnp.any(children != states[:, None], axis=-1)
    allowed = changes
    if history:
      revisits = jnp.any(jnp.all(children[:, :, None] == jnp.moveaxis(
          recent, 0, 1)[:, None], axis=-1), axis=-1)
      allowed &= ~revisits
    if distinct:
      allowed &= ~used
    allowed = jnp.where(jnp.any(allowed, axis=1, keepdims=True), allowed,
                        changes)
    noise = jax.random.uniform(step_key, allowed.shape)
    moves = jnp.argmax(jnp.where(allowed, noise, -1.0), axis=1)
    moving = jnp.any(allowed, axis=1)
    states = jnp.where(moving[:, None],
                       single_player.chosen_children(children, moves), states)
    moves = jnp.where(moving, moves, -1)
    used |= jax.nn.one_hot(moves, engine.num_actions, dtype=bool)
    recent = jnp.concatenate([recent[1:], states[None]])
    return (states, recent, used), (states, moves)

  _, (states, moves) = jax.lax.scan(step, (start, recent, used),
                                    jax.random.split(key, length))
  return states, moves


class Trainer:
  """The jitted pieces of one configuration's training."""

  def __init__(self, config: Config):
    config.validate()
    self.config = config
    self.engine = puzzles.make_engine(config.puzzle, config.size)
    self.network = network(config, self.engine.num_actions)
    schedule = optax.exponential_decay(config.learning_rate, 1,
                                       config.lr_decay)
    self.optimizer = optax.adam(schedule)
    self._update = training.make_update(self._loss, self.optimizer)
    self.train_step = jax.jit(self._train_step)
    self.evaluate = jax.jit(self._evaluate, static_argnums=(3, 4))

  def keys(self) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The run's keys for initialisation, training and evaluation;
    iteration i uses fold_in(training key, i), so a resumed run draws what
    an uninterrupted one would."""
    return tuple(jax.random.split(jax.random.PRNGKey(self.config.seed), 3))

  def examples(self, key: jax.Array, walk_count: int
              ) -> tuple[jax.Array, jax.Array]:
    """Every state of `walk_count` walks, [N, D], and its label: the steps
    walked [N] (distance), the move that undoes the last step [N]
    (last_move), or the moves taken so far [N, A] (pressed)."""
    config = self.config
    states, moves = walks(self.engine, key, walk_count, config.walk_length,
                          config.distinct, config.history)
    flat = states.reshape((-1,) + states.shape[2:])
    if config.target == DISTANCE:
      steps = jnp.arange(1, config.walk_length + 1, dtype=jnp.float32)
      labels = jnp.broadcast_to(steps[:, None], moves.shape)
    elif config.target == LAST_MOVE:
      labels = moves
    else:
      taken = jax.nn.one_hot(moves, self.engine.num_actions)
      labels = jnp.cumsum(taken, axis=0)
    return flat, labels.reshape((flat.shape[0],) + labels.shape[2:])

  def init(self) -> training.TrainState:
    """Fresh network; batch-norm averages start at a batch of real states."""
    init_key = self.keys()[0]
    states, _ = self.examples(init_key, min(self.config.walks, 64))
    params, net_state = self.network.init(init_key,
                                          self.engine.encode(states), True)
    return training.init_train_state(params, net_state, self.optimizer)

  def training_bytes(self) -> int:
    """A lower bound of what training allocates (`davi.Davi.training_bytes`
    says why): the training state and one iteration's examples, encoded."""

    def allocated(key):
      states, labels = self.examples(key, self.config.walks)
      return self.init(), labels, self.engine.encode(states)

    return memory.tree_bytes(jax.eval_shape(allocated, jax.random.PRNGKey(0)))

  def _train_step(self, train_state: training.TrainState, key: jax.Array
                 ) -> tuple[training.TrainState, jax.Array]:
    """One iteration on fresh walks; returns the new state and the loss."""
    states, labels = self.examples(key, self.config.walks)
    return self._update(train_state, self.engine.encode(states),
                        self.engine.legal_mask(states), labels)

  def _loss(self, params: hk.Params, net_state: hk.State, encoded: jax.Array,
            legal: jax.Array, labels: jax.Array
           ) -> tuple[jax.Array, tuple[hk.State, jax.Array]]:
    outputs, net_state = self.network.apply(params, net_state, None, encoded,
                                            True)
    loss = example_losses(self.config.target, outputs, legal, labels).mean()
    return loss, (net_state, loss)

  def _evaluate(self, params: hk.Params, net_state: hk.State, key: jax.Array,
                depths: tuple[int, ...], per_depth: int) -> jax.Array:
    """The greedy search's solve rate on `per_depth` walks' ends at each of
    `depths` steps (walks as in training), in 2·max(depths) moves."""
    config = self.config
    states, _ = walks(self.engine, key, per_depth, max(depths),
                      config.distinct, config.history)
    starts = states[jnp.asarray(depths) - 1].reshape((-1,) + states.shape[2:])
    scorer = Scorer(config, self.engine, self.network, params, net_state)
    final, _ = greedy_walk(self.engine, scorer, starts, 2 * max(depths),
                           no_repeats=config.distinct)
    solved = self.engine.is_goal(final)
    return solved.reshape(len(depths), per_depth).mean(axis=1)


def example_losses(target: str, outputs: jax.Array, legal: jax.Array,
                   labels: jax.Array) -> jax.Array:
  """[N] each example's loss: squared error of the distance, cross-entropy
  of the last move over the legal moves, or the mean binary cross-entropy
  of each move's having been taken."""
  if target == DISTANCE:
    return (outputs - labels)**2
  if target == LAST_MOVE:
    log_policy = masking.masked_log_softmax(outputs, legal)
    known = labels >= 0  # A walk that could not move has no last move.
    picked = jnp.take_along_axis(log_policy, jnp.maximum(labels, 0)[:, None],
                                 axis=1)[:, 0]
    return jnp.where(known, -picked, 0.0)
  return optax.sigmoid_binary_cross_entropy(outputs, labels).mean(axis=1)


class Scorer:
  """How a search ranks moves with a trained network (jittable).

  `children_costs(states, children)` gives [B, A] costs of taking each move
  from each state, lower is better: the estimated distance of the child
  for a "distance" network (one network call on every child), minus the
  log-probability of the move for a policy network (one call on the
  states).
  """

  def __init__(self, config: Config, engine: Any,
               network_fn: hk.TransformedWithState, params: hk.Params,
               net_state: hk.State):
    self.config = config
    self.engine = engine
    self._network = network_fn
    self._params, self._net_state = params, net_state

  @property
  def uses_children(self) -> bool:
    """Whether the network is called on the children (not the parents)."""
    return self.config.target == DISTANCE

  def outputs(self, states: jax.Array) -> jax.Array:
    values, _ = self._network.apply(self._params, self._net_state, None,
                                    self.engine.encode(states), False)
    return values

  def _chunked_outputs(self, states: jax.Array) -> jax.Array:
    """`outputs` in calls of at most CHUNK states (bounding the
    activations' memory on wide searches)."""
    count = states.shape[0]
    if count <= CHUNK:
      return self.outputs(states)
    chunks = -(-count // CHUNK)
    padded = jnp.concatenate([states, jnp.repeat(
        states[:1], chunks * CHUNK - count, axis=0)])
    outputs = jax.lax.map(self.outputs, padded.reshape(
        (chunks, CHUNK) + states.shape[1:]))
    return outputs.reshape((chunks * CHUNK,) + outputs.shape[2:])[:count]

  def children_costs(self, states: jax.Array,
                     children: jax.Array) -> jax.Array:
    legal = self.engine.legal_mask(states)
    if self.config.target == DISTANCE:
      batch, actions = children.shape[:2]
      flat = children.reshape((batch * actions,) + children.shape[2:])
      values = jnp.where(self.engine.is_goal(flat), 0.0,
                         self._chunked_outputs(flat))
      return values.reshape(batch, actions)
    logits = self.outputs(states)
    if self.config.target == LAST_MOVE:
      return -masking.masked_log_softmax(logits, legal)
    return -jax.nn.log_sigmoid(logits)


def greedy_walk(engine: Any, scorer: Scorer, starts: jax.Array,
                max_moves: int, no_repeats: bool = False
               ) -> tuple[jax.Array, jax.Array]:
  """The greedy search from each of [B] starts for `max_moves` moves: each
  move the cheapest by `scorer` among the legal moves that change the state
  and do not return to the state before it (with `no_repeats`, also never
  a move taken before, as on Lights Out, where a second press undoes the
  first). A start stops moving at a goal or where no move is allowed.

  Returns:
    the final states [B, D] and the moves [max_moves, B] (-1 once stopped).
  """
  batch = starts.shape[0]
  used = jnp.zeros((batch, engine.num_actions), bool)

  def move(carry, _):
    states, previous, used = carry
    children = engine.next_states(states)
    allowed = engine.legal_mask(states) & jnp.any(
        children != states[:, None], axis=-1) & ~jnp.all(
            children == previous[:, None], axis=-1)
    if no_repeats:
      allowed &= ~used
    costs = scorer.children_costs(states, children)
    best = masking.masked_argmax(-costs, allowed)
    done = engine.is_goal(states) | ~jnp.any(allowed, axis=1)
    chosen = jnp.where(done[:, None], states,
                       single_player.chosen_children(children, best))
    used |= ~done[:, None] & jax.nn.one_hot(best, engine.num_actions,
                                            dtype=bool)
    carry = chosen, jnp.where(done[:, None], previous, states), used
    return carry, jnp.where(done, -1, best)

  (final, _, _), moves = jax.lax.scan(move, (starts, starts, used), None,
                                      length=max_moves)
  return final, moves


def eval_depths(walk_length: int, count: int) -> tuple[int, ...]:
  """`count` walk depths spread over 1..walk_length."""
  return davi.eval_depths(walk_length, count)


@dataclasses.dataclass
class RunConfig:
  """How a run is carried out; none of it changes the trained network.

  Attributes:
    iterations: stop after this many iterations in all (resumed ones too).
    output_dir: checkpoint, model, metrics and plot go here.
    max_seconds: also stop after this long (this process's share).
    max_training_seconds: also stop once the run's training time (resumed
      sessions included) reaches this: a campaign's budget.
    checkpoint_seconds: wall time between checkpoints (each also exports
      the model and, with `mirror_dir`, copies it there).
    log_every: iterations between progress lines.
    eval_every: iterations between greedy evaluations (0: never).
    eval_depths: walk depths evaluated (spread over 1..walk_length).
    eval_states: states per evaluated depth.
    model_dtype: precision of the exported model's weights.
    mirror_dir: if set, each checkpoint is also copied there with the
      model, metrics and plot (a folder that outlives the machine, such as
      runs/); a run whose output_dir holds no checkpoint resumes exactly
      from the mirrored one.
  """
  iterations: int
  output_dir: str
  max_seconds: float = math.inf
  max_training_seconds: float = math.inf
  checkpoint_seconds: float = 300.0
  log_every: int = 100
  eval_every: int = 1000
  eval_depths: int = 8
  eval_states: int = 100
  model_dtype: str = "float32"
  mirror_dir: str = ""


@dataclasses.dataclass
class Progress:
  """Where a run stands; saved with the checkpoint.

  Attributes:
    iteration: iterations done.
    examples: states trained on.
    seconds: training time so far (resumed runs included).
  """
  iteration: int = 0
  examples: int = 0
  seconds: float = 0.0


def save_checkpoint(path: str, trainer: Trainer,
                    train_state: training.TrainState,
                    progress: Progress) -> None:
  """Writes everything a run needs to resume, atomically."""
  checkpoints.save(path, train_state, trainer.config, key=trainer.keys()[1],
                   step=progress.iteration,
                   extra={"progress": dataclasses.asdict(progress)})


def load_checkpoint(path: str, config: Config
                   ) -> tuple[training.TrainState, Progress]:
  """A run's saved state; refuses one made with another configuration."""
  saved = checkpoints.restore(path, config)
  return saved.tree, Progress(**saved.extra["progress"])


def export_model(path: str, config: Config, train_state: training.TrainState,
                 progress: Progress, dtype: str = "float32") -> None:
  """Writes the network with its config and training record (a weights
  file, `nn/weights.py`)."""
  weights.save(path, train_state.params, {
      "config": dataclasses.asdict(config),
      "iterations": progress.iteration, "examples": progress.examples,
      "training_seconds": round(progress.seconds, 1),
      "hardware": jax.devices()[0].device_kind}, dtype=dtype,
               state=train_state.net_state, kind=MODEL_KIND)


class Model:
  """A trained free-label network, for search."""

  def __init__(self, config: Config, params: hk.Params, net_state: hk.State,
               info: Optional[dict[str, Any]] = None):
    config.validate()
    self.config = config
    self.info = info or {}
    self.engine = puzzles.make_engine(config.puzzle, config.size)
    self.network = network(config, self.engine.num_actions)
    self.params, self.net_state = params, net_state
    self._values = jax.jit(self._values_of)

  def scorer(self, params: hk.Params, net_state: hk.State) -> Scorer:
    """The model's `Scorer` over `params` and `net_state`: inside a jitted
    function pass them as arguments (`self.params`, `self.net_state`)
    rather than closing over them, which would compile them in."""
    return Scorer(self.config, self.engine, self.network, params, net_state)

  def _values_of(self, params: hk.Params, net_state: hk.State,
                 states: jax.Array) -> jax.Array:
    return jnp.where(self.engine.is_goal(states), 0.0,
                     self.scorer(params, net_state).outputs(states))

  @classmethod
  def load(cls, path: str) -> "Model":
    """Reads a model `export_model` wrote (ValueError naming the file if it
    is no such model)."""
    params, net_state, meta = weights.load_with_state(path, MODEL_KIND)
    fields = meta.pop("config")
    fields["hidden_sizes"] = tuple(fields["hidden_sizes"])
    params, net_state = jax.tree.map(jnp.asarray, (params, net_state))
    return cls(Config(**fields), params, net_state, meta)

  @property
  def is_policy(self) -> bool:
    return self.config.target in POLICY_TARGETS

  def __call__(self, states: np.ndarray) -> np.ndarray:
    """[B, D] -> [B] estimated moves to the goal (0 at goals): a batch
    heuristic for `batch_astar` (distance models only)."""
    if self.is_policy:
      raise ValueError(f"a {self.config.target!r} model ranks moves, it "
                       "estimates no distance: search it with beam or greedy "
                       "search, not BWAS")
    return np.asarray(self._values(self.params, self.net_state,
                                   jnp.asarray(states)))


def load_model(path: str) -> "Model | davi.CostToGo":
  """The model in a file: a free-label `Model` or a DAVI `davi.CostToGo`,
  by the kind its record names (ValueError naming the file otherwise)."""
  _, _, meta = weights.load_with_state(path, (MODEL_KIND, davi.MODEL_KIND))
  if weights.kind_of(meta) == MODEL_KIND:
    return Model.load(path)
  return davi.CostToGo.load(path)


def shipped_path(puzzle: str, size: int, target: str) -> str:
  """Where the packaged free-label model of a puzzle and target is (or
  would be: a campaign ships it there)."""
  return puzzles.shipped_path(f"{puzzles.model_name(puzzle, size)}_{target}")


def find_shipped(puzzle: str, size: int) -> Optional[str]:
  """The packaged free-label model of a puzzle (the first of TARGETS that
  ships), or None."""
  return next((path for path in (shipped_path(puzzle, size, target)
                                 for target in TARGETS)
               if os.path.exists(path)), None)


def shipped_model_path(puzzle: str, size: int) -> str:
  """The packaged free-label model of a puzzle; ValueError if none ships."""
  path = find_shipped(puzzle, size)
  if path is None:
    raise ValueError(
        f"no shipped free-label model for puzzle={puzzle!r} size={size}; "
        f"shipped: {puzzles.shipped_stems()}. Train one with "
        "examples/free_label_train.py and pass its model.npz")
  return path


def train(config: Config, run_config: RunConfig,
          log: Callable[[str], None] = print
         ) -> tuple[training.TrainState, Progress]:
  """Runs (or resumes) training until `run_config.iterations` or a time
  limit; checkpoints, exports the model and plots as it goes."""
  from open_spiel_ext.utils import reporting  # pylint: disable=g-import-not-at-top
  os.makedirs(run_config.output_dir, exist_ok=True)
  checkpoint_path = os.path.join(run_config.output_dir, CHECKPOINT)
  trainer = Trainer(config)
  if not os.path.exists(checkpoint_path) and run_config.mirror_dir and (
      os.path.exists(os.path.join(run_config.mirror_dir, CHECKPOINT))):
    mirror.copy_files(run_config.mirror_dir, run_config.output_dir,
                      (CHECKPOINT, METRICS))
    log(f"took the checkpoint mirrored in {run_config.mirror_dir}")
  if os.path.exists(checkpoint_path):
    train_state, progress = load_checkpoint(checkpoint_path, config)
    log(f"resumed from {checkpoint_path} at iteration {progress.iteration}")
  else:
    train_state, progress = trainer.init(), Progress()
  metrics_path = os.path.join(run_config.output_dir, METRICS)
  metrics = reporting.resumed_metrics(metrics_path, progress.iteration)
  _, train_key, eval_key = trainer.keys()

  def step(clock: checkpoints.TrainingClock) -> int:
    nonlocal train_state
    # Waiting for each step keeps the clock and Ctrl-C to one step.
    train_state, loss = jax.block_until_ready(trainer.train_step(
        train_state, jax.random.fold_in(train_key, progress.iteration)))
    progress.iteration += 1
    progress.examples += config.batch_size
    if _due(progress.iteration, run_config.log_every):
      record = {"kind": "train", "iteration": progress.iteration,
                "examples": progress.examples, "loss": float(loss),
                "seconds": clock.training_seconds()}
      metrics.write(record)
      log(f"iteration {progress.iteration:7d}  loss {record['loss']:.4f}  "
          f"{progress.examples / 1e6:8.2f} M states  "
          f"{record['seconds']:8.1f} s")
    if _due(progress.iteration, run_config.eval_every):
      _evaluate(trainer, train_state, jax.random.fold_in(
          eval_key, progress.iteration), progress, run_config, metrics, log)
    return progress.iteration

  def save(training_seconds: float) -> None:
    progress.seconds = training_seconds
    save_checkpoint(checkpoint_path, trainer, train_state, progress)
    _export(trainer, train_state, progress, run_config)

  try:
    checkpoints.train_until(run_config, progress.iteration, progress.seconds,
                            step, save, log)
  finally:
    metrics.close()
  log(f"stopped at iteration {progress.iteration} after "
      f"{progress.seconds:.0f} s of training ({progress.examples:,} states);"
      f" wrote {CHECKPOINT}, {MODEL}, {METRICS} and {PLOT} to "
      f"{run_config.output_dir}")
  return train_state, progress


def _due(iteration: int, every: int) -> bool:
  return every > 0 and iteration % every == 0


def _export(trainer: Trainer, train_state: training.TrainState,
            progress: Progress, run_config: RunConfig) -> None:
  """The model and the plot into the run's folder, and its mirror."""
  folder = run_config.output_dir
  export_model(os.path.join(folder, MODEL), trainer.config, train_state,
               progress, run_config.model_dtype)
  plot_training(os.path.join(folder, METRICS), os.path.join(folder, PLOT),
                trainer.config)
  if run_config.mirror_dir:
    mirror.copy_files(folder, run_config.mirror_dir,
                      (CHECKPOINT, MODEL, METRICS, PLOT))


def _evaluate(trainer: Trainer, train_state: training.TrainState,
              key: jax.Array, progress: Progress, run_config: RunConfig,
              metrics: Any, log: Callable[[str], None]) -> None:
  """Greedy solve rate per walk depth: recorded, printed, plotted."""
  depths = eval_depths(trainer.config.walk_length, run_config.eval_depths)
  solved = np.asarray(trainer.evaluate(
      train_state.params, train_state.net_state, key, depths,
      run_config.eval_states))
  metrics.write({"kind": "eval", "iteration": progress.iteration,
                 "examples": progress.examples,
                 "seconds": progress.seconds, "depths": list(depths),
                 "solved": solved.tolist()})
  log("  greedy by walk depth: " + "  ".join(
      f"{d}:{100 * s:.0f}%" for d, s in zip(depths, solved)))
  plot_training(os.path.join(run_config.output_dir, METRICS),
                os.path.join(run_config.output_dir, PLOT), trainer.config)


def plot_training(metrics_path: str, plot_path: str, config: Config) -> None:
  """Loss against states seen; greedy solve rate by walk depth."""
  from open_spiel_ext.utils import reporting  # pylint: disable=g-import-not-at-top
  plt = reporting.plt
  records = reporting.read_json_lines(metrics_path)
  train_records = [r for r in records if r["kind"] == "train"]
  evals = [r for r in records if r["kind"] == "eval"]
  fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
  if train_records:
    axes[0].plot([r["examples"] / 1e6 for r in train_records],
                 [r["loss"] for r in train_records])
    axes[0].set_yscale("log")
  axes[0].set_xlabel("training states (millions)")
  axes[0].set_ylabel({DISTANCE: "MSE", LAST_MOVE: "cross-entropy",
                      PRESSED: "binary cross-entropy"}[config.target])
  colours = plt.cm.viridis(np.linspace(0, 1, max(len(evals), 1)))
  for colour, record in zip(colours, evals):
    axes[1].plot(record["depths"], 100 * np.asarray(record["solved"]),
                 color=colour, marker=".",
                 label=f"{record['examples'] / 1e6:.1f} M states")
  axes[1].set_xlabel("walk depth")
  axes[1].set_ylabel("% solved by greedy search")
  axes[1].grid(True, alpha=0.3)
  if evals:
    axes[1].legend(fontsize=7)
  fig.suptitle(f"{config.target} on "
               f"{puzzles.model_name(config.puzzle, config.size)}")
  reporting.save_figure(fig, plot_path, dpi=100)
