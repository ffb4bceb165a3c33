"""Weights files: a network's haiku parameters and what they belong to.

One `.npz` holds every parameter (`module/name`, stored in float16 by
default: the shipped files stay small and the networks play the same) and a
JSON record under `__meta__` (the rules, the network's settings, the run).
`save` writes atomically; `load` returns float32 parameters and the record,
and refuses a file that is not a weights file, naming it.
"""

import json
import os
from typing import Any

import haiku as hk
import numpy as np

_META = "__meta__"


def save(path: str, params: hk.Params, meta: dict[str, Any],
         dtype: Any = np.float16) -> None:
  """Writes `params` (as `dtype`) and the JSON-serialisable `meta`."""
  flat = {f"{module}/{name}": np.asarray(value, dtype)
          for module, names in params.items() for name, value in
          names.items()}
  os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
  partial = path + ".partial.npz"
  np.savez_compressed(partial, **{_META: np.array(json.dumps(meta))}, **flat)
  os.replace(partial, path)


def load(path: str, what: str = "network weights"
        ) -> tuple[hk.Params, dict[str, Any]]:
  """The float32 parameters and the record `save` wrote (ValueError naming
  `path` and `what` was expected if it is not such a file)."""
  try:
    data = np.load(path)
  except (OSError, ValueError) as error:
    raise ValueError(f"{path} is not a {what} file: {error}") from error
  with data:
    if _META not in data.files:
      raise ValueError(f"{path} is not a {what} file")
    meta = json.loads(str(data[_META]))
    params = {}
    for key in data.files:
      if key != _META:
        module, name = key.rsplit("/", 1)
        params.setdefault(module, {})[name] = data[key].astype(np.float32)
  return params, meta
