"""Reading the plugin's modules: their imports and top-level statements.

A module is read, never imported (nothing of it runs), after the changes of
`rewrites.py`, and parsed with `ast` into its imports (of plugin modules, of
names of plugin modules, of the rest) and its top-level statements. Each
statement records the names it binds, its lines (leading comments included)
and its references to module-level names (`Sites`), which are what tree
shaking follows and renaming rewrites.
"""

import ast
import dataclasses
import functools
import importlib.util
from typing import Optional

from open_spiel_ext.upstream import rewrites


@dataclasses.dataclass(frozen=True)
class Import:
  """An import of something outside the plugin, under its local name."""
  module: str
  name: Optional[str] = None  # `from module import name`, else `import module`
  asname: Optional[str] = None

  def line(self) -> str:
    alias = f" as {self.asname}" if self.asname else ""
    if self.name is None:
      return f"import {self.module}{alias}"
    return f"from {self.module} import {self.name}{alias}"


def _is_plugin(module: str) -> bool:
  return module == "open_spiel_ext" or module.startswith("open_spiel_ext.")


def _is_module(name: str) -> bool:
  try:
    return importlib.util.find_spec(name) is not None
  except ModuleNotFoundError:
    return False


def is_docstring(node: ast.stmt) -> bool:
  """Whether `node` is a string on its own (a docstring where it is first)."""
  return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
          and isinstance(node.value.value, str))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _scope_locals(body: list[ast.AST]) -> set[str]:
  """The names a block of statements binds in its own scope."""
  names, declared = set(), set()
  stack = list(body)
  while stack:
    node = stack.pop()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
      names.add(node.name)
      continue
    if isinstance(node, _SCOPES):
      continue
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
      names.add(node.id)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
      names.update((alias.asname or alias.name).split(".")[0]
                   for alias in node.names)
    elif isinstance(node, ast.ExceptHandler) and node.name:
      names.add(node.name)
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
      declared.update(node.names)
    stack.extend(ast.iter_child_nodes(node))
  return names - declared


def _arguments(args: ast.arguments) -> list[ast.arg]:
  return (args.posonlyargs + args.args + args.kwonlyargs +
          [arg for arg in (args.vararg, args.kwarg) if arg])


class Sites(ast.NodeVisitor):
  """The references of one top-level statement to module-level names.

  `names`: Name nodes of module-level names (or builtins), bindings at the top
  level included; `attributes`: `helper.name` nodes, `helper` a plugin module;
  `definitions`: the statement itself if it is a def or class; `strings`:
  string annotations with their parsed expressions, whose references are in
  `names` and `attributes` too (flagged in `in_string`). Each site keeps the
  local names visible where it is (`visible`).
  """

  def __init__(self, helpers: dict[str, str]):
    self._helpers = helpers
    self._scopes: list[tuple[set[str], bool]] = []
    self._in_string = False
    self.names: list[ast.Name] = []
    self.attributes: list[ast.Attribute] = []
    self.definitions: list[ast.stmt] = []
    self.strings: list[tuple[ast.Constant, ast.expr]] = []
    self.in_string: set[int] = set()
    self.visible: dict[int, set[str]] = {}

  def _visible_locals(self) -> set[str]:
    visible = set()
    for depth, (names, is_class) in enumerate(reversed(self._scopes)):
      if not is_class or depth == 0:  # Class scopes reach their body only.
        visible |= names
    return visible

  def _record(self, node: ast.AST, into: list) -> None:
    into.append(node)
    self.visible[id(node)] = self._visible_locals()
    if self._in_string:
      self.in_string.add(id(node))

  def _in_scope(self, names: set[str], body: list[ast.AST],
                is_class: bool = False) -> None:
    self._scopes.append((names, is_class))
    for node in body:
      self.visit(node)
    self._scopes.pop()

  def _annotation(self, node: Optional[ast.expr]) -> None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
      parsed = ast.parse(node.value, mode="eval").body
      self.strings.append((node, parsed))
      self._in_string = True
      self.visit(parsed)
      self._in_string = False
    elif node is not None:
      self.visit(node)

  def _arguments(self, args: ast.arguments) -> None:
    for default in args.defaults + [d for d in args.kw_defaults if d]:
      self.visit(default)
    for arg in _arguments(args):
      self._annotation(arg.annotation)

  def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
    if not self._scopes:
      self.definitions.append(node)
    for decorator in node.decorator_list:
      self.visit(decorator)
    self._arguments(node.args)
    self._annotation(node.returns)
    names = {arg.arg for arg in _arguments(node.args)}
    self._in_scope(names | _scope_locals(node.body), node.body)

  visit_AsyncFunctionDef = visit_FunctionDef

  def visit_Lambda(self, node: ast.Lambda) -> None:
    self._arguments(node.args)
    self._in_scope({arg.arg for arg in _arguments(node.args)}, [node.body])

  def visit_ClassDef(self, node: ast.ClassDef) -> None:
    if not self._scopes:
      self.definitions.append(node)
    for child in node.decorator_list + node.bases + [
        keyword.value for keyword in node.keywords]:
      self.visit(child)
    self._in_scope(_scope_locals(node.body), node.body, is_class=True)

  def _comprehension(self, node: ast.AST) -> None:
    generators = node.generators
    self.visit(generators[0].iter)  # Evaluated in the enclosing scope.
    targets = {name.id for generator in generators
               for name in ast.walk(generator.target)
               if isinstance(name, ast.Name)}
    inner = [generators[0].target] + generators[0].ifs
    for generator in generators[1:]:
      inner += [generator.target, generator.iter] + generator.ifs
    if isinstance(node, ast.DictComp):
      inner += [node.key, node.value]
    else:
      inner.append(node.elt)
    self._in_scope(targets, inner)

  visit_ListComp = visit_SetComp = visit_DictComp = _comprehension
  visit_GeneratorExp = _comprehension

  def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
    self.visit(node.target)
    self._annotation(node.annotation)
    if node.value is not None:
      self.visit(node.value)

  def visit_Name(self, node: ast.Name) -> None:
    if node.id not in self._visible_locals():
      self._record(node, self.names)

  def visit_Attribute(self, node: ast.Attribute) -> None:
    value = node.value
    if (isinstance(value, ast.Name) and value.id in self._helpers and
        value.id not in self._visible_locals()):
      self._record(node, self.attributes)
    else:
      self.generic_visit(node)


