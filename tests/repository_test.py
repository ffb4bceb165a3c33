"""What the repository promises a new user: its files, and the claims and
links of the README and the docs/ pages."""

import glob
import os
import re
import subprocess
import sys
from typing import Iterator

import numpy as np

import open_spiel_ext  # pylint: disable=unused-import (registers the games)
from open_spiel_ext.games.puzzles import rubiks_cube

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The pages the README sends a reader to, one per area.
AREA_PAGES = ("double_oracle", "puzzles", "cooperative", "hanabi", "stratego",
              "toolkit", "benchmarks", "games")
# The README's most lines: what it is, the set-up commands, a tour and links.
README_MAX_LINES = 300


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
  unignored = {output for output in outputs
               if not any(output == folder or output.startswith(folder + "/")
                          for folder in ignored)}
  assert not unignored


def test_slow_tests_exist_and_are_deselected_by_default():
  assert '-m "not slow"' in _read("pytest.ini")
  marked = [path for path in glob.glob(os.path.join(REPO_ROOT, "tests", "**",
                                                    "*_test.py"), recursive=True)
            if "pytest.mark.slow" in _read(path)]
  assert len(marked) >= 2


def _markdown_files() -> list[str]:
  """README.md and every page under docs/, relative to the repository root."""
  pages = glob.glob(os.path.join(REPO_ROOT, "docs", "**", "*.md"),
                    recursive=True)
  return ["README.md"] + sorted(os.path.relpath(path, REPO_ROOT)
                                for path in pages)


def _without_code_blocks(text: str) -> str:
  return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _prose(text: str) -> str:
  """The text without fenced code blocks and with inline code blanked."""
  return re.sub(r"`[^`\n]*`", "code", _without_code_blocks(text))


def _links(text: str) -> Iterator[str]:
  """The targets of the text's markdown links and images."""
  yield from re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", _prose(text))


def _anchors(text: str) -> set[str]:
  """The anchors GitHub gives the text's headings."""
  anchors = set()
  for heading in re.findall(r"^#+\s+(.*?)\s*$", _without_code_blocks(text),
                           flags=re.M):
    slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
    anchor, count = slug, 0
    while anchor in anchors:
      count += 1
      anchor = f"{slug}-{count}"
    anchors.add(anchor)
  return anchors


def test_the_readme_fits_on_a_few_screens():
  lines = len(_read("README.md").splitlines())
  assert lines <= README_MAX_LINES, (
      f"README.md has {lines} lines; move detail into a docs/ page")


def test_the_readme_links_every_area_page():
  targets = set(_links(_read("README.md")))
  missing = [page for page in AREA_PAGES
             if not any(target.split("#")[0] == f"docs/{page}.md"
                        for target in targets)]
  assert not missing, f"README.md links no docs/<page>.md for {missing}"


def test_the_readme_keeps_the_lines_ci_runs():
  lines = _read("README.md").splitlines()
  assert any(re.match(r"^pip install -c constraints.txt \. && ", line)
             for line in lines)
  assert 'pip install -c constraints.txt ".[test]" && pytest' in lines


def test_every_relative_link_in_the_readme_and_docs_resolves():
  broken = []
  for page in _markdown_files():
    for target in _links(_read(page)):
      if re.match(r"^[a-z][a-z0-9+.-]*:", target):
        continue  # A URL (https:, mailto:), not a file of the repository.
      path, _, anchor = target.partition("#")
      resolved = os.path.normpath(os.path.join(os.path.dirname(page), path))
      if path and not os.path.exists(os.path.join(REPO_ROOT, resolved)):
        broken.append(f"{page}: {target} (no {resolved})")
      elif anchor and (resolved.endswith(".md") or not path) and (
          anchor not in _anchors(_read(resolved if path else page))):
        broken.append(f"{page}: {target} (no heading #{anchor})")
  assert not broken, "broken links:\n" + "\n".join(broken)


_TOP_FOLDERS = ("games", "algorithms", "utils", "examples", "benchmarks",
                "tests", "open_spiel_ext", "docs")


