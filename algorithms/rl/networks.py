"""The networks a learner's config can name: "mlp" (dense layers over the
flattened observation, any game) and "stratego_conv" (convolutions over
Stratego's observation planes with a square-by-square policy head,
`algorithms/stratego/network.py`). `hidden_sizes` gives the layer widths of
either. `build` makes one network (a policy's logits, or a value);
`build_actor_critic` one trunk with both heads."""

from typing import Sequence

import haiku as hk

from open_spiel_ext.algorithms.nn import layers
from open_spiel_ext.algorithms.rl import dqn
from open_spiel_ext.algorithms.stratego import network as stratego_network

NETWORKS = ("mlp", "stratego_conv")


def check(network: str) -> None:
  """Raises ValueError unless `network` is one of NETWORKS."""
  if network not in NETWORKS:
    raise ValueError(f"network must be one of {NETWORKS}, got "
                     f"network={network!r}")


def build(network: str, hidden_sizes: Sequence[int], num_outputs: int,
          name: str) -> hk.Transformed:
  """The network `network` names, from observations [B, ...] to
  `num_outputs` outputs [B, num_outputs] (logits, or 1 for a value)."""
  check(network)
  if network == "mlp":
    return dqn.q_network(tuple(hidden_sizes), num_outputs, name=name)
  return hk.without_apply_rng(hk.transform(
      lambda x: stratego_network.StrategoNet(hidden_sizes, num_outputs,
                                             name=name)(x)))


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
  check(network)
  if network == "stratego_conv":
    return hk.without_apply_rng(hk.transform(
        lambda x: stratego_network.StrategoNet(
            hidden_sizes, num_actions, name=name, with_value=True)(x)))

  def mlp(x):
    trunk = layers.MLP(hidden_sizes, name=name)(x)
    return (hk.Linear(num_actions, name=f"{name}_policy")(trunk),
            hk.Linear(1, name=f"{name}_value")(trunk))
  return hk.without_apply_rng(hk.transform(mlp))
