"""Every example that writes checks where before any work: an --output_dir
that is a file (or an --output that is a folder) is one line,
`<example>: error: --output_dir: ...`, and exit code 2, where it was a
traceback at the end of the work or after its first chunk of training."""

import glob
import os
import re
import subprocess
import sys

import pytest

from open_spiel_ext.utils import cli

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# Flags an example requires besides where it writes.
REQUIRED = {"upstream": ["--game=k_gmp"]}


def _examples_with(flag: str) -> list[str]:
  """The examples that define a string flag named `flag`."""
  pattern = re.compile(r'DEFINE_string\(\s*"' + flag + '"')
  return sorted(
      os.path.basename(path)[:-3]
      for path in glob.glob(os.path.join(REPO_ROOT, "examples", "*.py"))
      if pattern.search(open(path, encoding="utf-8").read()))


def _refused(example: str, flag: str, value: str) -> str:
  result = subprocess.run(
      [sys.executable, "-m", f"open_spiel_ext.examples.{example}",
       f"--{flag}={value}", *REQUIRED.get(example, [])],
      capture_output=True, text=True, timeout=120)
  assert result.returncode == cli.USAGE_ERROR_EXIT_CODE, result.stderr
  assert "Traceback" not in result.stderr
  return result.stderr.strip().splitlines()[-1]


def test_the_examples_that_write_are_found():
  assert len(_examples_with(cli.OUTPUT_DIR_FLAG)) >= 15
  assert _examples_with(cli.OUTPUT_FILE_FLAG) == [
      "generate_sokoban_levels", "puzzle_test_set"]


@pytest.mark.parametrize("example", _examples_with(cli.OUTPUT_DIR_FLAG))
def test_an_output_dir_that_is_a_file_is_refused_first(example, tmp_path):
  path = tmp_path / "a_file"
  path.write_text("")
  assert _refused(example, cli.OUTPUT_DIR_FLAG, str(path)) == (
      f"{example}: error: --output_dir: {path} is a file, not a folder")


@pytest.mark.parametrize("example", _examples_with(cli.OUTPUT_FILE_FLAG))
def test_an_output_that_is_a_folder_is_refused_first(example, tmp_path):
  assert _refused(example, cli.OUTPUT_FILE_FLAG, str(tmp_path)) == (
      f"{example}: error: --output: {tmp_path} is a folder, not a file")
