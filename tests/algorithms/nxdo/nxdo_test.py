"""Tests of the NXDO loop with its oracles, solvers and schedules."""

import dataclasses
import itertools

import jax.numpy as jnp
import numpy as np
import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability
from open_spiel_ext.algorithms.nxdo import driver
from open_spiel_ext.algorithms.nxdo import meta_ne as meta_ne_lib
from open_spiel_ext.algorithms.nxdo import oracles
from open_spiel_ext.algorithms.nxdo import restricted_game
from open_spiel_ext.algorithms.nxdo import solvers
from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.algorithms.rl import evaluation
from open_spiel_ext.algorithms.rl import nfsp
from open_spiel_ext.algorithms.tree import policies as tree_policies
from open_spiel_ext.games import batched_poker
from open_spiel_ext.games import engines
import pyspiel


@pytest.mark.parametrize("variant", restricted_game.VARIANTS)
def test_nxdo_with_exact_oracle_and_solver_solves_kuhn(variant):
  game = pyspiel.load_game("kuhn_poker")
  oracle = oracles.ExactOracle(game)
  run = driver.NXDO(game, batched_poker.kuhn_poker(auto_reset=True), oracle,
                    solvers.ExactSolver(game), variant)
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


@pytest.mark.parametrize("variant", restricted_game.VARIANTS)
def test_exact_nxdo_on_clone_leduc_is_exact_nxdo_on_leduc(variant):
  """Exact best responses and CFR+ on the restricted game see m-Clone Leduc
  through its collapse onto Leduc: the same meta-NEs, iteration by
  iteration, whichever copies the members play."""
  logs = []
  for name, env in (("leduc_poker", batched_poker.leduc_poker),
                    ("xdo_clone_leduc(clones=3)", None)):
    game = pyspiel.load_game(name)
    env = (env(auto_reset=True) if env else
           engines.make(game, auto_reset=True))
    run = driver.NXDO(game, env, oracles.ExactOracle(game),
                      solvers.ExactSolver(game, iterations=200), variant)
    logs.append([run.step() for _ in range(3)])
  for leduc, clones in zip(*logs):
    assert clones.exploitability == pytest.approx(leduc.exploitability,
                                                  abs=1e-6)
    assert clones.restricted_exploitability == pytest.approx(
        leduc.restricted_exploitability, abs=1e-6)
  assert logs[0][2].exploitability < logs[0][0].exploitability


def _best_restricted_value(game, tree, table, played, player):
  """OpenSpiel's value for `player` of its best pure strategy that plays
  only `played` actions, against `table` (a policy array of `tree`)."""
  rows = np.flatnonzero(tree.infoset_player == player)
  best = -np.inf
  for choice in itertools.product(*(np.flatnonzero(played[r]) for r in rows)):
    pure = table.copy()
    pure[rows] = 0.0
    pure[rows, choice] = 1.0
    tabular = tree_policies.to_tabular(tree, pure)
    best = max(best, expected_game_score.policy_value(
        game.new_initial_state(), [tabular, tabular])[player])
  return best


def test_run_yields_iterations_up_to_its_limit_resumed_runs_included(
    tmp_path):
  game = pyspiel.load_game("kuhn_poker")

  def nxdo():
    return driver.NXDO(game, batched_poker.kuhn_poker(auto_reset=True),
                       oracles.ExactOracle(game), solvers.ExactSolver(game),
                       directory=str(tmp_path))

  with pytest.raises(ValueError, match="needs a limit"):
    next(nxdo().run())
  first = list(nxdo().run(max_iterations=2))
  assert [entry.iteration for entry in first] == [0, 1]
  resumed = nxdo()
  assert not list(resumed.run(max_iterations=2))
  assert [e.iteration for e in resumed.run(max_iterations=3)] == [2]
  assert not list(nxdo().run(max_iterations=9, max_episodes=0))


def test_restricted_exploitability_is_openspiels_on_kuhn():
  """The exact exploitability within a restricted game (best responses that
  play only the members' actions) equals OpenSpiel's value of the best
  such pure strategies, enumerated, against a meta-policy that is no
  equilibrium."""
  game = pyspiel.load_game("kuhn_poker")
  oracle = oracles.ExactOracle(game)
  run = driver.NXDO(game, batched_poker.kuhn_poker(auto_reset=True), oracle,
                    solvers.ExactSolver(game))
  run.step()
  run.step()
  restricted = run.restricted_game()
  tree = oracle.sweeps.tree
  meta_table = np.random.default_rng(0).dirichlet(
      np.ones(restricted.capacity), size=len(tree.legal))
  tables = oracles.TabularMembers(oracle.sweeps.tree)
  meta_ne = meta_ne_lib.meta_policy(restricted, tables.apply,
                                    tables.params(meta_table))
  exact = evaluation.OpponentExploitability(game)
  ours = meta_ne_lib.restricted_exploitability(restricted, meta_ne, exact)
  played = np.stack([oracle.members.policy(member) > 0.5
                     for member in run.members]).any(axis=0) & tree.legal
  assert not played[tree.legal].all()  # A true restriction.
  table = evaluation.opponent_policy(exact.sweeps, 1, meta_ne)
  openspiels = np.mean([_best_restricted_value(game, tree, table, played, p)
                        for p in (0, 1)])
  assert ours == pytest.approx(openspiels, abs=1e-9)
  assert 0 < ours <= exploitability.exploitability(
      game, tree_policies.to_tabular(tree, table)) + 1e-12