@dataclasses.dataclass
class Statement:
  """A top-level statement: its node, the names it binds, its lines (1-based,
  leading comments and decorators included), and its references."""
  node: ast.stmt
  binds: frozenset[str]
  first_line: int
  last_line: int
  sites: Optional[Sites] = None


def _top_level_binds(node: ast.stmt) -> frozenset[str]:
  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
    return frozenset([node.name])
  return frozenset(_scope_locals([node]))


def _splice(text: str, overrides: dict[str, str]) -> str:
  """`text` with the top-level definitions named in `overrides` replaced."""
  lines = text.splitlines()
  tree = ast.parse(text)
  for node in reversed(tree.body):
    names = _top_level_binds(node)
    replaced = [name for name in overrides if name in names]
    if replaced:
      first = min([node.lineno] + [decorator.lineno for decorator in
                                   getattr(node, "decorator_list", [])])
      lines[first - 1:node.end_lineno] = overrides[replaced[0]].splitlines()
  return "\n".join(lines) + "\n"


class Module:
  """One plugin module, parsed: its imports and top-level statements."""

  def __init__(self, name: str):
    self.name = name
    with open(importlib.util.find_spec(name).origin, encoding="utf-8") as f:
      text = f.read()  # Read, not imported: nothing of it runs here.
    for old, new in rewrites.REWORDINGS.get(name, ()):
      text = text.replace(old, new)
    overrides = {key: make()
                 for key, make in rewrites.OVERRIDES.get(name, {}).items()}
    if overrides:
      text = _splice(text, overrides)
    self.lines = text.splitlines()
    tree = ast.parse(text, filename=name)
    self.docstring: Optional[str] = None
    body = tree.body
    if body and is_docstring(body[0]):
      self.docstring = "\n".join(
          self.lines[body[0].lineno - 1:body[0].end_lineno])
      body = body[1:]
    self.helpers: dict[str, str] = {}  # Alias -> plugin module.
    self.imported: dict[str, tuple[str, str]] = {}  # Alias -> (module, name).
    self.imports: dict[str, Import] = {}  # Alias -> import of the rest.
    self.statements: list[Statement] = []
    self.bindings: dict[str, int] = {}  # Name -> index in `statements`.
    for node in body:
      if isinstance(node, (ast.Import, ast.ImportFrom)):
        self._add_import(node)
      else:
        self._add_statement(node)

  def _add_import(self, node: ast.stmt) -> None:
    if isinstance(node, ast.ImportFrom):
      if node.level:
        raise ValueError(f"{self.name}: relative imports are not supported")
      for alias in node.names:
        local = alias.asname or alias.name
        full = f"{node.module}.{alias.name}"
        if not _is_plugin(node.module):
          self.imports[local] = Import(node.module, alias.name, alias.asname)
        elif _is_module(full):
          self.helpers[local] = full
        else:
          self.imported[local] = (node.module, alias.name)
      return
    for alias in node.names:
      if _is_plugin(alias.name):
        if not alias.asname:
          raise ValueError(f"{self.name}: `import {alias.name}` is not "
                           "supported; import the module by name")
        self.helpers[alias.asname] = alias.name
      else:
        local = alias.asname or alias.name.split(".")[0]
        self.imports[local] = Import(alias.name, None, alias.asname)

  def _add_statement(self, node: ast.stmt) -> None:
    first = min([node.lineno] + [decorator.lineno for decorator in
                                 getattr(node, "decorator_list", [])])
    while first > 1 and self.lines[first - 2].lstrip().startswith("#"):
      first -= 1
    statement = Statement(node, _top_level_binds(node), first,
                          node.end_lineno)
    if self.statements and (self.statements[-1].last_line >= first):
      raise ValueError(f"{self.name}:{node.lineno}: one statement per line, "
                       "please")
    sites = Sites(self.helpers)
    sites.visit(node)
    statement.sites = sites
    for name in statement.binds:
      self.bindings[name] = len(self.statements)
    self.statements.append(statement)

  def text(self, statement: Statement) -> str:
    return "\n".join(self.lines[statement.first_line - 1:statement.last_line])


@functools.lru_cache(maxsize=None)
def read(name: str) -> Module:
  """The plugin module `name`, read and parsed once."""
  return Module(name)
