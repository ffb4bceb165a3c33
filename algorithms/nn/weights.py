"""Weights files: a network's haiku parameters and what they belong to.

One `.npz` holds every parameter (`module/name`, floating-point values stored
in float16 by default: the shipped files stay small and the networks play
the same), the network's haiku state if it has one (batch-norm averages,
under `state:module/name`) and a JSON record under `__meta__` (the rules,
the network's settings, the run). Integer arrays keep their dtype. `save`
writes atomically; `load` and `load_with_state` return float32 values and
the record, and refuse a file that is not a weights file, naming it.

Each file records its kind (`save(..., kind=...)`, the record's "kind":
"Hanabi belief model", "DeepCubeA model", ...), and a loader names the kind
it reads: a file of another kind is refused naming both ("x.npz is a Hanabi
belief model file, not a Hanabi blueprint weights file"), where it used to
fail deep in the loader on a missing setting. Files written before kinds
were recorded are told apart by their records' settings
(`_RECORDED_BEFORE_KINDS`).
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
ANY_KIND = "network weights"  # What `load` reads when told no kind.
# The kinds of the files written before `save` recorded one, by a setting
# only their records hold.
_RECORDED_BEFORE_KINDS = (
    ("Hanabi belief model", "blueprint_name"),
    ("Hanabi blueprint weights", "rules"),
    ("DeepCubeA model", "target_updates"),
)


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
         dtype: Any = np.float16, state: Optional[hk.State] = None,
         kind: Optional[str] = None) -> None:
  """Writes `params` and `state` (floating values as `dtype`) and the
  JSON-serialisable `meta`, with `kind` (what the file holds, as its
  loader names it) under "kind"."""
  if kind is not None:
    meta = {**meta, "kind": kind}
  flat = {**_flat(params, dtype), **_flat(state or {}, dtype, _STATE)}
  os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
  partial = path + ".partial.npz"
  np.savez_compressed(partial, **{_META: np.array(json.dumps(meta))}, **flat)
  os.replace(partial, path)


def kind_of(meta: dict[str, Any]) -> Optional[str]:
  """The kind of a weights file with the record `meta` (None: unknown)."""
  if "kind" in meta:
    return meta["kind"]
  return next((kind for kind, setting in _RECORDED_BEFORE_KINDS
               if setting in meta), None)


def _check_kind(path: str, meta: dict[str, Any],
                kinds: tuple[str, ...]) -> None:
  if ANY_KIND in kinds:
    return
  found = kind_of(meta)
  if found not in kinds:
    found = f"a {found} file" if found else "a weights file of another kind"
    raise ValueError(f"{path} is {found}, not a {' or '.join(kinds)} file")


def load_with_state(path: str, what: str | tuple[str, ...] = ANY_KIND
                   ) -> tuple[hk.Params, hk.State, dict[str, Any]]:
  """The parameters, the haiku state (empty if none was saved) and the
  record `save` wrote, floating values as float32.

  Args:
    path: the file.
    what: the kind of file expected (`save`'s `kind`), or kinds, or
      ANY_KIND.

  Raises:
    ValueError: naming `path` and what was expected, if it is not a weights
      file, is unreadable, or holds another kind (named).
  """
  kinds = (what,) if isinstance(what, str) else tuple(what)
  what = " or ".join(kinds)
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
      meta = json.loads(str(data[_META]))
    except (OSError, EOFError, ValueError, zipfile.BadZipFile,
            zlib.error) as error:
      raise _unreadable(path, what, error) from None
    if not isinstance(meta, dict):
      raise not_weights
    _check_kind(path, meta, kinds)
    try:
      return (*_trees(data), meta)
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


def load(path: str, what: str | tuple[str, ...] = ANY_KIND
        ) -> tuple[hk.Params, dict[str, Any]]:
  """The float32 parameters (without any haiku state) and the record `save`
  wrote (ValueError naming `path` and `what` was expected if it is not such
  a file)."""
  params, _, meta = load_with_state(path, what)
  return params, meta