def test_exact_solve_counts_a_near_tied_member_as_its_most_probable_action():
  """A learned best response's greedy logits leave near-tied values mixed:
  NXDO's exact solve then takes the member's most probable action, as if
  the member were pure there."""
  game = pyspiel.load_game("kuhn_poker")
  env = batched_poker.kuhn_poker(auto_reset=True)
  oracle = oracles.ExactOracle(game)
  run = driver.NXDO(game, env, oracle, solvers.ExactSolver(game))
  run.step()
  run.step()
  row = 3  # An information state, in the members' parameters' order.

  def solve(probabilities):
    members = list(run.members)
    members[1] = members[1].at[row].set(jnp.log(jnp.array(probabilities)))
    return solvers.ExactSolver(game).solve(
        restricted_game.RestrictedGame(env, oracle.apply, members), 2,
        []).meta_params

  mixing = solve([0.4, 0.6])
  np.testing.assert_array_equal(mixing, solve([1e-30, 1.0]))
  assert not np.array_equal(mixing, solve([1.0, 1e-30]))  # The row counts.


def test_threshold_schedule_halves_after_weak_responses():
  schedule = solvers.Schedule(warm_start_iterations=2, threshold_start=1.0,
                              threshold_floor=0.2, threshold_margin=0.05)
  returns = [3.0, 2.0, 1.5, 0.9, 0.6, 0.1, 0.1]
  thresholds = [schedule.threshold(returns, i) for i in range(2, 7)]
  assert thresholds == [1.0, 0.5, 0.5, 0.25, 0.2]
  growing = solvers.Schedule(kind="growing", warm_start_iterations=1,
                             start_steps=100, growth=1.5)
  assert [growing.steps(i) for i in (1, 2, 3)] == [100, 150, 225]


def _learned_oracle(env):
  return oracles.LearnedOracle(
      env, dqn.Config(hidden_sizes=(32,), learning_starts=50, batch_size=32,
                      epsilon_decay_steps=100),
      check_steps=50, max_steps=100, num_envs=8)


def _nfsp_solver(**schedule):
  return solvers.NFSPSolver(
      nfsp.Config(average_hidden_sizes=(32,), average_batch_size=32),
      solvers.Schedule(**{"warm_start_iterations": 1, "min_steps": 50,
                          "max_steps": 100, "check_steps": 50, **schedule}),
      num_envs=8)


def _learned_run(directory, variant="nxdo", **schedule):
  env = batched_poker.kuhn_poker(auto_reset=True)
  return driver.NXDO(pyspiel.load_game("kuhn_poker"), env,
                     _learned_oracle(env), _nfsp_solver(**schedule), variant,
                     directory=directory)


@pytest.mark.slow
def test_learned_parts_swap_for_their_exact_counterparts():
  """Learned best responses with CFR+ on the restricted game solve each
  restricted game; exact best responses with NFSP make pure tabular
  members that NFSP's restricted game plays."""
  game = pyspiel.load_game("kuhn_poker")
  env = batched_poker.kuhn_poker(auto_reset=True)
  exact_solve = driver.NXDO(game, env, _learned_oracle(env),
                            solvers.ExactSolver(game))
  for _ in range(2):
    entry = exact_solve.step()
    assert 0 <= entry.restricted_exploitability < 1e-3
  exact_responses = driver.NXDO(game, env, oracles.ExactOracle(game),
                                _nfsp_solver())
  entries = [exact_responses.step() for _ in range(2)]
  # Iteration 0 takes NFSP's untrained policy; iteration 1 trains it.
  assert entries[1].episodes > 0
  assert 0 <= entries[1].restricted_exploitability <= (
      entries[1].exploitability + 1e-9)


def _timeless(log):
  return [dataclasses.replace(entry, wall_time=0.0) for entry in log]


@pytest.mark.slow
def test_exact_signal_resumes_mid_solve_as_if_never_stopped(tmp_path):
  """The solve of iteration 1 checks the exact signal twice (it may stop at
  100 steps, no sooner); stopped at its second check, after the first
  chunk's checkpoint, the run resumes to the log of a run never stopped."""
  tight = {"min_steps": 100}
  whole = _learned_run(str(tmp_path / "whole"), **tight)
  expected = [whole.step(), whole.step()]
  stopped = _learned_run(str(tmp_path / "stopped"), **tight)
  stopped.step()
  measure, checks = stopped._measure, []  # pylint: disable=protected-access

  def interrupted(restricted):
    exact = measure(restricted)

    def checked(meta_apply, meta_params):
      checks.append(exact(meta_apply, meta_params))
      if len(checks) == 2:
        raise KeyboardInterrupt
      return checks[-1]
    return checked

  stopped._measure = interrupted  # pylint: disable=protected-access
  with pytest.raises(KeyboardInterrupt):
    stopped.step()
  resumed = _learned_run(str(tmp_path / "stopped"), **tight)
  resumed.step()
  assert _timeless(resumed.log) == _timeless(expected)
  assert len(checks) == 2 and 0 <= checks[0] < np.inf


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
  with pytest.raises(ValueError, match="signal='estimate'"):
    solvers.Schedule(signal="estimate")
  game = pyspiel.load_game("kuhn_poker")
  oracle = oracles.LearnedOracle(env, dqn.Config())
  with pytest.raises(ValueError, match="signal='nfsp_estimate'"):
    driver.NXDO(game, env, oracle, solvers.NFSPSolver(), evaluator=None)
  driver.NXDO(game, env, oracle, solvers.NFSPSolver(
      schedule=solvers.Schedule(signal="nfsp_estimate")), evaluator=None)
  with pytest.raises(ValueError, match="max_steps must be > 0"):
    oracles.LearnedOracle(env, dqn.Config(), max_steps=0)
