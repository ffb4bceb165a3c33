"""The network registry: the names learners' configs give, what they build,
and the names it refuses."""

import haiku as hk
import jax
import jax.numpy as jnp
import pytest

from open_spiel_ext.algorithms.rl import networks


def test_the_mlp_builds_a_network_and_an_actor_critic():
  observation = jnp.zeros((3, 5))
  network = networks.build("mlp", (8,), 4, "policy")
  params = network.init(jax.random.PRNGKey(0), observation)
  assert network.apply(params, observation).shape == (3, 4)
  both = networks.build_actor_critic("mlp", (8,), 4, "policy")
  logits, value = both.apply(both.init(jax.random.PRNGKey(0), observation),
                             observation)
  assert (logits.shape, value.shape) == ((3, 4), (3, 1))


@pytest.mark.parametrize("name", networks.registered_networks())
def test_every_registered_network_builds(name):
  assert isinstance(networks.build(name, (8,), 4, "policy"), hk.Transformed)
  assert isinstance(networks.build_actor_critic(name, (8,), 4, "policy"),
                    hk.Transformed)


def test_games_register_their_networks_and_unknown_names_are_refused():
  assert networks.registered_networks() == ("mlp", "stratego_conv")
  with pytest.raises(ValueError, match=r"network must be one of \('mlp', "
                     r"'stratego_conv'\), got network='resnet'"):
    networks.build("resnet", (8,), 4, "policy")


def test_a_name_names_one_network():
  builders = networks.NetworkBuilders(networks.build, networks.build)
  with pytest.raises(ValueError, match="registered as 'mlp' already"):
    networks.register("mlp", builders)
