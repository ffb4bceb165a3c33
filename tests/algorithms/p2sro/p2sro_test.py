"""Pipeline PSRO and its rivals with learned best responses, on Kuhn poker
and measured exactly: what each method fixes, and that a resumed run and a
run whose worker was killed end exactly like one never interrupted."""

import dataclasses
import functools
import multiprocessing
import os
import shutil
import signal
import threading
import time

import jax
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms import normal_form_psro
from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.algorithms.rl import opponents
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import executors
import pyspiel

KUHN = pyspiel.load_game("kuhn_poker")
DQN = dqn.Config(hidden_sizes=(32,), learning_starts=500,
                 epsilon_decay_steps=1000, buffer_capacity=10_000)
CONFIG = p2sro.Config(learners=2, chunk_steps=500, min_steps=1000,
                      fictitious_play_iterations=2000)
WORKERS = 2
REFERENCE_ROUNDS = 8


class _Borrowed:
  """The module's shared pool, lent to a pipeline: its shutdown leaves the
  pool running (its workers keep their compiled training steps)."""

  def __init__(self, executor: executors.Executor):
    self._executor = executor

  def submit(self, *args, **kwargs):
    return self._executor.submit(*args, **kwargs)

  def shutdown(self, cancel: bool = False) -> None:
    del cancel


@pytest.fixture(name="pool", scope="module")
def pool_fixture():
  with executors.make_executor("process", WORKERS) as executor:
    yield _Borrowed(executor)


def _own_pool():
  return executors.make_executor("process", WORKERS)


def _pipeline(directory, make_executor, method="p2sro", fork_from=None,
              **changes):
  config = dataclasses.replace(CONFIG, method=method, **changes)
  return p2sro.Pipeline(KUHN, DQN, config, str(directory), make_executor,
                        fork_from=fork_from)


def _run(pipeline, rounds):
  with pipeline:
    list(pipeline.run(max_rounds=rounds))
  return pipeline


@pytest.fixture(name="reference", scope="module")
def reference_fixture(tmp_path_factory, pool):
  """A P2SRO run never interrupted."""
  return _run(_pipeline(tmp_path_factory.mktemp("reference"), lambda: pool),
              REFERENCE_ROUNDS)


def _timeless(log):
  return [dataclasses.replace(entry, wall_time=0.0, task_time=0.0,
                              entry_time=0.0, checkpoint_time=0.0)
          for entry in log]


def _assert_same_run(pipeline, reference, rounds):
  assert _timeless(pipeline.log) == _timeless(reference.log[:rounds])
  if rounds == len(reference.log):
    jax.tree.map(np.testing.assert_array_equal, pipeline.population.members,
                 reference.population.members)
    np.testing.assert_array_equal(pipeline.population.payoffs,
                                  reference.population.payoffs)


def test_p2sro_fixes_only_its_lowest_level_and_gets_less_exploitable(
    reference):
  rounds = reference.log
  assert all(r.added in (0, 1) for r in rounds)
  assert rounds[-1].fixed >= 3
  assert rounds[-1].exploitability < 0.15 < rounds[0].exploitability
  assert rounds[-1].env_steps == (REFERENCE_ROUNDS * CONFIG.learners *
                                  CONFIG.chunk_steps * CONFIG.num_envs)
  # Each learner's games of its round, which add up to the run's.
  assert all(len(r.task_episodes) == len(r.mean_returns) == CONFIG.learners
             and min(r.task_episodes) > 0 for r in rounds)
  assert np.diff([0] + [r.episodes for r in rounds]).tolist() == [
      sum(r.task_episodes) for r in rounds]


def _first_plateau(history):
  """The round P2SRO's rule fixes a learner with this history at."""
  for i in range(1, len(history.rounds)):
    if (history.levels[i] == 0 and
        (i + 1) * CONFIG.chunk_steps >= CONFIG.min_steps and
        history.mean_returns[i] - history.mean_returns[i - 1] <
        CONFIG.plateau_gain):
      return history.rounds[i]
  return None


