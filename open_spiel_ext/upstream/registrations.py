"""Finding what a plugin module registers, and what it only records.

A registration is `registry.register(T, C)`, `pyspiel.register_game(T, C)`,
a call of a function whose body is one such call on its parameters
(`single_player.register`), or a for loop over classes whose body is
registrations; the bundle replaces them by `pyspiel.register_game(...)`. A
top-level call into the rest of the plugin (`registry.register_clones`) is
bookkeeping, which the bundle drops.
"""

import ast
import copy
from typing import Optional

from open_spiel_ext.games import registry
from open_spiel_ext.upstream import reading


def _substitute(node: ast.expr, mapping: dict[str, ast.expr],
                only_mapped: bool = False) -> ast.expr:
  """A copy of `node` with the names in `mapping` replaced; with
  `only_mapped`, ValueError if it names anything else."""

  class Substitute(ast.NodeTransformer):

    def visit_Name(self, name: ast.Name) -> ast.expr:
      if name.id in mapping:
        return copy.deepcopy(mapping[name.id])
      if only_mapped:
        raise ValueError(f"a registration helper names {name.id}, which is "
                         "none of its parameters")
      return name

  return Substitute().visit(copy.deepcopy(node))


def _call_target(module: reading.Module,
                 func: ast.expr) -> Optional[tuple[str, str]]:
  """(module, name) of the function a top-level call calls, if known."""
  if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and
      func.value.id in module.helpers):
    return module.helpers[func.value.id], func.attr
  if isinstance(func, ast.Name):
    if func.id in module.imported:
      return module.imported[func.id]
    if func.id in module.bindings:
      return module.name, func.id
  return None


def _call_registrations(
    module: reading.Module,
    call: ast.Call) -> Optional[list[tuple[ast.expr, ast.expr]]]:
  """The (game type, game class) expressions a call registers, or None.

  `registry.register(T, C)` and `pyspiel.register_game(T, C)` register
  (T, C); so does a call of a function whose body is one such call on its
  parameters (`single_player.register`).
  """
  func = call.func
  if call.keywords:
    return None
  if (isinstance(func, ast.Attribute) and func.attr == "register_game" and
      isinstance(func.value, ast.Name) and
      module.imports.get(func.value.id) == reading.Import("pyspiel")):
    return [(call.args[0], call.args[1])]
  target = _call_target(module, func)
  if target is None:
    return None
  owner, name = target
  if owner == registry.__name__ and name == "register":
    if len(call.args) != 2:
      raise ValueError(f"{module.name}: registry.register takes a game type "
                       "and a class")
    return [(call.args[0], call.args[1])]
  helper = reading.read(owner)
  if name not in helper.bindings:
    return None
  definition = helper.statements[helper.bindings[name]].node
  if not isinstance(definition, ast.FunctionDef):
    return None
  body = [node for node in definition.body if not reading.is_docstring(node)]
  if len(body) != 1 or not isinstance(body[0], ast.Expr) or not isinstance(
      body[0].value, ast.Call):
    return None
  inner = _call_registrations(helper, body[0].value)
  if inner is None:
    return None
  params = dict(zip((arg.arg for arg in definition.args.args), call.args))
  return [(_substitute(game_type, params, only_mapped=True),
           _substitute(game_class, params, only_mapped=True))
          for game_type, game_class in inner]


def in_statement(
    module: reading.Module, statement: reading.Statement
) -> Optional[list[tuple[ast.expr, ast.expr]]]:
  """What a top-level statement registers: a registration call, or a for
  loop over classes whose body is registrations; None if neither."""
  node = statement.node
  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
    return _call_registrations(module, node.value)
  if not (isinstance(node, ast.For) and isinstance(node.target, ast.Name) and
          isinstance(node.iter, (ast.Tuple, ast.List)) and not node.orelse):
    return None
  inner = []
  for child in node.body:
    if not (isinstance(child, ast.Expr) and isinstance(child.value, ast.Call)):
      return None
    found = _call_registrations(module, child.value)
    if found is None:
      return None
    inner += found
  return [(_substitute(game_type, {node.target.id: element}),
           _substitute(game_class, {node.target.id: element}))
          for element in node.iter.elts for game_type, game_class in inner]


def is_bookkeeping(module: reading.Module,
                   statement: reading.Statement) -> bool:
  """Whether a top-level statement only calls into the plugin (registering
  other games, `registry.register_clones`): it is dropped."""
  node = statement.node
  if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
    return False
  target = _call_target(module, node.value.func)
  return target is not None and target[0] != module.name

