"""The networks a learner's config names, by name: a registry of builders.

"mlp" (dense layers over the flattened observation, any game) is built in.
A game kit's own networks register themselves (`register`) in the module
that defines them (Stratego's "stratego_conv",
`algorithms/stratego/network.py`). Configs name networks by string and are
run in spawned worker processes or restored from checkpoints, where that
module may not be imported yet: a name not registered is looked for by
importing the modules that register networks, which
`_import_registering_modules` lists (as pgx's `make` does), once, before it
is refused; `tests/layering_test.py` counts those imports as registrations
(each such module imports this one). `hidden_sizes` gives the layer widths
of any network. `build` makes one network (a policy's logits, or a value);
`build_actor_critic` one trunk with both heads.
"""

import functools
from typing import Callable, NamedTuple, Sequence

import haiku as hk

from open_spiel_ext.algorithms.nn import layers
from open_spiel_ext.algorithms.rl import dqn

# (hidden_sizes, num_outputs, name) -> a network from observations [B, ...]
# to [B, num_outputs] (logits, or a value for num_outputs=1), or, for an
# actor-critic, to (logits [B, num_outputs], value [B, 1]).
Builder = Callable[[Sequence[int], int, str], hk.Transformed]


class NetworkBuilders(NamedTuple):
  """How to build a registered network: alone, or as an actor-critic."""
  network: Builder
  actor_critic: Builder


def _mlp(hidden_sizes: Sequence[int], num_outputs: int,
         name: str) -> hk.Transformed:
  return dqn.q_network(tuple(hidden_sizes), num_outputs, name=name)


def _mlp_actor_critic(hidden_sizes: Sequence[int], num_actions: int,
                      name: str) -> hk.Transformed:
  def mlp(x):
    trunk = layers.MLP(hidden_sizes, name=name)(x)
    return (hk.Linear(num_actions, name=f"{name}_policy")(trunk),
            hk.Linear(1, name=f"{name}_value")(trunk))
  return hk.without_apply_rng(hk.transform(mlp))


_REGISTRY: dict[str, NetworkBuilders] = {
    "mlp": NetworkBuilders(_mlp, _mlp_actor_critic)}


def register(name: str, builders: NetworkBuilders) -> None:
  """Makes `name` build networks with `builders`.

  Raises:
    ValueError: another network is registered under `name` already.
  """
  if _REGISTRY.get(name, builders) != builders:
    raise ValueError(f"a network is registered as {name!r} already: "
                     f"{_REGISTRY[name]}")
  _REGISTRY[name] = builders


@functools.cache
def _import_registering_modules() -> None:
  """Imports every module that registers networks (once a process)."""
  # pylint: disable=g-import-not-at-top,unused-import,cyclic-import
  from open_spiel_ext.algorithms.stratego import network as stratego_network


def registered_networks() -> tuple[str, ...]:
  """Every network name a config can give, sorted."""
  _import_registering_modules()
  return tuple(sorted(_REGISTRY))


def _builders(network: str) -> NetworkBuilders:
  """The builders registered as `network`.

  Raises:
    ValueError: no network is registered as `network`.
  """
  if network not in _REGISTRY:
    _import_registering_modules()
  if network not in _REGISTRY:
    raise ValueError(
        f"network must be one of {registered_networks()}, got "
        f"network={network!r} (a network is registered by the module that "
        f"defines it, listed in `{__name__}._import_registering_modules`)")
  return _REGISTRY[network]


def check(network: str) -> None:
  """Raises ValueError unless a network is registered as `network`."""
  _builders(network)


def build(network: str, hidden_sizes: Sequence[int], num_outputs: int,
          name: str) -> hk.Transformed:
  """The network `network` names, from observations [B, ...] to
  `num_outputs` outputs [B, num_outputs] (logits, or 1 for a value)."""
  return _builders(network).network(hidden_sizes, num_outputs, name)


def build_policy(network: str, hidden_sizes: Sequence[int], num_actions: int,
                 shared_trunk: bool = False, name: str = "policy"
                ) -> hk.Transformed:
  """Observations [B, ...] to logits [B, num_actions]: the policy network,
  or with `shared_trunk` the logits of `build_actor_critic`'s network (whose
  parameters hold the value head too)."""
  if not shared_trunk:
    return build(network, hidden_sizes, num_actions, name)
  both = build_actor_critic(network, hidden_sizes, num_actions, name)
  return hk.Transformed(both.init, lambda params, x: both.apply(params, x)[0])


def build_actor_critic(network: str, hidden_sizes: Sequence[int],
                       num_actions: int, name: str) -> hk.Transformed:
  """One trunk with a policy head and a value head: observations [B, ...]
  to (logits [B, num_actions], value [B, 1])."""
  return _builders(network).actor_critic(hidden_sizes, num_actions, name)
