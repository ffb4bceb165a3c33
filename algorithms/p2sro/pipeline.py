"""P2SRO's driver (`Pipeline`): the population, its payoff table and the
active learners, a round at a time (the package's docstring tells the
methods)."""

import dataclasses
import os
import time
from typing import Any, Callable, Iterator, Mapping, Optional

import numpy as np

from open_spiel.python import policy as policy_lib
from open_spiel_ext.algorithms import normal_form_psro
from open_spiel_ext.algorithms.p2sro import persistence
from open_spiel_ext.algorithms.p2sro import settings
from open_spiel_ext.algorithms.p2sro import tasks
from open_spiel_ext.algorithms.rl import best_response
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.algorithms.rl import population as population_lib
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import executors
import pyspiel


class Pipeline:
  """One of `settings.METHODS` with learned best responses (the package's
  docstring).

  Args:
    game: the game (one a JAX engine plays).
    learner_config: the learners' config (`dqn.Config`, `ppo.Config`,
      `sac.Config`).
    config: the method's config.
    directory: where the state and the learners' checkpoints live; a run
      found there with the same game and configs is resumed.
    make_executor: () -> an executor for the learners' tasks (a new one
      replaces an executor whose worker died).
    evaluator: best_response.EXACT: payoffs and the meta-Nash's
      exploitability from the tree engine (ValueError if the game's tree
      does not fit); otherwise
      payoffs from sampled games and the exploitability from
      `evaluator(meta-Nash opponent)` (say the approximate exploitability;
      called again only when the meta-Nash changes), or none with None.
    engine_options: options of the game's engine the learners train on
      (`engines.make`), such as how Stratego's learners see it.
    fork_from: a new run (none yet in `directory`) starts from the state of
      the run in this directory instead (its population, log and learners'
      carries, copied), under this `config`: the game, learners and
      evaluator must be the same, the method's settings may differ. So a
      change is measured against the unchanged method from one checkpoint
      (a fork adding `config.anchors` fills their entries first).
    make_anchor: name -> the opponent `config.anchors` names (a function
      the executors' workers can import).
  """

  def __init__(self, game: pyspiel.Game,
               learner_config: best_response.AnyConfig,
               config: settings.Config, directory: str,
               make_executor: Callable[[], executors.Executor],
               evaluator: Any = best_response.EXACT,
               engine_options: Optional[Mapping[str, Any]] = None,
               fork_from: Optional[str] = None,
               make_anchor: Optional[Callable[[str], opponents.Opponent]]
               = None):
    if config.anchors and make_anchor is None:
      raise ValueError(f"anchors={config.anchors} need a make_anchor")
    self._engine_options = tuple(sorted((engine_options or {}).items()))
    self._make_anchor = make_anchor if config.anchors else None
    self.game, self.learner_config, self.config = game, learner_config, config
    self.directory = directory
    self._record = {"game": str(game),
                    "learner": type(learner_config).__module__,
                    **dataclasses.asdict(learner_config),
                    **{f"run_{k}": v for k, v in
                       dataclasses.asdict(config).items()},
                    "exact_payoffs": evaluator == best_response.EXACT,
                    **{f"engine_{name}": value
                       for name, value in self._engine_options}}
    self._files = persistence.RunFiles(directory, self._record)
    # Refuses a game no learner can play, naming it.
    self._trainer = tasks.trainer_for(str(game), learner_config,
                                      config.num_envs, self._engine_options,
                                      config.anchors, self._make_anchor)
    self._evaluator = evaluator
    self._evaluated = (None, None)  # (meta-Nash, the evaluator's value).
    self.population = population_lib.Population(
        game, self._trainer.apply, self._trainer.env,
        config.games_per_entry, exact=evaluator == best_response.EXACT,
        seed=config.seed, entry_standard_error=config.entry_standard_error,
        entry_batch=config.entry_batch,
        entry_games_per_slot=config.entry_games_per_slot,
        anchors=self._trainer.anchors)
    self.log: list[settings.LogEntry] = []
    self._wall_time = 0.0
    self._task_time = 0.0
    self._entry_time = 0.0
    self._checkpoint_time = 0.0
    self._env_steps = 0
    self._episodes = 0
    self._next_seed = config.seed * 1_000_003  # Learners' seeds count up.
    if self._files.has_state():
      self._restore(self._files.restore())
      for active in self.active:
        self._files.replace_missing(active)
    elif fork_from is not None:
      self._fork(fork_from)
    else:
      self.population.add(self._trainer.new_params(self._take_seed()))
      self.active: list[persistence.ActiveLearner] = []
      self._start_learners()
    self._runner = tasks.TaskRunner(make_executor)

  # Which learners run, and against what.

  def _take_seed(self) -> int:
    self._next_seed += 1
    return self._next_seed - 1

  def _new_active(self, source: Optional[persistence.ActiveLearner] = None
                  ) -> persistence.ActiveLearner:
    """A new learner: from a new network, or from `source`'s state."""
    seed = self._take_seed()
    warm_from = source and (source.checkpoint or source.warm_from)
    if not warm_from:  # Also when `source` has not trained yet.
      return persistence.ActiveLearner(f"learner_{seed}", seed,
                                       self._trainer.new_params(seed))
    return persistence.ActiveLearner(f"learner_{seed}", seed, source.params,
                                     warm_from=warm_from)

  def _start_learners(self, fixed: Optional[persistence.ActiveLearner] = None) -> None:
    """Fills the active levels (a new generation, for rectified); with
    warm_start, from the newest active learner, else `fixed`."""
    method = self.config.method
    if method == "rectified":
      payoffs = self.population.payoffs
      weights = self.config.solve(payoffs)
      for index in np.flatnonzero(
          weights > normal_form_psro.SUPPORT_THRESHOLD):
        beaten = np.flatnonzero(payoffs[index] >= 0)
        active = self._new_active()
        active.opponents = (beaten.tolist(),
                            weights[beaten] / weights[beaten].sum())
        self.active.append(active)
      return
    count = {"psro": 1, "self_play": 1}.get(method, self.config.learners)
    while len(self.active) < count:
      source = self.active[-1] if self.active else fixed
      self.active.append(self._new_active(
          source if self.config.warm_start else None))

  def _levels_table(self) -> np.ndarray:
    """The payoff table of the population and the active levels that any
    level trains against (all but the top one, for p2sro, psro and dch),
    filled once a round; level j's is its leading corner."""
    if self.config.method not in ("p2sro", "psro", "dch"):
      return self.population.payoffs
    return self.population.payoffs_with([a.params for a in self.active[:-1]])

  def _opponents(self, level: int,
                 table: np.ndarray) -> tuple[list[Any], np.ndarray]:
    """The networks (parameters) level `level` trains against, and the
    mixture's weights: over the anchors first, then those networks; `table`
    is `_levels_table()`."""
    method, members = self.config.method, list(self.population.members)
    if method == "rectified":
      indices, weights = self.active[level].opponents
      return [members[i] for i in indices], weights
    if method == "self_play":
      return members[-1:], np.ones(1)
    below = ([a.params for a in self.active[:level]]
             if method in ("p2sro", "psro", "dch") else [])
    size = len(self.population) + len(below)
    weights = self.config.solve(table[:size, :size])
    mix = self.config.uniform_mix
    return members + below, (1 - mix) * weights + mix / size

  def _task(self, level: int, table: np.ndarray) -> tasks.Task:
    active = self.active[level]
    members, weights = self._opponents(level, table)
    if self.config.task_opponents:  # Drawn alike when resumed.
      members, weights = tasks.draw_opponents(
          members, weights, self.config.task_opponents,
          len(self.config.anchors),
          np.random.default_rng((self.config.seed, len(self.log) + 1, level)))
    anchors = len(self.config.anchors)
    if not members:  # Only anchors drawn: a weightless network for shape.
      members, weights = self.population.members[:1], np.append(weights, 0.0)
    stacked, weights = tasks.stack_mixture(members, weights)
    if anchors:
      stacked = (tuple(a.params for a in self._trainer.anchors), stacked)
    return tasks.Task(
        str(self.game), self.learner_config, self.config.num_envs,
        active.seed, active.checkpoint, active.warm_from,
        self._files.carry_path(f"{active.name}.round_{len(self.log) + 1}.pkl"),
        stacked, weights, self.config.chunk_steps,
        os.path.join(self.directory, "compilation_cache"),
        self._engine_options, self.config.anchors, self._make_anchor)

  def close(self) -> None:
    """Ends the executor's workers."""
    self._runner.close()

  def __enter__(self) -> "Pipeline":
    return self

  def __exit__(self, *exc_info) -> None:
    self.close()

  # A round.

  def run(self, max_rounds: Optional[int] = None,
          max_env_steps: Optional[int] = None,
          max_episodes: Optional[int] = None,
          time_limit: Optional[float] = None
         ) -> Iterator[settings.LogEntry]:
    """Runs rounds, yielding each round's log entry, until the rounds, the
    learners' environment steps or games, or the rounds' seconds reach the
    limit given (a resumed run's saved rounds count: it runs what is left).

    Raises:
      ValueError: no limit given.
    """
    limits = {"round": max_rounds, "env_steps": max_env_steps,
              "episodes": max_episodes, "wall_time": time_limit}
    if all(limit is None for limit in limits.values()):
      raise ValueError("Pipeline.run needs a limit: max_rounds, "
                       "max_env_steps, max_episodes or time_limit")
    while not self.log or all(
        limit is None or getattr(self.log[-1], field) < limit
        for field, limit in limits.items()):
      yield self.step()

  def step(self) -> settings.LogEntry:
    """One round: every active learner trains, plateaus are fixed."""
    started = time.perf_counter()
    training = [i for i, a in enumerate(self.active) if not a.done]
    table = self._levels_table()
    self._entry_time += time.perf_counter() - started
    to_run = [self._task(i, table) for i in training]
    submitted = time.perf_counter()
    results = self._runner.run(to_run)
    self._task_time += time.perf_counter() - submitted
    for level, trained in zip(training, results):
      active = self.active[level]
      previous = active.last_return
      active.checkpoint, active.params = trained.checkpoint, trained.params
      active.last_return = trained.mean_return
      active.steps += self.config.chunk_steps
      active.done = (active.steps >= self.config.min_steps and
                     previous is not None and
                     trained.mean_return - previous <
                     self.config.plateau_gain)
    self._env_steps += (len(training) * self.config.chunk_steps *
                        self.config.num_envs)
    self._episodes += sum(trained.episodes for trained in results)
    fixing = time.perf_counter()
    added = self._fix_plateaued()
    self._entry_time += time.perf_counter() - fixing
    self._wall_time += time.perf_counter() - started
    self.log.append(settings.LogEntry(
        len(self.log) + 1, len(self.population), added, self._env_steps,
        self._episodes,
        self._wall_time, self._task_time,
        tuple(r.mean_return for r in results), self.exploitability(),
        self._entry_time, self._checkpoint_time,
        self.population.entry_games,
        tuple(trained.episodes for trained in results)))
    saving = time.perf_counter()
    self._save()
    self._checkpoint_time += time.perf_counter() - saving
    return self.log[-1]

  def _fix_plateaued(self) -> int:
    """Moves the learners that may join into the population; how many."""
    method = self.config.method
    if method == "dch":
      joining = []
    elif method == "rectified":
      joining = list(self.active) if all(a.done for a in self.active) else []
    elif method == "naive":
      joining = [a for a in self.active if a.done]
    else:
      joining = self.active[:1] if self.active[0].done else []
    for active in joining:
      self.population.add(active.params)
      self.active.remove(active)
    if joining:
      self._start_learners(fixed=joining[-1])
    for active in self.active:
      active.done = active.done and method == "rectified"
    return len(joining)

  def _meta_nash(self) -> tuple[np.ndarray, list[Any]]:
    """The meta-Nash weights over the population (then DCH's levels, which
    are its population), and those levels' parameters."""
    extra = ([a.params for a in self.active]
             if self.config.method == "dch" else [])
    return self.config.solve(self.population.payoffs_with(extra)), extra

  def exploitability(self) -> Optional[float]:
    """The meta-Nash's exploitability: exact, or the evaluator's."""
    if self._evaluator == best_response.EXACT:
      return self.population.exploitability(*self._meta_nash())
    if self._evaluator is None:
      return None
    weights, extra = self._meta_nash()
    # A meta-Nash met before (no policy fixed since) is not measured again;
    # DCH's levels change every round.
    key = (len(self.population), tuple(np.round(weights, 6)),
           len(self.log) if extra else None)
    if self._evaluated[0] != key:
      self._evaluated = (key, self._evaluator(
          self.population.opponent(weights, extra)))
    return self._evaluated[1]

  def tabular_policy(self) -> policy_lib.TabularPolicy:
    """The meta-Nash as an OpenSpiel TabularPolicy (of Leduc poker for
    m-Clone Leduc, whose tree the tree engine walks)."""
    return self.population.tabular_policy(*self._meta_nash())

  def _save(self) -> None:
    """Writes the driver's state atomically, then removes the carries it no
    longer names."""
    self._files.save({
        "log": self.log, "wall_time": self._wall_time,
        "task_time": self._task_time, "entry_time": self._entry_time,
        "checkpoint_time": self._checkpoint_time,
        "env_steps": self._env_steps,
        "episodes": self._episodes, "active": self.active,
        "next_seed": self._next_seed,
        "population": self.population.state()}, self.active)

  def _restore(self, checkpoint: checkpoints.Checkpoint) -> None:
    """Takes back the state `_save` wrote."""
    state = checkpoint.extra
    self.log, self.active = state["log"], state["active"]
    self._wall_time, self._env_steps = state["wall_time"], state["env_steps"]
    self._episodes = state["episodes"]
    self._task_time = state["task_time"]
    self._entry_time = state.get("entry_time", 0.0)
    self._checkpoint_time = state.get("checkpoint_time", 0.0)
    self._next_seed = state["next_seed"]
    self.population.restore(state["population"])
    self._files.localize(self.active)

  def copy_state(self, directory: str, portable: bool = False) -> None:
    """Copies the run's state and the carries it names into `directory`, in
    this run's layout (a Pipeline there resumes from it), and removes the
    carries it no longer names there: a copy kept off a machine whose disk
    goes away with it. Call it between rounds. With `portable`, the carries
    are their portable twins (`tasks.portable_path`): the copy is
    megabytes, and a run resumed from it starts its learners on fresh games
    (the games in progress and PPO's partial rollouts are lost, nothing
    learned is)."""
    self._files.copy_to(directory, self.active, self._trainer, portable)

  def _fork(self, parent: str) -> None:
    """Starts from the state of the run in `parent` (ValueError if its game,
    learners or evaluator differ), its learners' carries copied here."""
    state = self._files.read_parent(parent, self.config.anchors)
    anchors, members = len(self.config.anchors), len(
        state.extra["population"]["members"])
    adding_anchors = anchors and not state.extra["population"].get("anchors")
    if adding_anchors:
      print(f"p2sro: forking {parent}: the anchors' payoff entries against "
            f"its {members} members and each other "
            f"({anchors * members + anchors * (anchors - 1) // 2} entries) "
            "first", flush=True)
    self._files.copy_carries_from(parent, state.extra["active"])
    restoring = time.perf_counter()
    self._restore(state)  # Fills the anchors' entries, if added.
    if adding_anchors:  # Populations count the anchors, put first.
      self.log = [dataclasses.replace(entry, fixed=entry.fixed + anchors)
                  for entry in self.log]
      filling = time.perf_counter() - restoring  # The fork's first work.
      self._entry_time += filling
      self._wall_time += filling
    for active in self.active:
      self._files.replace_missing(active)
    self._save()
