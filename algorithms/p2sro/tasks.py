"""The work P2SRO hands its executors: a learner's stretch of training
(`Task`, run by `train_chunk` in a worker), and what the driver and the
workers build for it (the game's engine, the learner, its jitted training).
"""

import dataclasses
from typing import Any, Callable, Mapping, NamedTuple, Optional

import jax
import numpy as np

from open_spiel_ext.algorithms.p2sro import settings
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import learner as learner_lib
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import population as population_lib
from open_spiel_ext.algorithms.rl import versus as versus_lib
from open_spiel_ext.games import batched
from open_spiel_ext.games import engines
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import compilation_cache
from open_spiel_ext.utils import executors
import pyspiel

# Mixtures handed to a task are padded with weightless members to a multiple
# of this, so that a growing population recompiles the training rarely.
MEMBER_BLOCK = 8
PORTABLE_SUFFIX = ".portable"  # A carry's portable twin (`portable_path`).
# Times a task is started again after its worker died, before the run fails.
RESTARTS = 3


class Task(NamedTuple):
  """One learner's stretch of training, as the driver hands it out."""
  game: str
  learner_config: best_response.AnyConfig
  num_envs: int
  seed: int  # A new learner's seed (when `start` is None).
  start: Optional[str]  # The carry's checkpoint to continue from.
  # A new learner's: the carry whose learner state it starts from.
  warm_from: Optional[str]
  save_to: str
  members: Any  # The opponents' parameters, stacked.
  weights: np.ndarray  # Their mixture.
  steps: int
  compilation_cache: str  # JAX's persistent cache, shared by the workers.
  engine_options: tuple[tuple[str, Any], ...]  # Of `engine`, as items.
  # The anchors' names (members then holds (their parameters, the
  # networks')) and the function that makes them.
  anchors: tuple[str, ...] = ()
  make_anchor: Optional[Callable[[str], opponents.Opponent]] = None


class Trained(NamedTuple):
  """What a task returns."""
  checkpoint: str
  params: Any  # The learner's policy parameters after the task.
  mean_return: float  # In the games that ended during the task.
  episodes: int  # How many games ended during the task.


def stack_mixture(members: list[Any], weights: np.ndarray
                 ) -> tuple[Any, np.ndarray]:
  """A task's opponents: the members' parameters stacked, padded with
  weightless copies to a multiple of MEMBER_BLOCK, and their normalised
  weights (with anchors, `weights` begins with the anchors' and goes on
  with the members': the padding follows)."""
  padding = -len(members) % MEMBER_BLOCK
  weights = np.asarray(weights, np.float64)
  return (jax.tree.map(lambda *x: np.stack(x),
                       *members, *[members[0]] * padding),
          np.concatenate([weights / weights.sum(), np.zeros(padding)]))


def engine(game: pyspiel.Game, config: Any = None, **options: Any) -> Any:
  """The JAX engine learners of `game` train on (auto-reset; continuous
  actions for a continuous PPO `config`; the engine's `options`).

  Raises:
    ValueError: no JAX engine plays `game`, so no learned oracle can, or
      not with these options.
  """
  if is_continuous(config):
    options["continuous"] = True
  return engines.make(game, auto_reset=True, **options)


def is_continuous(config: Any) -> bool:
  """Whether the learners `config` configures act continuously."""
  return bool(getattr(config, "continuous", False))


def carry_bytes(game: pyspiel.Game, learner_config: best_response.AnyConfig,
                config: settings.Config,
                engine_options: Optional[Mapping[str, Any]] = None) -> int:
  """A lower bound of the bytes a learner's carry takes
  (`best_response.carry_bytes`), which the driver allocates to start each
  learner from and each task to train one."""
  env = engine(game, learner_config, **dict(engine_options or {}))
  return best_response.carry_bytes(env, learner_config, config.num_envs)


def entry_bytes(game: pyspiel.Game, learner_config: best_response.AnyConfig,
                config: settings.Config,
                engine_options: Optional[Mapping[str, Any]] = None) -> int:
  """A lower bound of the bytes the driver allocates to sample a payoff
  entry (where payoffs are not exact): the games it plays at once
  (`batched.games_bytes`)."""
  env = engine(game, learner_config, **dict(engine_options or {}))
  return batched.games_bytes(env, population_lib.entry_slots(
      config.games_per_entry, config.entry_games_per_slot,
      config.entry_batch))


class Trainer:
  """A worker's (or the driver's) learner and jitted training for one game
  and config."""

  def __init__(self, game: str, config: best_response.AnyConfig,
               num_envs: int, engine_options: tuple[tuple[str, Any], ...],
               anchors: tuple[str, ...] = (),
               make_anchor: Optional[Callable[[str], opponents.Opponent]]
               = None):
    self.env = engine(pyspiel.load_game(game), config, **dict(engine_options))
    probe = best_response.make_learner(
        config, versus_lib.VersusEnv(self.env, opponents.uniform()),
        num_envs)
    first = probe.played(probe.init(jax.random.PRNGKey(0)))
    self.apply = first.apply
    self.anchors = [make_anchor(name) for name in anchors]
    networks = opponents.of_networks(first.apply, first.params,
                                     continuous=is_continuous(config))
    self.versus = versus_lib.VersusEnv(self.env, opponents.anchored(
        self.anchors, networks, np.full(len(anchors) + 1, 1 / (
            len(anchors) + 1))) if anchors else networks)
    self.learner = best_response.make_learner(config, self.versus, num_envs)
    self.train_steps = learner_lib.make_train_steps(self.learner, self.versus)
    self.num_envs = num_envs
    self.record = {"game": game, "num_envs": num_envs,
                   **dataclasses.asdict(config)}

  def new_carry(self, seed: int) -> learner_lib.Carry:
    return learner_lib.init_carry(self.learner, self.versus,
                                  jax.random.PRNGKey(seed), self.num_envs)

  def compact(self, carry: learner_lib.Carry) -> learner_lib.Carry:
    return learner_lib.compact_carry(self.learner, carry)

  def portable(self, carry: learner_lib.Carry) -> learner_lib.Carry:
    return learner_lib.portable_carry(self.learner, carry)

  def whole(self, carry: learner_lib.Carry) -> learner_lib.Carry:
    return learner_lib.whole_carry(self.learner, self.versus, carry,
                                   self.num_envs)

  def params(self, carry: learner_lib.Carry) -> Any:
    return jax.device_get(self.learner.played(carry.learner).params)

  def new_params(self, seed: int) -> Any:
    """The parameters a learner started from `seed` plays at first."""
    return self.params(self.new_carry(seed))


