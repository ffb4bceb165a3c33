"""Methods know no game by name: no module under algorithms/, outside the
game kits, names a registered game (a string constant other than a
docstring) or imports a game's module (one that registers a game or an
engine), so that game knowledge lives in open_spiel_ext/experiments/ and
methods take it as plain configs. The kits are game-specific by design and
named in docs/architecture.md: algorithms/hanabi/ and algorithms/stratego/.
"""

import ast
import pathlib

import open_spiel_ext  # pylint: disable=unused-import
import pyspiel

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
GAME_KITS = ("hanabi", "stratego")
_REGISTERING_CALLS = ("register", "register_clones", "register_sized_engine")


def _tree(path: pathlib.Path) -> ast.Module:
  return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _module_name(path: pathlib.Path, root: pathlib.Path) -> str:
  parts = path.relative_to(root).with_suffix("").parts
  return ".".join(("open_spiel_ext",) + tuple(
      part for part in parts if part != "__init__"))


def _registers(tree: ast.Module) -> bool:
  """Whether a module's top-level statements call a registry."""
  for statement in tree.body:
    if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
      continue
    for node in ast.walk(statement):
      if isinstance(node, ast.Call) and getattr(
          node.func, "attr", getattr(node.func, "id", None)) in (
              _REGISTERING_CALLS):
        return True
  return False


def game_modules(root: pathlib.Path = REPO_ROOT) -> set[str]:
  """The modules under games/ that register a game or a batched engine."""
  return {_module_name(path, root)
          for path in sorted((root / "games").rglob("*.py"))
          if _registers(_tree(path))}


def _docstrings(tree: ast.Module) -> set[int]:
  found = set()
  for node in ast.walk(tree):
    if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                         ast.AsyncFunctionDef)) and node.body:
      first = node.body[0]
      if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        found.add(id(first.value))
  return found


def _imported(node: ast.AST) -> list[str]:
  if isinstance(node, ast.Import):
    return [alias.name for alias in node.names]
  if isinstance(node, ast.ImportFrom) and node.module:
    return [node.module] + [f"{node.module}.{alias.name}"
                            for alias in node.names]
  return []


def games_named(root: pathlib.Path = REPO_ROOT) -> list[str]:
  """Where a module of algorithms/ outside the kits names a game."""
  games = set(pyspiel.registered_names())
  modules = game_modules(root)
  found = []
  for path in sorted((root / "algorithms").rglob("*.py")):
    relative = path.relative_to(root)
    if relative.parts[1] in GAME_KITS:
      continue
    tree = _tree(path)
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
      if (isinstance(node, ast.Constant) and isinstance(node.value, str) and
          id(node) not in docstrings and node.value.split("(")[0] in games):
        found.append(f"{relative}:{node.lineno} names {node.value!r}")
      for name in _imported(node):
        if name in modules:
          found.append(f"{relative}:{node.lineno} imports {name}")
  return found


def test_kits_are_the_ones_the_architecture_page_names():
  page = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
  for kit in GAME_KITS:
    assert (REPO_ROOT / "algorithms" / kit).is_dir()
    assert f"`algorithms/{kit}/`" in page


def test_the_games_modules_are_found():
  modules = game_modules()
  assert {"open_spiel_ext.games.puzzles.rubiks_cube",
          "open_spiel_ext.games.batched_poker",
          "open_spiel_ext.games.clone_leduc"} <= modules
  assert not modules & {"open_spiel_ext.games.registry",
                        "open_spiel_ext.games.engines",
                        "open_spiel_ext.games.puzzles.single_player"}


def test_no_method_names_a_game():
  assert not games_named()


def test_a_game_named_or_imported_is_found(tmp_path):
  (tmp_path / "games").mkdir()
  (tmp_path / "games" / "cards.py").write_text("registry.register(T, C)\n")
  method = tmp_path / "algorithms" / "method.py"
  method.parent.mkdir()
  method.write_text('"""kuhn_poker is fine in a docstring."""\n'
                    "from open_spiel_ext.games import cards\n"
                    "GAME = 'kuhn_poker(players=3)'\n"
                    "MESSAGE = 'not a game'\n")
  assert games_named(tmp_path) == [
      "algorithms/method.py:2 imports open_spiel_ext.games.cards",
      "algorithms/method.py:3 names 'kuhn_poker(players=3)'"]
