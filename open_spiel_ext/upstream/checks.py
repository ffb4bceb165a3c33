"""What an exported module must pass: it is OpenSpiel's now.

It compiles, imports nothing but pyspiel, numpy, the standard library and
open_spiel.python (`check_imports`), and no longer speaks of the plugin: no
`open_spiel_ext`, JAX, batched engines or registry.
"""

import ast
import re
import sys

# Words a module's text must not contain: it is OpenSpiel's now.
_PLUGIN_MENTIONS = re.compile(
    r"open_spiel_ext|\bjax\b|\bjnp\b|\bbatched|\bregistry\.|\bengines?\b")


def check_imports(source: str, module: str) -> None:
  """Raises ValueError naming `module` and the import, unless every import
  of `source` is of pyspiel, numpy, the standard library or
  open_spiel.python."""
  for node in ast.walk(ast.parse(source)):
    if isinstance(node, ast.Import):
      names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
      names = [("." * node.level) + (node.module or "")]
    else:
      continue
    for name in names:
      root = name.split(".")[0]
      if not (root in ("pyspiel", "numpy") or root in sys.stdlib_module_names
              or name == "open_spiel.python" or
              name.startswith("open_spiel.python.")):
        raise ValueError(f"{module}: imports {name}, which is not pyspiel, "
                         "numpy, the standard library or open_spiel.python")



def check_module(source: str, module: str) -> None:
  """Raises ValueError naming `module` (or SyntaxError) unless the source of
  the exported `module` compiles, passes `check_imports` and never mentions
  the plugin."""
  compile(source, f"{module}.py", "exec")
  check_imports(source, module)
  mention = _PLUGIN_MENTIONS.search(source)
  if mention:
    line = source.count("\n", 0, mention.start()) + 1
    raise ValueError(f"{module}.py line {line} mentions the plugin's "
                     f"{mention.group(0)}")
