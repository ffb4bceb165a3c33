"""XDO: convergence on Leduc, output an ordinary OpenSpiel policy, the log."""

import numpy as np
import pytest

from open_spiel.python.algorithms import exploitability
from open_spiel_ext.algorithms import xdo
from open_spiel_ext.algorithms.tree import sweeps


def _xdo(game_string: str, **settings) -> xdo.XDO:
  return xdo.XDO(sweeps.for_game(game_string), xdo.Config(**settings))


@pytest.fixture(name="leduc_run", scope="module")
def leduc_run_fixture():
  solver = _xdo("leduc_poker")
  log = list(solver.run(target_exploitability=0.01, max_iterations=30))
  return solver, log


def test_leduc_below_0_1_within_10_iterations(leduc_run):
  _, log = leduc_run
  first = next(entry.iteration for entry in log if entry.exploitability < 0.1)
  assert first <= 10
  assert log[-1].exploitability <= 0.01


def test_meta_policy_is_a_tabular_policy_openspiel_agrees_with(leduc_run):
  solver, log = leduc_run
  tabular = solver.tabular_policy()
  assert exploitability.exploitability(solver.tree.game, tabular) == (
      pytest.approx(log[-1].exploitability, abs=1e-9))


def test_log_is_consistent(leduc_run):
  solver, log = leduc_run
  assert [entry.iteration for entry in log] == list(range(1, len(log) + 1))
  assert all(a.wall_time <= b.wall_time for a, b in zip(log, log[1:]))
  assert all(a.histories_visited < b.histories_visited
             for a, b in zip(log, log[1:]))
  assert all(a.restricted_histories <= b.restricted_histories
             for a, b in zip(log, log[1:]))
  assert log[-1].restricted_histories <= solver.tree.num_nodes
  for entry in log:
    assert entry.restricted_exploitability <= entry.exploitability + 1e-12
  epsilons = [entry.epsilon for entry in log]
  np.testing.assert_allclose(epsilons, 0.35 * 0.98**np.arange(len(log)))


def test_restricted_game_only_grows_by_best_responses():
  solver = _xdo("k_gmp(actions=4,k=3)")
  mask_before = solver.mask.copy()
  entry = solver.step()
  assert np.all(solver.mask[mask_before])
  assert solver.mask.sum() - mask_before.sum() == entry.new_actions


def test_thesis_termination_without_a_target():
  solver = _xdo("k_gmp(actions=3,k=2)")
  log = list(solver.run(max_iterations=50))
  assert len(log) < 50 and log[-1].converged
  assert max(log[-1].best_response_gains) <= log[-1].epsilon
  assert not any(entry.converged for entry in log[:-1])


def test_clone_gmp_adds_at_most_two_actions_per_class_and_infostate():
  classes = 3
  solver = _xdo(f"clone_gmp(classes={classes},clones=4,k=2)")
  log = list(solver.run(target_exploitability=1e-3, max_iterations=30))
  assert log[-1].exploitability <= 1e-3
  per_infostate = solver.mask.sum(axis=1)
  assert per_infostate.max() <= 2 * classes


@pytest.mark.parametrize("kwargs,named", [
    ({"inner_solver": "cfr"}, "inner_solver='cfr'"),
    ({"epsilon_decay": 1.5}, "epsilon_decay=1.5"),
    ({"inner_check_every": 0}, "inner_check_every=0")])
def test_bad_arguments(kwargs, named):
  with pytest.raises(ValueError, match=named):
    _xdo("kuhn_poker", **kwargs)
