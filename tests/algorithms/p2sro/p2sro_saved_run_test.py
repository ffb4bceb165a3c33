"""A saved P2SRO run read back (`p2sro.saved_run`): its learners' settings
come back as the config class of the learner module its record names."""

import dataclasses
import os

import pytest

from open_spiel_ext.algorithms import p2sro
from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.algorithms.rl import ppo
from open_spiel_ext.algorithms.rl import sac
from open_spiel_ext.utils import checkpoints

CONFIG = p2sro.Config(learners=2, chunk_steps=64)


def _save_run(directory: str, learner: str, learner_config) -> None:
  """A driver's state as `p2sro.Pipeline` records it, naming `learner`."""
  record = {"game": "kuhn_poker", "learner": learner,
            **dataclasses.asdict(learner_config),
            **{f"run_{k}": v for k, v in dataclasses.asdict(CONFIG).items()},
            "exact_payoffs": True, "engine_auto_reset": True}
  checkpoints.save(os.path.join(directory, p2sro.STATE_FILE), None, record)


# Records name the module of their learners' config; these names must stay
# readable whatever moves.
@pytest.mark.parametrize("learner, learner_config", [
    ("open_spiel_ext.algorithms.rl.dqn", dqn.Config(hidden_sizes=(8,))),
    ("open_spiel_ext.algorithms.rl.ppo", ppo.Config(rollout_length=8)),
    ("open_spiel_ext.algorithms.rl.sac", sac.Config(learning_rate=0.01)),
])
def test_a_saved_run_gives_back_its_settings(tmp_path, learner,
                                             learner_config):
  _save_run(str(tmp_path), learner, learner_config)
  assert p2sro.saved_run(str(tmp_path)) == p2sro.SavedRun(
      "kuhn_poker", learner_config, CONFIG, {"auto_reset": True})


def test_a_run_of_an_unknown_learner_module_is_refused_naming_it(tmp_path):
  _save_run(str(tmp_path), "open_spiel_ext.algorithms.rl.a2c", dqn.Config())
  with pytest.raises(ValueError, match=r"learners of "
                     r"open_spiel_ext\.algorithms\.rl\.a2c, not of a known"):
    p2sro.saved_run(str(tmp_path))
