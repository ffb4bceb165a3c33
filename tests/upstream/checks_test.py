"""What an exported module must pass
(`open_spiel_ext/upstream/checks.py`)."""

import re

import pytest

from open_spiel_ext import upstream


def test_check_imports_refuses_what_openspiel_lacks():
  upstream.check_imports(
      "import functools\nimport numpy as np\n"
      "from open_spiel.python import observation\nimport pyspiel\n", "ok")
  for line, refused in (("import jax.numpy as jnp", "jax.numpy"),
                        ("from open_spiel_ext.games import registry",
                         "open_spiel_ext.games"),
                        ("from . import sibling", "."),
                        ("import scipy", "scipy")):
    with pytest.raises(ValueError,
                       match=rf"^my_game: imports {re.escape(refused)},"):
      upstream.check_imports(f"def f():\n  {line}\n", "my_game")
