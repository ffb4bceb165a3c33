"""Tests of the NXDO loop with its oracles, solvers and schedules."""

import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel.python.algorithms import exploitability
from open_spiel_ext.algorithms.nxdo import driver
from open_spiel_ext.algorithms.nxdo import oracles
from open_spiel_ext.algorithms.nxdo import restricted_game
from open_spiel_ext.algorithms.nxdo import solvers
from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.algorithms.rl import nfsp
from open_spiel_ext.games import batched_poker
import pyspiel


@pytest.mark.parametrize("variant", restricted_game.VARIANTS)
def test_nxdo_with_exact_oracle_and_solver_solves_kuhn(variant):
  game = pyspiel.load_game("kuhn_poker")
  oracle = oracles.ExactOracle(game)
  run = driver.NXDO(game, batched_poker.kuhn_poker(auto_reset=True), oracle,
                    solvers.ExactSolver(oracle), variant)
  for _ in range(8):
    entry = run.step()
    # CFR+ solves each restricted game: its meta-NE is unexploitable there
    # (trivially with one pure member), not necessarily in the whole game.
    assert -1e-9 <= entry.restricted_exploitability < 1e-3
    assert entry.restricted_exploitability <= entry.exploitability + 1e-9
    assert entry.solver_estimate is None
    if entry.exploitability < 1e-3:
      break
  assert entry.exploitability < 1e-3
  assert run.log[0].restricted_exploitability == pytest.approx(0, abs=1e-9)
  assert run.log[0].exploitability > 0.1
  assert entry.iteration <= 5  # Tabular XDO needs 4 on Kuhn.
  assert exploitability.exploitability(game, run.tabular_policy()) == (
      pytest.approx(entry.exploitability, abs=1e-9))


def test_threshold_schedule_halves_after_weak_responses():
  schedule = solvers.Schedule(warm_start_iterations=2, threshold_start=1.0,
                              threshold_floor=0.2, threshold_margin=0.05)
  returns = [3.0, 2.0, 1.5, 0.9, 0.6, 0.1, 0.1]
  thresholds = [schedule.threshold(returns, i) for i in range(2, 7)]
  assert thresholds == [1.0, 0.5, 0.5, 0.25, 0.2]
  growing = solvers.Schedule(kind="growing", warm_start_iterations=1,
                             start_steps=100, growth=1.5)
  assert [growing.steps(i) for i in (1, 2, 3)] == [100, 150, 225]


def _learned_run(directory, variant="nxdo"):
  game = pyspiel.load_game("kuhn_poker")
  env = batched_poker.kuhn_poker(auto_reset=True)
  oracle = oracles.LearnedOracle(
      env, dqn.Config(hidden_sizes=(32,), learning_starts=50, batch_size=32,
                      epsilon_decay_steps=100),
      check_steps=50, max_steps=100, num_envs=8)
  solver = solvers.NFSPSolver(
      nfsp.Config(average_hidden_sizes=(32,), average_batch_size=32),
      solvers.Schedule(warm_start_iterations=1, min_steps=50, max_steps=100,
                       check_steps=50), num_envs=8)
  return driver.NXDO(game, env, oracle, solver, variant, directory=directory)


@pytest.mark.slow
def test_learned_nxdo_resumes_its_run(tmp_path):
  run = _learned_run(str(tmp_path))
  first = [run.step(), run.step()]
  assert first[1].episodes > first[0].episodes > 0
  resumed = _learned_run(str(tmp_path))
  assert resumed.log == first and len(resumed.members) == 3
  entry = resumed.step()
  assert (entry.iteration, entry.population) == (2, 3)
  assert 0 <= entry.exploitability < 2
  assert 0 <= entry.restricted_exploitability <= entry.exploitability + 1e-9
  assert np.isfinite(entry.solver_estimate)  # NFSP's, after warm start.
  with pytest.raises(ValueError, match="variant='nxdo_va' here"):
    _learned_run(str(tmp_path), "nxdo_va")


def test_bad_schedules_and_oracles_are_refused():
  env = batched_poker.kuhn_poker(auto_reset=True)
  with pytest.raises(ValueError, match="kind must be"):
    solvers.Schedule(kind="fixed")
  with pytest.raises(ValueError, match="growth must be >= 1"):
    solvers.Schedule(growth=0.5)
  with pytest.raises(ValueError, match="max_steps must be > 0"):
    oracles.LearnedOracle(env, dqn.Config(), max_steps=0)
