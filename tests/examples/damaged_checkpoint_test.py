"""Every resumable example refuses a damaged checkpoint, or another run's, in
one line naming it, `<example>: error: checkpoint <path> ...`, exit code 2,
where each was an UnpicklingError or EOFError traceback."""

import re
import subprocess
import sys

import pytest

from open_spiel_ext.utils import checkpoints
from open_spiel_ext.utils import cli

# (example, its flags, the checkpoint it resumes, relative to --output_dir).
RESUMABLE = [
    ("nfsp", ["--game=kuhn_poker"], "checkpoint.pkl"),
    ("best_response", ["--game=kuhn_poker"], "checkpoint.pkl"),
    ("deepcubea_train", ["--puzzle=lights_out", "--size=3"],
     "checkpoint.pkl"),
    ("capi", ["--game=tiny_hanabi_a", "--seeds=0"], "checkpoint_seed0.pkl"),
    ("p2sro", ["--game=kuhn_poker"], "population/state.pkl"),
    ("stratego_p2sro", [], "population/state.pkl"),
    ("nxdo", ["--game=kuhn_poker"], "run/state.pkl"),
    ("hanabi_train", ["--preset=small"], "checkpoint.pkl"),
    ("hanabi_belief_train", ["--preset=small"], "checkpoint.pkl"),
]


@pytest.mark.parametrize("example,flags,checkpoint", RESUMABLE,
                         ids=[example for example, _, _ in RESUMABLE])
def test_a_truncated_checkpoint_is_one_line_naming_it(tmp_path, example,
                                                     flags, checkpoint):
  """(Empty and garbage files: tests/utils/utils_test.py.)"""
  path = tmp_path / checkpoint
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_bytes(b"\x80\x04\x95")  # A pickle cut after its header.
  _assert_refused(example, flags, tmp_path,
                  f"checkpoint {re.escape(str(path))} cannot be read")


@pytest.mark.parametrize("example,flags,checkpoint", RESUMABLE,
                         ids=[example for example, _, _ in RESUMABLE])
def test_another_runs_checkpoint_is_one_line_naming_it(tmp_path, example,
                                                       flags, checkpoint):
  """A checkpoint saved under other settings (here: a setting none of the
  examples has) is refused by name, not resumed or misread."""
  path = tmp_path / checkpoint
  checkpoints.save(str(path), (), {"setting_of_another_run": 1})
  _assert_refused(example, flags, tmp_path,
                  f"checkpoint {re.escape(str(path))} belongs to another run"
                  ".*setting_of_another_run")


def _assert_refused(example, flags, output_dir, message) -> None:
  result = subprocess.run(
      [sys.executable, "-m", f"open_spiel_ext.examples.{example}", *flags,
       f"--output_dir={output_dir}"], capture_output=True, text=True,
      timeout=300)
  assert result.returncode == cli.USAGE_ERROR_EXIT_CODE, result.stderr[-2000:]
  assert "Traceback" not in result.stderr
  assert re.match(f"{example}: error: (--output_dir: )?{message}",
                  result.stderr.strip().splitlines()[-1])
