"""What the repository promises a new user: its files and the README's claims."""

import glob
import os
import re
import subprocess
import sys

import numpy as np

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.games.puzzles import rubiks_cube

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(path: str) -> str:
  with open(os.path.join(REPO_ROOT, path), encoding="utf-8") as f:
    return f.read()


def test_the_license_is_the_one_setup_py_names():
  assert 'license="Apache 2.0"' in _read("setup.py")
  text = _read("LICENSE")
  assert "Apache License" in text and "Version 2.0, January 2004" in text
  assert "END OF TERMS AND CONDITIONS" in text


def test_comments_point_to_the_architecture_in_the_repository():
  assert "## Repository layout" in _read("docs/architecture.md")
  sources = [path for pattern in ("**/*.py", "**/*.md", "BUILD")
             for path in glob.glob(os.path.join(REPO_ROOT, pattern),
                                   recursive=True)
             if "/build/" not in path and "/.git/" not in path and
             os.path.abspath(path) != os.path.abspath(__file__)]
  assert sources
  mentions = [path for path in sources if "DESIGN.md" in _read(path)]
  assert not mentions, f"{mentions} point to a DESIGN.md the repository lacks"


def _default_outputs() -> set[str]:
  """The relative default paths of every --output_dir and --output flag."""
  found = set()
  for path in glob.glob(os.path.join(REPO_ROOT, "examples", "*.py")) + (
      glob.glob(os.path.join(REPO_ROOT, "benchmarks", "*.py"))):
    found.update(re.findall(
        r'DEFINE_string\(\s*"output(?:_dir)?",\s*"([^"/][^"]*)"', _read(path)))
  return found


def test_gitignore_covers_every_default_output():
  ignored = {line.strip().strip("/") for line in
             _read(".gitignore").splitlines() if line.strip()}
  outputs = _default_outputs()
  assert {"xdo_output", "capi_output", "tiny_hanabi_baselines",
          "davi_output"} <= outputs
  assert outputs <= ignored


def test_slow_tests_exist_and_are_deselected_by_default():
  assert '-m "not slow"' in _read("pytest.ini")
  marked = [path for path in glob.glob(os.path.join(REPO_ROOT, "tests", "**",
                                                    "*_test.py"), recursive=True)
            if "pytest.mark.slow" in _read(path)]
  assert len(marked) >= 2


def test_the_readme_two_by_two_example_starts_unsolved():
  command = next(line for line in _read("README.md").splitlines()
                 if "deepcubea_solve" in line and "--size=2" in line)
  state = re.search(r'--state="([^"]+)"', command).group(1)
  cube = rubiks_cube.RubiksCube(2)
  start = cube.parse(state)  # A real cube, or this raises.
  assert not cube.is_goal(start)


def test_games_tour_writes_nothing_and_keeps_lines_short(tmp_path):
  result = subprocess.run(
      [sys.executable, "-m", "open_spiel_ext.examples.games_tour",
       "--games=barrage_stratego", "--games=sokoban"],
      capture_output=True, text=True, timeout=300, cwd=tmp_path, check=True)
  assert not list(tmp_path.iterdir())
  lengths = np.array([len(line) for line in result.stdout.splitlines()])
  assert lengths.max() <= 100
  assert "moves: " in result.stdout and "more)" in result.stdout
