"""Building an exported module by tree shaking the plugin's modules.

`bundle` parses the plugin module that registers a game and the plugin
modules it imports (`reading.py`), starts from the registrations of its games
(`registrations.py`) and keeps only the top-level statements they need,
transitively (so the JAX engines, `registry.register_clones` and other plugin
bookkeeping fall away), copies each kept statement's source text with its
comments, writes `helper.name` as a plain name (renamed where it would
collide), and replaces the registrations by `pyspiel.register_game(...)` at
the end. The result is refused (ValueError naming the module) unless it
passes `checks.check_module`.
"""

import ast
import builtins
import collections
import copy
import json
import re
import sys
from typing import Iterator, Optional

from open_spiel_ext.upstream import alignment
from open_spiel_ext.upstream import checks
from open_spiel_ext.upstream import entries
from open_spiel_ext.upstream import reading
from open_spiel_ext.upstream import registrations
from open_spiel_ext.upstream import rewrites
from open_spiel_ext.upstream import templates


class Bundle:
  """The statements of the plugin modules that some games need."""

  def __init__(self, main: str, class_names: set[str]):
    self.main = reading.read(main)
    self.kept: dict[str, set[int]] = collections.defaultdict(set)
    self.imports: dict[str, reading.Import] = {
        "pyspiel": reading.Import("pyspiel")}
    self.registrations = []  # (game type expression, class name)
    roots = []
    for statement in self.main.statements:
      registered = registrations.in_statement(self.main, statement)
      for game_type, game_class in registered or []:
        if isinstance(game_class, ast.Name) and game_class.id in class_names:
          self.registrations.append((game_type, game_class.id))
          sites = reading.Sites(self.main.helpers)
          sites.visit(game_type)
          roots += self._references(self.main, sites)
          roots.append((self.main.name, game_class.id))
      if (registered is None and not statement.binds and
          not registrations.is_bookkeeping(self.main, statement)):
        raise ValueError(f"{main}:{statement.node.lineno}: a top-level "
                         "statement that binds nothing and registers nothing")
    missing = class_names - {name for _, name in self.registrations}
    if missing:
      raise ValueError(f"{main} does not register {sorted(missing)}")
    self._keep(roots)
    self.order = self._module_order()
    self.out_names = self._out_names()

  def _references(self, module: reading.Module,
                  sites: reading.Sites) -> Iterator[tuple[str, str]]:
    for node in sites.names:
      yield module.name, node.id
    for node in sites.attributes:
      yield module.helpers[node.value.id], node.attr

  def resolve(self, owner: str, name: str) -> tuple[str, str]:
    """The module-level name a name of `owner` is, through plugin imports."""
    while name in reading.read(owner).imported:
      owner, name = reading.read(owner).imported[name]
    return owner, name

  def _keep(self, roots: list[tuple[str, str]]) -> None:
    queue, seen = list(roots), set()
    while queue:
      owner, name = self.resolve(*queue.pop())
      if (owner, name) in seen:
        continue
      seen.add((owner, name))
      module = reading.read(owner)
      if name in module.imports:
        known = self.imports.setdefault(name, module.imports[name])
        if known != module.imports[name]:
          raise ValueError(f"{owner} imports {module.imports[name].line()}, "
                           f"another module {known.line()}")
      elif name in module.helpers:
        raise ValueError(f"{owner} uses the module {name} as a value")
      elif name in module.bindings:
        index = module.bindings[name]
        if index not in self.kept[owner]:
          self.kept[owner].add(index)
          statement = module.statements[index]
          queue += self._references(module, statement.sites)
      elif not hasattr(builtins, name) and name not in ("__file__",
                                                        "__name__"):
        raise ValueError(f"{owner} uses {name}, which it does not define")

  def _module_order(self) -> list[str]:
    """The modules with kept statements, each after those it imports."""
    order, visiting = [], set()

    def visit(name: str) -> None:
      if name in order or name in visiting:
        return
      visiting.add(name)
      module = reading.read(name)
      for helper in sorted(set(module.helpers.values()) |
                           {owner for owner, _ in module.imported.values()}):
        visit(helper)
      if self.kept.get(name):
        order.append(name)

    visit(self.main.name)
    return order

  def _out_names(self) -> dict[tuple[str, str], str]:
    """The name of each kept binding in the bundle: its own, unless that
    collides with another module's, a builtin, or a local where it is used."""
    taken = set(self.imports)
    out = {}
    for owner in [self.main.name] + [m for m in self.order
                                     if m != self.main.name]:
      module = reading.read(owner)
      for index in sorted(self.kept[owner]):
        for name in module.statements[index].binds:
          new = name
          if owner != self.main.name and (new in taken or
                                          hasattr(builtins, new)):
            new = self._fresh(owner, name, taken)
          elif new in taken:
            raise ValueError(f"{owner} defines {name}, which the bundle "
                             "imports")
          taken.add(new)
          out[owner, name] = new
    for _ in range(10):
      clash = self._local_clash(out)
      if clash is None:
        return out
      out[clash] = self._fresh(clash[0], clash[1], set(out.values()) | taken)
    raise ValueError("cannot find names free of local clashes")

  @staticmethod
  def _fresh(owner: str, name: str, taken: set[str]) -> str:
    base = f"_{owner.rsplit('.', 1)[1]}_{name.lstrip('_')}"
    new, count = base, 1
    while new in taken:
      count += 1
      new = f"{base}{count}"
    return new

  def _local_clash(
      self, out: dict[tuple[str, str], str]) -> Optional[tuple[str, str]]:
    """A binding whose new name is a local where a reference uses it."""
    for owner, index, node, target in self.sites():
      new = out.get(target)
      written = node.id if isinstance(node, ast.Name) else None
      if new is not None and new != written and new in (
          reading.read(owner).statements[index].sites.visible[id(node)]):
        return target
    return None

  def sites(self) -> Iterator[tuple[str, int, ast.AST, tuple[str, str]]]:
    """(module, statement index, node, what it names) of every reference."""
    for owner in self.order:
      module = reading.read(owner)
      for index in sorted(self.kept[owner]):
        sites = module.statements[index].sites
        for node in sites.names:
          yield owner, index, node, self.resolve(owner, node.id)
        for node in sites.attributes:
          yield owner, index, node, self.resolve(module.helpers[node.value.id],
                                                 node.attr)

  def _rewrite_expression(self, owner: str, node: ast.expr) -> ast.expr:
    """`node` (of module `owner`, at its top level) with bundle names."""
    module = reading.read(owner)
    out = self.out_names

    class Rewrite(ast.NodeTransformer):

      def visit_Name(self, name: ast.Name) -> ast.expr:
        target = outer.resolve(owner, name.id)
        return ast.Name(out.get(target, name.id), name.ctx)

      def visit_Attribute(self, attribute: ast.Attribute) -> ast.expr:
        value = attribute.value
        if isinstance(value, ast.Name) and value.id in module.helpers:
          target = outer.resolve(module.helpers[value.id], attribute.attr)
          return ast.Name(out[target], attribute.ctx)
        return self.generic_visit(attribute)

    outer = self
    return Rewrite().visit(copy.deepcopy(node))

  def statement_text(self, owner: str, index: int) -> str:
    """A kept statement's source, its references renamed."""
    module = reading.read(owner)
    statement = module.statements[index]
    sites = statement.sites
    first = statement.first_line
    replacements = []

    def replace(node: ast.AST, new: str) -> None:
      if node.end_lineno != node.lineno:
        raise ValueError(f"{owner}:{node.lineno}: a name split over lines")
      line = module.lines[node.lineno - 1]
      replacements.append(
          (node.lineno - first + 1,
           alignment.char_column(line, node.col_offset),
           alignment.char_column(line, node.end_col_offset), new))

    for node in sites.names:
      new = self.out_names.get(self.resolve(owner, node.id), node.id)
      if new != node.id and id(node) not in sites.in_string:
        replace(node, new)
    for node in sites.attributes:
      if id(node) not in sites.in_string:
        replace(node, self.out_names[self.resolve(
            module.helpers[node.value.id], node.attr)])
    for node in sites.definitions:
      new = self.out_names[owner, node.name]
      if new != node.name:
        line = module.lines[node.lineno - 1]
        match = re.compile(rf"(def|class)\s+({node.name})\b").search(
            line, alignment.char_column(line, node.col_offset))
        replacements.append((node.lineno - first + 1, match.start(2),
                             match.end(2), new))
    for constant, parsed in sites.strings:
      new = ast.unparse(self._rewrite_expression(owner, parsed))
      if new != constant.value:
        replace(constant, json.dumps(new))
    return alignment.realigned(module.text(statement), replacements)

  def registration_lines(self) -> list[str]:
    lines = []
    for game_type, class_name in self.registrations:
      type_text = ast.unparse(self._rewrite_expression(self.main.name,
                                                       game_type))
      line = f"pyspiel.register_game({type_text}, {class_name})"
      if len(line) > 80:
        line = (f"pyspiel.register_game({type_text},\n"
                f"{' ' * len('pyspiel.register_game(')}{class_name})")
      lines.append(line)
    return lines

  def body(self) -> str:
    """The kept statements, module by module, as source."""
    chunks = []
    for owner in self.order:
      module = reading.read(owner)
      previous = None
      for index in sorted(self.kept[owner]):
        if chunks:
          chunks.append(self._gap(module, previous, index))
        chunks.append(self.statement_text(owner, index))
        previous = index
    return "".join(chunks)

  @staticmethod
  def _gap(module: reading.Module, previous: Optional[int],
           index: int) -> str:
    """The blank lines before a statement: as in the module if it followed
    `previous` there, else one (two around definitions)."""
    statement = module.statements[index]
    definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    if previous is None:
      return "\n\n\n"
    before = module.statements[previous]
    if previous == index - 1:
      blank = statement.first_line - before.last_line - 1
      return "\n" * (blank + 1)
    if isinstance(statement.node, definitions) or isinstance(
        before.node, definitions):
      return "\n\n\n"
    return "\n\n"

  def import_lines(self) -> str:
    """The imports, in OpenSpiel's groups: the standard library, numpy, then
    OpenSpiel (open_spiel.python and pyspiel)."""
    groups = collections.defaultdict(dict)
    for spec in self.imports.values():
      root = spec.module.split(".")[0]
      group = (0 if root in sys.stdlib_module_names else
               2 if root in ("open_spiel", "pyspiel") else 1)
      key = (spec.module, spec.name is not None)
      groups[group].setdefault(key, []).append(spec)
    blocks = []
    for group in sorted(groups):
      lines = []
      for (module, is_from), specs in sorted(
          groups[group].items(), key=lambda item: item[0][0].lower()):
        if is_from and module == "typing":
          names = sorted(spec.name for spec in specs)
          lines.append(f"from typing import {', '.join(names)}")
        else:
          lines += sorted(spec.line() for spec in specs)
      blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def bundle(short_name: str) -> str:
  """The source of the exported module holding `short_name` (see the module
  docstring: the module's games, all that they need, nothing else).

  Raises:
    ValueError: `short_name` is no candidate, or the module cannot be made
      self-contained (the message says which module and why).
  """
  names = entries.family(short_name)
  source_module = entries.game_class(short_name).__module__
  result = Bundle(source_module,
                  {entries.game_class(name).__name__ for name in names})
  docstring = rewrites.docstring(result.main.name, result.main.docstring)
  text = (f"{templates.LICENSE_HEADER}\n{docstring}\n\n"
          f"{result.import_lines()}\n\n\n{result.body()}\n\n\n"
          + "\n".join(result.registration_lines()) + "\n")
  checks.check_module(text, entries.module_name(short_name))
  return text