def _named_paths(text: str) -> set[str]:
  """Repository paths the text names in inline code or code blocks
  (`algorithms/nxdo/driver.py`, `games/stratego/`), and the paths of the
  modules it names by import name (`open_spiel_ext.algorithms.xdo`,
  `python -m open_spiel_ext.examples.xdo`)."""
  blocks = re.findall(r"^```.*?^```", text, flags=re.S | re.M)
  code = " ".join(blocks + re.findall(r"`([^`\n]+)`",
                                      _without_code_blocks(text)))
  paths = set(re.findall(
      rf"(?<![\w./-])((?:{'|'.join(_TOP_FOLDERS)})/[\w./-]*[\w/])", code))
  for module in re.findall(r"\bopen_spiel_ext(?:\.\w+)+", text):
    parts = module.split(".")[1:]
    if not parts or parts[0] not in _TOP_FOLDERS:
      parts = ["open_spiel_ext"] + parts  # experiments, registered_games
    paths.add("/".join(parts))
  return paths


_EXTENSIONS = ("py", "md", "png", "json", "jsonl", "npz", "pkl", "txt", "sh")


def _defines(module_path: str, name: str) -> bool:
  """Whether the module file defines or imports `name`."""
  with open(os.path.join(REPO_ROOT, module_path), encoding="utf-8") as f:
    return re.search(rf"\b{re.escape(name)}\b", f.read()) is not None


def _exists_as_module(path: str) -> bool:
  """Whether `path` is a file or folder of the repository, a module
  (`algorithms/xdo` names algorithms/xdo.py), or a name a module defines
  (`algorithms/xdo/XDO` or `games/k_gmp.KGmpGame`)."""
  if os.path.exists(os.path.join(REPO_ROOT, path)) or os.path.exists(
      os.path.join(REPO_ROOT, path + ".py")):
    return True
  head, _, tail = path.rstrip("/").rpartition("/")
  module, dot, attribute = tail.partition(".")
  if dot and attribute.isidentifier() and attribute not in _EXTENSIONS:
    # games/k_gmp.KGmpGame
    head, tail = f"{head}/{module}" if head else module, attribute
  if not head:
    return False
  for module_file in (head + ".py", os.path.join(head, "__init__.py")):
    if os.path.isfile(os.path.join(REPO_ROOT, module_file)):
      return _defines(module_file, tail)
  return False


def test_every_module_path_the_docs_name_exists():
  missing = [f"{page}: {path}" for page in _markdown_files()
             for path in sorted(_named_paths(_read(page)))
             if not _exists_as_module(path)]
  assert not missing, "paths that do not exist:\n" + "\n".join(missing)


def _packages() -> list[str]:
  """Every package folder of the source tree, relative to the root."""
  return sorted(os.path.relpath(os.path.dirname(path), REPO_ROOT)
                for folder in ("games", "algorithms", "utils", "open_spiel_ext")
                for path in glob.glob(os.path.join(REPO_ROOT, folder, "**",
                                                   "__init__.py"),
                                      recursive=True))


def test_the_architecture_names_every_package_and_shared_module():
  named = {path.rstrip("/") for path in
           _named_paths(_read("docs/architecture.md"))}
  shared = [os.path.relpath(path, REPO_ROOT)
            for folder in ("utils", "open_spiel_ext/experiments")
            for path in glob.glob(os.path.join(REPO_ROOT, folder, "*.py"))
            if not path.endswith("__init__.py")]
  unnamed = [package for package in _packages()
             if not any(path == package or path.startswith(package + "/")
                        for path in named)]
  unnamed += [module for module in sorted(shared) if module not in named]
  assert not unnamed, f"docs/architecture.md does not name {unnamed}"


def test_a_stale_module_path_is_found():
  text = "`algorithms/no_such_module.py`, `open_spiel_ext.algorithms.xdo`"
  assert _named_paths(text) == {"algorithms/no_such_module.py",
                                "algorithms/xdo"}
  assert not _exists_as_module("algorithms/no_such_module.py")
  assert _exists_as_module("algorithms/xdo")
  assert _exists_as_module("algorithms/tree/")
  assert _exists_as_module("algorithms/xdo/XDO")
  assert not _exists_as_module("algorithms/xdo/NoSuchSolver")
  assert not _exists_as_module("algorithms/tree/no_such_module")
  assert not _exists_as_module("algorithms/tree.py")


def test_the_puzzles_page_two_by_two_example_starts_unsolved():
  command = next(line for line in _read("docs/puzzles.md").splitlines()
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
