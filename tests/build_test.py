"""BUILD names every Python source: evaluated as Python with stub rules."""

import glob
import os

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKED_FOLDERS = ("open_spiel_ext", "games", "algorithms", "utils", "examples",
                   "benchmarks", "tests")


def evaluate_build(path: str) -> list[dict]:
  """Runs a BUILD file with stub rules; returns each rule's attributes."""
  rules = []

  def rule(kind):
    def record(**attributes):
      rules.append(dict(attributes, kind=kind))
    return record

  def build_glob(patterns, exclude=()):
    return sorted(
        {os.path.relpath(match, REPO_ROOT) for pattern in patterns
         for match in glob.glob(os.path.join(REPO_ROOT, pattern),
                                recursive=True)} - set(exclude))

  namespace = {
      "__builtins__": {"len": len},  # Starlark's builtins the BUILD uses.
      "load": lambda *args: None,
      "package": lambda **attributes: None,
      "glob": build_glob,
      "py_library": rule("py_library"),
      "py_binary": rule("py_binary"),
      "py_test": rule("py_test"),
  }
  with open(path, encoding="utf-8") as f:
    exec(compile(f.read(), path, "exec"), namespace)  # pylint: disable=exec-used
  return rules


@pytest.fixture(name="rules", scope="module")
def rules_fixture():
  return evaluate_build(os.path.join(REPO_ROOT, "BUILD"))


def python_sources() -> set[str]:
  return {
      os.path.relpath(path, REPO_ROOT) for folder in CHECKED_FOLDERS
      for path in glob.glob(os.path.join(REPO_ROOT, folder, "**", "*.py"),
                            recursive=True)
  }


def test_every_python_file_is_in_some_srcs(rules):
  named = {src for rule in rules for src in rule.get("srcs", [])}
  assert python_sources() - named == set()


def test_every_named_source_exists(rules):
  for rule in rules:
    for src in rule.get("srcs", []) + rule.get("data", []):
      assert os.path.exists(os.path.join(REPO_ROOT, src)), (rule["name"], src)


def test_a_py_test_per_test_file(rules):
  tests = {rule["name"] for rule in rules if rule["kind"] == "py_test"}
  test_files = {os.path.basename(path)[:-3] for path in python_sources()
                if path.endswith("_test.py")}
  assert tests == test_files


def test_a_py_binary_per_example_and_benchmark(rules):
  """And one for `python -m open_spiel_ext MODULE` (open_spiel_ext's
  __main__.py)."""
  binaries = {rule["main"] for rule in rules if rule["kind"] == "py_binary"}
  libraries = {src for rule in rules if rule["kind"] == "py_library"
               for src in rule["srcs"]}
  scripts = {path for path in python_sources()
             if path.startswith(("examples/", "benchmarks/"))} - libraries
  assert binaries == scripts | {"open_spiel_ext/__main__.py"}


def test_a_py_library_per_package(rules):
  libraries = {rule["name"] for rule in rules if rule["kind"] == "py_library"}
  assert {"open_spiel_ext", "games", "algorithms", "utils", "experiments",
          "examples"} <= libraries


def test_test_files_have_unique_names():
  """A test's rule is named by its file's name, wherever the file sits."""
  names = [os.path.basename(path) for path in python_sources()
           if path.endswith("_test.py")]
  assert len(names) == len(set(names))
