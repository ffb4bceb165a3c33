"""Pipeline PSRO and its rivals with learned best responses, on Kuhn poker,
measured exactly."""

import pytest

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.games import batched_poker
import pyspiel

KUHN = pyspiel.load_game("kuhn_poker")
DQN = dqn.Config(learning_starts=500, epsilon_decay_steps=1000)


def _pipeline(method, **changes):
  settings = p2sro.Settings(method=method, learners=2, chunk_steps=500,
                            min_steps=1000, fictitious_play_iterations=2000,
                            **changes)
  return p2sro.Pipeline(KUHN, batched_poker.kuhn_poker(auto_reset=True), DQN,
                        settings)


def test_p2sro_fixes_only_its_lowest_level_and_gets_less_exploitable():
  pipeline = _pipeline("p2sro")
  rounds = [pipeline.step() for _ in range(10)]
  growth = [b.fixed - a.fixed for a, b in zip(rounds, rounds[1:])]
  assert set(growth) <= {0, 1}
  assert rounds[-1].fixed >= 3
  assert rounds[-1].exploitability < 0.35 < rounds[0].exploitability


def test_dch_never_fixes_a_level():
  pipeline = _pipeline("dch")
  rounds = [pipeline.step() for _ in range(3)]
  assert all(r.fixed == 1 for r in rounds)


@pytest.mark.parametrize("changes, message", [
    ({"method": "alpharank"}, "method='alpharank'"),
    ({"learners": 0}, "learners=0"),
    ({"uniform_mix": 1.5}, "uniform_mix=1.5"),
])
def test_bad_settings_are_refused_naming_the_value(changes, message):
  with pytest.raises(ValueError, match=message):
    p2sro.Settings(**changes)
