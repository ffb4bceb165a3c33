"""Copies of a run's small outputs in a second folder, each file whole.

A long run keeps its checkpoint where it runs (`--output_dir`) and copies
what resumes or shows it (a model, metrics, a plot) into a mirror folder
that survives the machine (`runs/`, committed as it goes). A reader of the
mirror never sees half a file: each copy is written beside its target and
renamed into place.
"""

import os
import shutil
from typing import Sequence


def copy_file(source: str, destination: str) -> None:
  """Copies `source` to `destination`, replacing it whole: written beside
  it, then renamed into place."""
  partial = destination + ".partial"
  shutil.copyfile(source, partial)
  os.replace(partial, destination)


def copy_files(source_dir: str, mirror_dir: str,
               names: Sequence[str]) -> None:
  """Copies each file `names` of `source_dir` that exists into
  `mirror_dir` (made if missing), replacing the mirror's copy whole."""
  os.makedirs(mirror_dir, exist_ok=True)
  for name in names:
    source = os.path.join(source_dir, name)
    if os.path.exists(source):
      copy_file(source, os.path.join(mirror_dir, name))


def resume_from(mirror_dir: str, output_dir: str, marker: str) -> bool:
  """Copies `mirror_dir` into `output_dir` where the mirror holds a run
  (its file `marker`, a path relative to both) and `output_dir` none: on a
  new machine, the same command then resumes the run. Whether it copied."""
  if (not os.path.exists(os.path.join(mirror_dir, marker)) or
      os.path.exists(os.path.join(output_dir, marker))):
    return False
  shutil.copytree(mirror_dir, output_dir, dirs_exist_ok=True)
  print(f"resuming the run mirrored in {mirror_dir}")
  return True