def test_learner_histories_follow_each_learner_to_its_fixing(reference):
  histories = p2sro.learner_histories(reference.log, CONFIG)
  fixed = [h for h in histories if h.fixed_at is not None]
  # The population's first member is a new network, no learner's.
  assert len(fixed) == reference.log[-1].fixed - 1 >= 2
  assert [_first_plateau(h) for h in histories] == [
      h.fixed_at for h in histories]
  assert sum(len(h.rounds) for h in histories) == (
      REFERENCE_ROUNDS * CONFIG.learners)
  assert sum(sum(h.episodes) for h in histories) == reference.log[-1].episodes
  with pytest.raises(ValueError, match="method='dch'"):
    p2sro.learner_histories(reference.log,
                            dataclasses.replace(CONFIG, method="dch"))


def test_a_restarted_run_resumes_and_ends_as_if_never_stopped(
    reference, pool, tmp_path):
  _run(_pipeline(tmp_path, lambda: pool), REFERENCE_ROUNDS // 2)
  resumed = _pipeline(tmp_path, lambda: pool)
  assert len(resumed.log) == REFERENCE_ROUNDS // 2
  _assert_same_run(_run(resumed, REFERENCE_ROUNDS), reference,
                   REFERENCE_ROUNDS)
  kept = {os.path.basename(a.checkpoint) for a in resumed.active
          if a.checkpoint is not None}
  twins = {os.path.basename(p2sro.portable_path(name)) for name in kept}
  assert set(os.listdir(tmp_path / "learners")) == kept | twins  # No older.


def test_run_stops_at_a_limit_and_needs_one(reference):
  assert not list(reference.run(max_rounds=REFERENCE_ROUNDS))
  assert not list(reference.run(max_env_steps=1))
  with pytest.raises(ValueError, match="needs a limit"):
    next(reference.run())


def test_a_fork_continues_the_run_it_starts_from(reference, pool, tmp_path):
  parent = tmp_path / "parent"
  _run(_pipeline(parent, lambda: pool), REFERENCE_ROUNDS // 2)
  # Under the same settings, a fork ends as the run never stopped would.
  same = _pipeline(tmp_path / "same", lambda: pool, fork_from=str(parent))
  assert len(same.log) == REFERENCE_ROUNDS // 2
  _assert_same_run(_run(same, REFERENCE_ROUNDS), reference, REFERENCE_ROUNDS)
  # Under other method settings it starts where the parent stopped, and the
  # parent's own carries stay where they were.
  parent_carries = sorted(os.listdir(parent / "learners"))
  other = _run(_pipeline(tmp_path / "other", lambda: pool,
                         fork_from=str(parent), task_opponents=1),
               REFERENCE_ROUNDS // 2 + 1)
  assert _timeless(other.log[:-1]) == _timeless(
      reference.log[:REFERENCE_ROUNDS // 2])
  assert sorted(os.listdir(parent / "learners")) == parent_carries
  with pytest.raises(ValueError, match="belongs to another run.*hidden"):
    p2sro.Pipeline(KUHN, dataclasses.replace(DQN, hidden_sizes=(8,)),
                   CONFIG, str(tmp_path / "refused"), lambda: pool,
                   fork_from=str(parent))


# Uniform play and CFR+'s average policy as anchors (picklable for workers).
ANCHORS = ("uniform", "cfr+:20")
MAKE_ANCHOR = functools.partial(opponents.from_spec, game=KUHN)


def test_anchors_head_the_population_and_the_learners_mixtures(
    reference, pool, tmp_path, capsys):
  """A fork of the reference adding anchors: their rows lead the table,
  the reference's follow, and the learners train against mixtures in which
  the anchors play (task_opponents keeps them in their places)."""
  parent = tmp_path / "parent"
  _run(_pipeline(parent, lambda: pool), REFERENCE_ROUNDS // 2)
  config = dataclasses.replace(CONFIG, anchors=ANCHORS, task_opponents=3)
  forked = p2sro.Pipeline(KUHN, DQN, config, str(tmp_path / "anchored"),
                          lambda: pool, fork_from=str(parent),
                          make_anchor=MAKE_ANCHOR)
  members = len(forked.population.members)
  assert len(forked.population) == 2 + members
  assert (f"the anchors' payoff entries against its {members} members and "
          f"each other ({2 * members + 1} entries)") in capsys.readouterr().out
  parent_table = p2sro.Pipeline(KUHN, DQN, CONFIG, str(parent),
                                lambda: pool).population.payoffs
  np.testing.assert_allclose(forked.population.payoffs[2:, 2:], parent_table)
  # The parent's rounds count the anchors in their populations.
  assert forked.log[-1].fixed == len(forked.population)
  # Filling the anchors' entries is the fork's first work, timed as such.
  # pylint: disable=protected-access
  assert forked._entry_time > forked.log[-1].entry_time
  assert (forked._wall_time - forked.log[-1].wall_time ==
          pytest.approx(forked._entry_time - forked.log[-1].entry_time))
  # pylint: enable=protected-access
  assert forked.population.payoffs[0, 1] < -0.01  # Uniform loses to CFR+.
  table = forked._levels_table()  # pylint: disable=protected-access
  task = forked._task(0, table)  # pylint: disable=protected-access
  anchor_params, _ = task.members
  assert len(anchor_params) == 2 and task.weights.sum() == pytest.approx(1)
  _run(forked, REFERENCE_ROUNDS // 2 + 2)
  assert len(forked.log) == REFERENCE_ROUNDS // 2 + 2
  resumed = p2sro.Pipeline(KUHN, DQN, config, str(tmp_path / "anchored"),
                           lambda: pool, make_anchor=MAKE_ANCHOR)
  np.testing.assert_array_equal(resumed.population.payoffs,
                                forked.population.payoffs)
  with pytest.raises(ValueError, match="has anchors .* a fork keeps them"):
    p2sro.Pipeline(KUHN, DQN, dataclasses.replace(config, anchors=("uniform",)),
                   str(tmp_path / "other"), lambda: pool,
                   fork_from=str(tmp_path / "anchored"),
                   make_anchor=MAKE_ANCHOR)
  with pytest.raises(ValueError, match="need a make_anchor"):
    p2sro.Pipeline(KUHN, DQN, config, str(tmp_path / "no_maker"),
                   lambda: pool)


def test_a_copied_state_resumes_as_the_run_it_copies(reference, pool,
                                                    tmp_path):
  pipeline = _pipeline(tmp_path / "run", lambda: pool)
  copy = tmp_path / "copy"
  for rounds in (1, 2):
    _run(pipeline, rounds)
    pipeline.copy_state(str(copy))
  named = {os.path.basename(a.checkpoint) for a in pipeline.active}
  assert set(os.listdir(copy / "learners")) == named  # Older ones removed.
  resumed = _pipeline(copy, lambda: pool)  # Its carries found there.
  _assert_same_run(_run(resumed, 3), reference, 3)


def test_a_run_folder_copied_or_moved_resumes_from_its_own_files(
    reference, pool, tmp_path):
  """`state.pkl` named its learners' files by absolute path: a moved run
  could not resume, and a copy trained on from the original's files (the
  copy's own could be garbage). The original is ruined here after copying,
  and the copy moved, before it resumes."""
  original = tmp_path / "run"
  _run(_pipeline(original, lambda: pool), 2)
  shutil.copytree(original, tmp_path / "copy")
  for name in os.listdir(original / "learners"):
    (original / "learners" / name).write_bytes(os.urandom(64))
  moved = tmp_path / "elsewhere" / "copy"
  shutil.move(tmp_path / "copy", moved)
  _assert_same_run(_run(_pipeline(moved, lambda: pool), 3), reference, 3)


def test_a_portable_copy_resumes_on_fresh_games(reference, pool, tmp_path):
  pipeline = _run(_pipeline(tmp_path / "run", lambda: pool), 2)
  copy = tmp_path / "copy"
  pipeline.copy_state(str(copy), portable=True)
  named = {os.path.basename(a.checkpoint) for a in pipeline.active}
  assert set(os.listdir(copy / "learners")) == named
  record = pipeline._trainer.record  # pylint: disable=protected-access
  for name in named:
    carry = checkpoints.restore(str(copy / "learners" / name), record).tree
    assert carry.env is None and carry.learner is not None
    assert (os.path.getsize(copy / "learners" / name) <
            os.path.getsize(tmp_path / "run" / "learners" / name))
  resumed = _run(_pipeline(copy, lambda: pool), 3)
  assert _timeless(resumed.log[:2]) == _timeless(reference.log[:2])
  assert resumed.log[2].episodes > resumed.log[1].episodes


@pytest.mark.parametrize("twin_kept", [True, False])
def test_a_deleted_learner_carry_resumes_or_starts_that_learner_over(
    reference, pool, tmp_path, capsys, twin_kept):
  """The error on an unreadable carry says to delete it; the run used to
  stop resuming once it was."""
  pipeline = _run(_pipeline(tmp_path, lambda: pool), 2)
  lost = pipeline.active[0]
  os.remove(lost.checkpoint)
  if not twin_kept:
    os.remove(p2sro.portable_path(lost.checkpoint))
  resumed = _run(_pipeline(tmp_path, lambda: pool), 3)
  said = capsys.readouterr().out
  expected = "resumes from its portable twin" if twin_kept else "starts over"
  assert f"{lost.name} {expected}" in said
  assert _timeless(resumed.log[:2]) == _timeless(reference.log[:2])
  assert resumed.log[2].env_steps == reference.log[2].env_steps
  assert resumed.log[2].episodes > resumed.log[1].episodes


def test_task_opponents_are_drawn_from_the_mixture(pool, tmp_path):
  pipeline = _run(_pipeline(tmp_path, lambda: pool, plateau_gain=10.0,
                            task_opponents=2), 4)
  table = pipeline._levels_table()  # pylint: disable=protected-access
  top = len(pipeline.active) - 1
  full = pipeline._opponents(top, table)[1]  # pylint: disable=protected-access
  task = pipeline._task(top, table)  # pylint: disable=protected-access
  assert len(full) >= 3 and 1 <= np.count_nonzero(task.weights) <= 2
  assert task.weights.sum() == pytest.approx(1)
  again = pipeline._task(top, table)  # pylint: disable=protected-access
  np.testing.assert_array_equal(again.weights, task.weights)  # Keyed draws.


def _kill_a_new_worker_once_busy(done: threading.Event) -> None:
  """SIGKILLs one worker of the next pool once both of them run (they then
  train for seconds); the shared pool's workers are left alone."""
  existing = {child.pid for child in multiprocessing.active_children()}
  while not done.is_set():
    workers = [child for child in multiprocessing.active_children()
               if child.pid not in existing]
    if len(workers) == WORKERS:
      time.sleep(1.0)
      os.kill(workers[0].pid, signal.SIGKILL)
      return
    time.sleep(0.05)


def test_a_killed_worker_loses_nothing(reference, tmp_path, capsys):
  done = threading.Event()
  killer = threading.Thread(target=_kill_a_new_worker_once_busy,
                            args=(done,))
  killer.start()
  try:
    pipeline = _run(_pipeline(tmp_path, _own_pool), 2)
  finally:
    done.set()
    killer.join()
  assert "a worker died" in capsys.readouterr().out
  _assert_same_run(pipeline, reference, 2)


def test_a_checkpoint_of_other_settings_is_refused(pool, tmp_path):
  _run(_pipeline(tmp_path, lambda: pool, learners=1), 1)
  with pytest.raises(ValueError, match="belongs to another run.*learners"):
    _pipeline(tmp_path, lambda: pool)


# Each learner plateaus at its first chance (round 2): what joins when.
@pytest.mark.parametrize("method, trained, population", [
    ("dch", [2, 2, 2], [1, 1, 1]),  # Levels, never fixed.
    ("naive", [2, 2, 2], [1, 3, 3]),  # Both join, two new ones start.
    ("psro", [1, 1, 1], [1, 2, 2]),
    ("self_play", [1, 1, 1], [1, 2, 2]),
])
def test_each_method_fixes_what_it_should(pool, tmp_path, method, trained,
                                          population):
  pipeline = _run(_pipeline(tmp_path, lambda: pool, method=method,
                            plateau_gain=10.0), 3)
  assert [len(r.mean_returns) for r in pipeline.log] == trained
  assert [r.fixed for r in pipeline.log] == population


def test_rectified_starts_a_learner_per_member_of_the_nash_support(
    pool, tmp_path):
  pipeline = _run(_pipeline(tmp_path, lambda: pool, method="rectified",
                            plateau_gain=10.0), 3)
  assert [r.fixed for r in pipeline.log] == [1, 2, 2]
  nash = pipeline.config.solve(pipeline.population.payoffs)
  support = np.flatnonzero(nash > normal_form_psro.SUPPORT_THRESHOLD)
  assert len(pipeline.log[2].mean_returns) == len(support)
  for active, member in zip(pipeline.active, support):
    beaten, weights = active.opponents
    assert member in beaten and weights.sum() == pytest.approx(1)


def _learner_state(path):
  record = p2sro.trainer_for(str(KUHN), DQN, CONFIG.num_envs).record
  return checkpoints.restore(path, record).tree.learner


def test_a_warm_started_learner_continues_from_the_fixed_ones_state(
    pool, tmp_path):
  pipeline = _run(_pipeline(tmp_path, lambda: pool, method="psro",
                            plateau_gain=10.0, warm_start=True), 2)
  fixed, (successor,) = pipeline.population.members[-1], pipeline.active
  jax.tree.map(np.testing.assert_array_equal, successor.params, fixed)
  source = _learner_state(successor.warm_from)
  _run(pipeline, 3)
  continued = _learner_state(successor.checkpoint)
  assert int(source.env_steps) == CONFIG.min_steps
  assert int(continued.env_steps) == CONFIG.min_steps + CONFIG.chunk_steps
  assert not os.path.exists(successor.warm_from)  # Kept only until used.
  # Resumed, it goes on from its own carry (not over: its source is gone).
  (resumed,) = _pipeline(tmp_path, lambda: pool, method="psro",
                         plateau_gain=10.0, warm_start=True).active
  assert (resumed.checkpoint, resumed.steps) == (successor.checkpoint,
                                                 successor.steps)


def test_a_new_learner_starts_afresh_without_warm_start(pool, tmp_path):
  pipeline = _run(_pipeline(tmp_path, lambda: pool, method="psro",
                            plateau_gain=10.0), 3)
  (successor,) = pipeline.active
  assert successor.warm_from is None
  assert int(_learner_state(successor.checkpoint).env_steps) == (
      CONFIG.chunk_steps)


@pytest.mark.parametrize("changes, message", [
    ({"method": "dch", "warm_start": True}, "warm_start=True with "
     "method='dch'"),
    ({"method": "alpharank"}, "method='alpharank'"),
    ({"learners": 0}, "learners=0"),
    ({"meta_solver": "nash"}, "meta_solver='nash'"),
    ({"uniform_mix": 1.5}, "uniform_mix=1.5"),
    ({"task_opponents": -1}, "task_opponents=-1"),
    ({"entry_standard_error": -0.1}, "entry_standard_error=-0.1"),
    ({"entry_batch": 0}, "entry_batch=0"),
    ({"method": "dch", "anchors": ("uniform",)}, "anchors=\\('uniform',\\) "
     "with method='dch'"),
])
def test_bad_settings_are_refused_naming_the_value(changes, message):
  with pytest.raises(ValueError, match=message):
    p2sro.Config(**changes)


def test_zero_workers_are_refused(tmp_path):
  with pytest.raises(ValueError, match="workers must be at least 1, got 0"):
    _pipeline(tmp_path, lambda: executors.make_executor("process", 0))


def test_a_game_no_learner_can_play_is_refused(tmp_path):
  with pytest.raises(ValueError, match="no batched JAX engine plays "
                     "tic_tac_toe"):
    p2sro.Pipeline(pyspiel.load_game("tic_tac_toe"), DQN, CONFIG,
                   str(tmp_path), lambda: None)
