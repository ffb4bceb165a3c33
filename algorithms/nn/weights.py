"""Weights files: a network's haiku parameters and what they belong to.

One `.npz` holds every parameter (`module/name`, floating-point values stored
in float16 by default: the shipped files stay small and the networks play
the same), the network's haiku state if it has one (batch-norm averages,
under `state:module/name`) and a JSON record under `__meta__` (the rules,
the network's settings, the run). Integer arrays keep their dtype. `save`
writes atomically; `load` and `load_with_state` return float32 values and
the record, and refuse a file that is not a weights file, naming it.
"""

import json
import os
import zipfile
import zlib
from typing import Any, Optional

import haiku as hk
import numpy as np

_META = "__meta__"
_STATE = "state:"


def _flat(tree: hk.Params, dtype: Any, prefix: str = "") -> dict[str, Any]:
  """`tree` as `prefix + module/name` -> array, floating values as `dtype`."""
  flat = {}
  for module, names in tree.items():
    for name, value in names.items():
      value = np.asarray(value)
      if np.issubdtype(value.dtype, np.floating):
        value = value.astype(dtype)
      flat[f"{prefix}{module}/{name}"] = value
  return flat


def save(path: str, params: hk.Params, meta: dict[str, Any],
         dtype: Any = np.float16, state: Optional[hk.State] = None) -> None:
  """Writes `params` and `state` (floating values as `dtype`) and the
  JSON-serialisable `meta`."""
  flat = {**_flat(params, dtype), **_flat(state or {}, dtype, _STATE)}
  os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
  partial = path + ".partial.npz"
  np.savez_compressed(partial, **{_META: np.array(json.dumps(meta))}, **flat)
  os.replace(partial, path)


def load_with_state(path: str, what: str = "network weights"
                   ) -> tuple[hk.Params, hk.State, dict[str, Any]]:
  """The parameters, the haiku state (empty if none was saved) and the
  record `save` wrote, floating values as float32 (ValueError naming `path`
  and `what` was expected if it is not such a file)."""
  if not os.path.isfile(path):
    raise ValueError(f"{path}: no such {what} file")
  not_weights = ValueError(f"{path} is not a {what} file (an .npz that "
                           "algorithms/nn/weights.py wrote)")
  try:
    data = np.load(path, allow_pickle=False)
  except ValueError:  # Neither .npz nor .npy: numpy took it for a pickle.
    raise not_weights from None
  except (OSError, EOFError, zipfile.BadZipFile) as error:
    raise _unreadable(path, what, error) from None
  if not isinstance(data, np.lib.npyio.NpzFile):
    raise not_weights
  with data:
    if _META not in data.files:
      raise not_weights
    try:
      return (*_trees(data), json.loads(str(data[_META])))
    except (OSError, EOFError, ValueError, zipfile.BadZipFile,
            zlib.error) as error:
      raise _unreadable(path, what, error) from None


def _unreadable(path: str, what: str, error: Exception) -> ValueError:
  return ValueError(f"{path} is not a readable {what} file: it is truncated "
                    f"or corrupted ({type(error).__name__}: {error})")


def _trees(data: Any) -> tuple[hk.Params, hk.State]:
  """The parameters and haiku state stored in an open weights archive,
  floating values as float32."""
  params, state = {}, {}
  for key in data.files:
    if key == _META:
      continue
    tree = state if key.startswith(_STATE) else params
    module, name = key.removeprefix(_STATE).rsplit("/", 1)
    value = data[key]
    if np.issubdtype(value.dtype, np.floating):
      value = value.astype(np.float32)
    tree.setdefault(module, {})[name] = value
  return params, state


def load(path: str, what: str = "network weights"
        ) -> tuple[hk.Params, dict[str, Any]]:
  """The float32 parameters (without any haiku state) and the record `save`
  wrote (ValueError naming `path` and `what` was expected if it is not such
  a file)."""
  params, _, meta = load_with_state(path, what)
  return params, meta