def draw_opponents(members: list[Any], weights: np.ndarray, count: int,
                   anchors: int, rng: np.random.Generator
                  ) -> tuple[list[Any], np.ndarray]:
  """A task's `count` opponents drawn from the mixture `weights` (over
  `anchors` anchors, then `members`): the members drawn, weighted by how
  often (the anchors keep their places, weightless if not drawn)."""
  drawn = rng.choice(len(weights), count, p=weights / weights.sum())
  indices, counts = np.unique(drawn, return_counts=True)
  anchor_counts = np.zeros(anchors)
  anchor_counts[indices[indices < anchors]] = counts[indices < anchors]
  kept = indices >= anchors
  return ([members[i - anchors] for i in indices[kept]],
          np.concatenate([anchor_counts, counts[kept]]) / counts.sum())


def portable_path(carry_path: str) -> str:
  """Where a task keeps the portable twin of the carry it saved at
  `carry_path` (`learner.portable_carry`: no games in progress, no PPO
  rollout; megabytes where the carry can be a gigabyte)."""
  return carry_path + PORTABLE_SUFFIX


_TRAINERS: dict[Any, Trainer] = {}  # The two last used, by what they train.


def trainer_for(game: str, config: best_response.AnyConfig, num_envs: int,
                engine_options: tuple[tuple[str, Any], ...] = (),
                anchors: tuple[str, ...] = (),
                make_anchor: Optional[Callable[[str], opponents.Opponent]]
                = None) -> Trainer:
  """The worker's trainer for these settings, made once (the anchors named
  alike are alike, whatever `make_anchor` object a task brought)."""
  key = (game, config, num_envs, engine_options, anchors)
  if key not in _TRAINERS:
    if len(_TRAINERS) == 2:
      del _TRAINERS[next(iter(_TRAINERS))]
    _TRAINERS[key] = Trainer(game, config, num_envs, engine_options, anchors,
                             make_anchor)
  _TRAINERS[key] = _TRAINERS.pop(key)  # The newest used last.
  return _TRAINERS[key]


def train_chunk(task: Task) -> Trained:
  """The executor task: trains one learner for `task.steps` batched steps."""
  compilation_cache.enable(task.compilation_cache)
  trainer = trainer_for(task.game, task.learner_config, task.num_envs,
                        task.engine_options, task.anchors, task.make_anchor)
  if task.start is not None:
    carry = trainer.whole(checkpoints.restore(task.start,
                                              trainer.record).tree)
  else:
    carry = trainer.new_carry(task.seed)
    if task.warm_from is not None:
      carry = carry._replace(learner=trainer.whole(checkpoints.restore(
          task.warm_from, trainer.record).tree).learner)
  carry, metrics = trainer.train_steps(carry, task.members,
                                       np.asarray(task.weights, np.float32),
                                       task.steps)
  checkpoints.save(task.save_to, trainer.compact(carry), trainer.record)
  checkpoints.save(portable_path(task.save_to), trainer.portable(carry),
                   trainer.record)
  episodes = int(metrics.episodes)
  return Trained(task.save_to, trainer.params(carry),
                 float(metrics.return_sum) / max(episodes, 1), episodes)



class TaskRunner:
  """Runs tasks on an executor from `make_executor` (made now, so that a bad
  executor config is refused at once); tasks whose worker died run again on
  a new executor, from the carries they started from."""

  def __init__(self, make_executor: Callable[[], executors.Executor]):
    self._make_executor = make_executor
    self._executor: Optional[executors.Executor] = make_executor()

  def run(self, to_run: list[Task]) -> list[Trained]:
    """The tasks' results, in order."""
    results: list[Optional[Trained]] = [None] * len(to_run)
    for attempt in range(RESTARTS + 1):
      if self._executor is None:
        self._executor = self._make_executor()
      futures = {i: self._executor.submit(train_chunk, task)
                 for i, task in enumerate(to_run) if results[i] is None}
      broken = None
      for i, future in futures.items():
        try:
          results[i] = future.result()
        except executors.WorkerLost as error:
          broken = error
      if broken is None:
        return results
      print(f"p2sro: a worker died ({type(broken).__name__}: {broken}); "
            f"starting its task again from its checkpoint "
            f"({attempt + 1} of {RESTARTS})", flush=True)
      self.close()
    raise RuntimeError(f"a task's worker died {RESTARTS + 1} times") from broken

  def close(self) -> None:
    """Ends the executor's workers."""
    if self._executor is not None:
      self._executor.shutdown(cancel=True)
      self._executor = None
