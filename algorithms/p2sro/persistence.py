"""A P2SRO run's directory: the driver's state (`state.pkl`) and the active
learners' carries (`learners/`, each with its portable twin).

The driver saves its state atomically and only then removes the carries the
state no longer names, so a run stopped anywhere resumes from a state whose
carries exist. A carry gone since (deleted as unreadable) is replaced by its
portable twin, or its learner starts over. A copy of the directory
(`RunFiles.copy_to`) resumes as the run itself would; a fork starts a new
run from another's state and carries (`RunFiles.read_parent`,
`RunFiles.copy_carries_from`).
"""

import dataclasses
import os
import shutil
from typing import Any, Mapping, Optional

import numpy as np

from open_spiel_ext.algorithms.p2sro import tasks
from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import mirror

STATE_FILE = "state.pkl"
# Settings added to Config while runs were under way, with the defaults
# that keep those runs' behaviour: their checkpoints resume.
_ADDED_SETTINGS = {"run_entry_games_per_slot": 1, "run_anchors": ()}
_CARRY_FIELDS = ("checkpoint", "warm_from")


@dataclasses.dataclass
class ActiveLearner:
  """An active learner as the driver keeps it."""
  name: str
  seed: int
  params: Any  # Its policy's parameters as of its last task.
  checkpoint: Optional[str] = None  # None until its first task.
  warm_from: Optional[str] = None  # Until then, the carry it starts from.
  steps: int = 0
  last_return: Optional[float] = None
  opponents: Optional[tuple[list[int], np.ndarray]] = None  # Rectified's.
  done: bool = False  # Rectified: plateaued, waiting for its generation.


class RunFiles:
  """The files of the run in `directory`, whose state carries `record` (the
  game and settings a resumed run must share)."""

  def __init__(self, directory: str, record: Mapping[str, Any]):
    self.directory = directory
    self._record = dict(record)

  @property
  def state_path(self) -> str:
    return os.path.join(self.directory, STATE_FILE)

  def has_state(self) -> bool:
    return os.path.exists(self.state_path)

  def carry_path(self, name: str) -> str:
    return os.path.join(self.directory, "learners", name)

  def save(self, state: dict[str, Any],
           active: list[ActiveLearner]) -> None:
    """Writes the driver's `state` atomically, then removes the carries
    `active` no longer names."""
    checkpoints.save(self.state_path, None, self._record, extra=state)
    _remove_carries_but_named(self.directory, active)

  def restore(self) -> checkpoints.Checkpoint:
    """The state `save` wrote (ValueError if its game or settings differ)."""
    return checkpoints.restore(self.state_path, self._record,
                               added=_ADDED_SETTINGS)

  def read_parent(self, parent: str,
                  anchors: tuple[str, ...]) -> checkpoints.Checkpoint:
    """The state of the run in `parent` that a fork starts from: its game
    and learners must be this run's, its method's settings may differ (but
    not its anchors, if it has any)."""
    parent_state = os.path.join(parent, STATE_FILE)
    parent_anchors = tuple(checkpoints.saved_config(parent_state).get(
        "run_anchors", ()))
    if parent_anchors and parent_anchors != anchors:
      raise ValueError(f"the run in {parent} has anchors {parent_anchors}; "
                       f"a fork keeps them, got anchors={anchors}")
    return checkpoints.restore(
        parent_state, self._record,
        may_differ=lambda name: name.startswith("run_"))

  def copy_carries_from(self, parent: str,
                        active: list[ActiveLearner]) -> None:
    """Copies the carries (and portable twins) `active` names from the run
    in `parent`; one missing there is replaced after the restore
    (`replace_missing`)."""
    os.makedirs(os.path.join(self.directory, "learners"), exist_ok=True)
    for name in _named_carries(active):
      for file_name in (name, tasks.portable_path(name)):
        source = os.path.join(parent, "learners", file_name)
        if os.path.exists(source):
          shutil.copyfile(source, self.carry_path(file_name))

  def localize(self, active: list[ActiveLearner]) -> None:
    """Points `active`'s carries into this directory, wherever the state
    was saved."""
    for learner in active:
      for field in _CARRY_FIELDS:
        if getattr(learner, field) is not None:
          setattr(learner, field, self.carry_path(
              os.path.basename(getattr(learner, field))))

  def replace_missing(self, learner: ActiveLearner) -> None:
    """A learner whose carry is gone (deleted as unreadable, as its error
    says) resumes from the carry's portable twin, if there is one, or else
    starts over; the population and the other learners resume as saved. (A
    learner that trained resumes from its checkpoint: the carry it was warm
    started from is gone once used.)"""
    path = learner.checkpoint or learner.warm_from
    if path is None or os.path.exists(path):
      return
    if os.path.exists(tasks.portable_path(path)):
      mirror.copy_file(tasks.portable_path(path), path)
      print(f"p2sro: {path} is missing: {learner.name} resumes from its "
            "portable twin (games in progress start afresh)", flush=True)
      return
    print(f"p2sro: {path} is missing: {learner.name} starts over from a "
          "new network; the population and the other learners resume",
          flush=True)
    learner.checkpoint = learner.warm_from = None
    learner.steps, learner.last_return = 0, None

  def copy_to(self, directory: str, active: list[ActiveLearner],
              trainer: tasks.Trainer, portable: bool = False) -> None:
    """Copies the state and the carries `active` names into `directory`, in
    this run's layout (a run there resumes from it), and removes the carries
    it no longer names there. With `portable`, the carries are their
    portable twins (`tasks.portable_path`)."""
    os.makedirs(os.path.join(directory, "learners"), exist_ok=True)
    for name in _named_carries(active):
      destination = os.path.join(directory, "learners", name)
      if portable:
        self._copy_portable(self.carry_path(name), destination, trainer)
      else:
        mirror.copy_file(self.carry_path(name), destination)
    mirror.copy_file(self.state_path, os.path.join(directory, STATE_FILE))
    _remove_carries_but_named(directory, active)

  def _copy_portable(self, carry_path: str, destination: str,
                     trainer: tasks.Trainer) -> None:
    """The twin a task wrote beside the carry, or (a carry from before
    twins, or one that is portable itself) the carry made portable here."""
    if os.path.exists(tasks.portable_path(carry_path)):
      mirror.copy_file(tasks.portable_path(carry_path), destination)
      return
    carry = checkpoints.restore(carry_path, trainer.record).tree
    checkpoints.save(destination, trainer.portable(carry), trainer.record)


def _named_carries(active: list[ActiveLearner]) -> set[str]:
  """The file names of the carries `active` names."""
  return {os.path.basename(a.checkpoint or a.warm_from)
          for a in active if a.checkpoint or a.warm_from}


def _remove_carries_but_named(directory: str,
                              active: list[ActiveLearner]) -> None:
  """Removes the carries (and twins) in `directory` that `active` does not
  name."""
  named = _named_carries(active)
  kept = named | {tasks.portable_path(name) for name in named}
  learners = os.path.join(directory, "learners")
  for name in set(os.listdir(learners)) - kept:
    os.remove(os.path.join(learners, name))

