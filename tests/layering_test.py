"""Imports point down the layers only: utils <- games <- upstream <-
algorithms <- experiments <- examples / benchmarks; nothing imports examples/
or benchmarks/; no two packages import each other, directly or in a circle.
The upstream exporter sits on games, below algorithms, so that it imports
utils and games only.

Read from the sources' import statements (`ast`), so a test fails on an import
that only runs in some branch too. A registry that imports the modules
registering into it when first asked (pgx's `make`) names them in import
statements inside a function; REGISTRATIONS lists those, and they count as
the registrations they are, not as a second dependency between two packages.
"""

import ast
import collections
import functools
import glob
import os

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Folder of the repository -> its installed package and its layer (higher
# layers may import lower ones and their own).
LAYERS = {
    "utils": ("open_spiel_ext.utils", 0),
    "games": ("open_spiel_ext.games", 1),
    "open_spiel_ext/__init__.py": ("open_spiel_ext", 1),  # Registers games.
    "open_spiel_ext/upstream": ("open_spiel_ext.upstream", 2),
    "algorithms": ("open_spiel_ext.algorithms", 3),
    "open_spiel_ext/experiments": ("open_spiel_ext.experiments", 4),
    "examples": ("open_spiel_ext.examples", 5),
    "benchmarks": ("benchmarks", 5),
}
LEAVES = ("open_spiel_ext.examples", "benchmarks")

# Registry file -> the modules it imports inside a function when first asked,
# each of which imports the registry to register into it.
REGISTRATIONS = {
    "algorithms/rl/networks.py": (
        "open_spiel_ext.algorithms.stratego.network",),
    "games/engines.py": (
        "open_spiel_ext.games.batched_loss_game",
        "open_spiel_ext.games.batched_poker",
        "open_spiel_ext.games.hanabi.engine",
        "open_spiel_ext.games.stratego.env"),
}


def _layer_of_module(module: str) -> tuple[str, int]:
  """(package, layer) of an imported module name of the plugin."""
  matches = [(package, layer) for package, layer in LAYERS.values()
             if module == package or module.startswith(package + ".")]
  return max(matches, key=lambda match: len(match[0]))


@functools.lru_cache(maxsize=None)
def _sources(root: str = REPO_ROOT) -> dict[str, tuple[str, int]]:
  """Every Python file of the layers under `root` -> (package, layer)."""
  found = {}
  for folder, (package, layer) in LAYERS.items():
    path = os.path.join(root, folder)
    paths = ([path] if os.path.exists(path) else []) if path.endswith(
        ".py") else glob.glob(
        os.path.join(path, "**", "*.py"), recursive=True)
    for source in paths:
      found[os.path.relpath(source, root)] = (package, layer)
  return found


def _module_name(path: str) -> str:
  """The dotted name a source file is imported under."""
  package, _ = _sources()[path]
  folder = next(folder for folder, (name, _) in LAYERS.items()
                if name == package)
  relative = os.path.relpath(os.path.join(REPO_ROOT, path),
                             os.path.join(REPO_ROOT, folder))
  parts = [part for part in relative[:-len(".py")].split(os.sep)
           if part not in ("", ".", "__init__")]
  return ".".join([package] + parts)


def _parse(path: str, root: str = REPO_ROOT) -> ast.Module:
  with open(os.path.join(root, path), encoding="utf-8") as f:
    return ast.parse(f.read(), path)


def _plugin_imports(path: str, root: str = REPO_ROOT) -> list[str]:
  """The plugin modules `path` imports (`import x.y`, `from x.y import z`:
  both x.y and x.y.z, since z may be a module)."""
  return _imports_in(_parse(path, root))


def _imports_in(tree: ast.AST) -> list[str]:
  """The plugin modules the statements of `tree` import."""
  names = []
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      names += [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
      names += [node.module] + [f"{node.module}.{alias.name}"
                                for alias in node.names]
  return [name for name in names
          if name.split(".")[0] in ("open_spiel_ext", "benchmarks")]


def test_every_source_is_in_a_layer():
  sources = _sources()
  assert len(sources) > 100
  assert "open_spiel_ext/experiments/__init__.py" in sources
  assert "open_spiel_ext/upstream/__init__.py" in sources


def _upward_imports(root: str = REPO_ROOT) -> list[str]:
  problems = []
  for path, (_, layer) in sorted(_sources(root).items()):
    for name in _plugin_imports(path, root):
      imported_package, imported_layer = _layer_of_module(name)
      if imported_layer > layer:
        problems.append(f"{path} imports {name} ({imported_package}, a "
                        "higher layer)")
  return problems


def test_imports_point_down_only():
  assert not _upward_imports()


def test_nothing_imports_examples_or_benchmarks():
  test_files = glob.glob(os.path.join(REPO_ROOT, "tests", "**", "*.py"),
                         recursive=True)
  importers = []
  for path in list(_sources()) + [os.path.relpath(path, REPO_ROOT)
                                  for path in test_files]:
    for name in _plugin_imports(path):
      if name.startswith(LEAVES) and not name.endswith(".__init__"):
        importers.append(f"{path} imports {name}")
  assert not importers


def _package_graph() -> dict[str, set[str]]:
  """Package -> the other packages its modules import (the layers' own
  packages and their subpackages, e.g. open_spiel_ext.algorithms.rl)."""
  packages = set()
  for path in _sources():
    name = _module_name(path)
    packages.add(name if path.endswith("__init__.py") else
                 name.rsplit(".", 1)[0])
  graph = collections.defaultdict(set)
  for path in _sources():
    name = _module_name(path)
    here = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
    registering = {part for module in REGISTRATIONS.get(path, ())
                   for part in (module, module.rsplit(".", 1)[0])}
    for imported in set(_plugin_imports(path)) - registering:
      target = max((package for package in packages
                    if imported == package or
                    imported.startswith(package + ".")), key=len,
                   default=None)
      if target and target != here and not here.startswith(target + ".") and (
          not target.startswith(here + ".")):
        graph[here].add(target)
  return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
  """The cycles of `graph` found by depth-first search, one per back edge."""
  found, state, stack = [], {}, []

  def visit(node):
    state[node] = "open"
    stack.append(node)
    for successor in sorted(graph.get(node, ())):
      if state.get(successor) == "open":
        found.append(stack[stack.index(successor):] + [successor])
      elif successor not in state:
        visit(successor)
    stack.pop()
    state[node] = "done"

  for node in sorted(graph):
    if node not in state:
      visit(node)
  return found


def test_no_two_packages_import_each_other():
  assert not _cycles(_package_graph())


@pytest.mark.parametrize("registry", sorted(REGISTRATIONS))
def test_registries_import_what_registers_into_them_when_asked(registry):
  at_import = {name for node in _parse(registry).body if not isinstance(
      node, (ast.FunctionDef, ast.ClassDef)) for name in _imports_in(node)}
  in_functions = set(_plugin_imports(registry)) - at_import
  paths = {_module_name(path): path for path in _sources()}
  for module in REGISTRATIONS[registry]:
    assert module in in_functions and module not in at_import
    assert _module_name(registry) in _plugin_imports(paths[module])


@pytest.mark.parametrize("graph, expected", [
    ({"a": {"b"}, "b": {"a"}}, [["a", "b", "a"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c", "a"]]),
    ({"a": {"b", "c"}, "b": {"c"}}, []),
])
def test_the_cycle_search_finds_cycles(graph, expected):
  assert _cycles(graph) == expected


def test_an_upward_import_is_found(tmp_path):
  games = tmp_path / "games"
  games.mkdir()
  (games / "bad.py").write_text(
      "from open_spiel_ext.algorithms import xdo\n")
  assert _upward_imports(str(tmp_path)) == [
      "games/bad.py imports open_spiel_ext.algorithms "
      "(open_spiel_ext.algorithms, a higher layer)",
      "games/bad.py imports open_spiel_ext.algorithms.xdo "
      "(open_spiel_ext.algorithms, a higher layer)"]


def test_the_upstream_exporter_imports_nothing_above_games(tmp_path):
  upstream = tmp_path / "open_spiel_ext" / "upstream"
  upstream.mkdir(parents=True)
  (upstream / "bad.py").write_text(
      "from open_spiel_ext.games import registry\n"
      "from open_spiel_ext.algorithms import xdo\n")
  assert _upward_imports(str(tmp_path)) == [
      "open_spiel_ext/upstream/bad.py imports open_spiel_ext.algorithms "
      "(open_spiel_ext.algorithms, a higher layer)",
      "open_spiel_ext/upstream/bad.py imports open_spiel_ext.algorithms.xdo "
      "(open_spiel_ext.algorithms, a higher layer)"]
