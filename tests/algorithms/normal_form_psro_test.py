"""Population methods on symmetric normal-form games: the thesis's
counterexample to rectified PSRO, and P2SRO with exact best responses
equalling double oracle (its Proposition 2)."""

import numpy as np
import pytest

from open_spiel_ext.algorithms import meta_solvers
from open_spiel_ext.algorithms import normal_form_psro as nf
from open_spiel_ext.utils import executors

try:
  import ray  # pylint: disable=g-import-not-at-top
except ImportError:
  ray = None

EXACT = nf.Config(learning_rate=1.0, threshold=1e-9, meta_solver="lp",
                  learners=3)
ROCK = np.eye(4)[0]
DOMINANT = 3  # The counterexample's fourth strategy.


def test_rectified_psro_never_finds_the_dominant_strategy_and_p2sro_does():
  payoffs = nf.rps_with_dominant_strategy()
  rectified_curve, rectified = nf.run("rectified", payoffs, EXACT, 30,
                                      first=ROCK)
  p2sro_curve, p2sro = nf.run("p2sro", payoffs, EXACT, 30, first=ROCK)
  assert all(policy[DOMINANT] == 0 for policy in rectified)
  assert min(rectified_curve) >= 0.4 - 1e-9
  assert any(policy[DOMINANT] == 1 for policy in p2sro)
  assert p2sro_curve[-1] == pytest.approx(0, abs=1e-9)


def _double_oracle(payoffs: np.ndarray, first: np.ndarray) -> list[int]:
  """Double oracle's best responses (pure strategies), in order."""
  population, added = [first], []
  while True:
    stacked = np.stack(population)
    weights = meta_solvers.lp(stacked @ payoffs @ stacked.T)[0]
    response = int(np.argmax(payoffs @ (weights @ stacked)))
    if any(np.array_equal(p, np.eye(len(payoffs))[response])
           for p in population):
      return added
    population.append(np.eye(len(payoffs))[response])
    added.append(response)


def test_p2sro_with_exact_best_responses_is_double_oracle():
  payoffs = nf.random_symmetric_game(20, np.random.default_rng(4))
  first = np.eye(20)[0]
  curve, fixed = nf.run("p2sro", payoffs, EXACT, 200, first=first)
  expected = _double_oracle(payoffs, first)
  assert [int(np.argmax(p)) for p in fixed[1:len(expected) + 1]] == expected
  assert curve[-1] == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize("method", nf.METHODS)
def test_every_method_runs_and_reports_each_iteration(method):
  payoffs = nf.random_symmetric_game(12, np.random.default_rng(0))
  curve, fixed = nf.run(method, payoffs, nf.Config(learners=2), 15,
                        seed=1)
  assert len(curve) == 15 and all(value >= 0 for value in curve)
  assert all(p.sum() == pytest.approx(1) for p in fixed)


def test_bad_input_is_refused_naming_it():
  payoffs = nf.rps_with_dominant_strategy()
  with pytest.raises(ValueError, match="'anneal'"):
    nf.run("anneal", payoffs, nf.Config(), 1)
  with pytest.raises(ValueError, match="antisymmetric"):
    nf.run("psro", np.ones((3, 3)), nf.Config(), 1)
  with pytest.raises(ValueError, match="learning_rate=1.5"):
    nf.Config(learning_rate=1.5)
  with pytest.raises(ValueError, match="meta_solver='alpharank'"):
    nf.Config(meta_solver="alpharank")


def _runs_on(executor):
  """Every method with exact best responses on two games, as executor
  tasks, in submission order."""
  games = [nf.random_symmetric_game(15, np.random.default_rng(seed))
           for seed in range(2)]
  futures = [executor.submit(nf.run, method, payoffs, EXACT, 20, seed=seed)
             for method in nf.METHODS
             for seed, payoffs in enumerate(games)]
  return executors.results(futures)


@pytest.mark.skipif(ray is None, reason="Ray is not installed "
                    "(pip install '.[ray]')")
def test_runs_on_ray_equal_the_process_pools_exactly():
  with executors.make_executor("process", workers=1) as executor:
    local = _runs_on(executor)
  with executors.make_executor("ray", workers=1) as executor:
    on_ray = _runs_on(executor)
  for (local_curve, local_fixed), (ray_curve, ray_fixed) in zip(local,
                                                                 on_ray):
    assert local_curve == ray_curve
    np.testing.assert_array_equal(local_fixed, ray_fixed)
