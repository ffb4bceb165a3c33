"""The network kit: layers, the masking convention, the training state."""

import re

import haiku as hk
import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from open_spiel_ext.algorithms.nn import layers
from open_spiel_ext.algorithms.nn import masking
from open_spiel_ext.algorithms.nn import training
from open_spiel_ext.algorithms.nn import weights

LOGITS = np.array([[2.0, 5.0, 1.0, 3.0], [0.5, -1.0, 4.0, 4.0],
                   [1.0, 2.0, 3.0, 4.0]], np.float32)
MASK = np.array([[True, False, True, True], [True, True, False, False],
                 [False, False, False, False]])


@pytest.mark.parametrize("as_array", [np.asarray, jnp.asarray])
def test_masked_functions_ignore_illegal_entries(as_array):
  logits, mask = as_array(LOGITS), as_array(MASK)
  np.testing.assert_array_equal(masking.masked_argmax(logits, mask)[:2],
                                [3, 0])
  np.testing.assert_array_equal(masking.masked_max(logits, mask)[:2],
                                [3.0, 0.5])
  probabilities = np.asarray(masking.masked_softmax(logits, mask))
  assert (probabilities[:2][~MASK[:2]] == 0).all()
  np.testing.assert_allclose(probabilities.sum(-1), 1, rtol=1e-6)
  legal = np.exp(LOGITS[0, [0, 2, 3]])
  np.testing.assert_allclose(probabilities[0, [0, 2, 3]], legal / legal.sum(),
                             rtol=1e-6)
  log_probabilities = np.asarray(masking.masked_log_softmax(logits, mask))
  np.testing.assert_allclose(np.exp(log_probabilities[:2]), probabilities[:2],
                             atol=1e-7)
  # A row with nothing legal (padding) stays finite: uniform.
  assert np.isfinite(log_probabilities).all()
  np.testing.assert_allclose(probabilities[2], 0.25, rtol=1e-6)


def test_numpy_in_numpy_out_jax_in_jax_out():
  assert isinstance(masking.masked_argmax(LOGITS, MASK), np.ndarray)
  assert isinstance(masking.masked_max(jnp.asarray(LOGITS), MASK), jax.Array)
  jitted = jax.jit(masking.masked_softmax)(jnp.asarray(LOGITS),
                                           jnp.asarray(MASK))
  np.testing.assert_allclose(jitted, masking.masked_softmax(LOGITS, MASK),
                             rtol=1e-6)


def test_masked_sample_draws_only_legal_actions_in_proportion():
  keys = jax.random.split(jax.random.PRNGKey(0), 4000)
  draws = np.asarray(jax.vmap(lambda key: masking.masked_sample(
      key, jnp.asarray(LOGITS[0]), jnp.asarray(MASK[0])))(keys))
  assert set(draws) <= {0, 2, 3}
  expected = np.exp(LOGITS[0, [0, 2, 3]])
  expected /= expected.sum()
  observed = np.bincount(draws, minlength=4)[[0, 2, 3]] / len(draws)
  np.testing.assert_allclose(observed, expected, atol=0.03)


def _apply(module_fn, *inputs):
  network = hk.without_apply_rng(hk.transform(module_fn))
  params = network.init(jax.random.PRNGKey(0), *inputs)
  return params, network.apply(params, *inputs)


def test_mlp_and_residual_trunk_shapes_and_skips():
  x = jnp.ones((5, 3, 2))
  params, out = _apply(lambda x: layers.MLP((8, 8), 4)(x), x)
  assert out.shape == (5, 4)
  assert set(params) == {"mlp/dense_0", "mlp/dense_1", "mlp/head"}
  # The second layer is as wide as its input, so it adds it: with zero
  # weights and biases the trunk passes its first layer's output through.
  x = jax.random.normal(jax.random.PRNGKey(4), (5, 2, 2))  # 4 wide: no skip.
  trunk = hk.without_apply_rng(hk.transform(
      lambda x: layers.residual_trunk(x, (6, 6))))
  params = trunk.init(jax.random.PRNGKey(0), x)
  params = {**params, "trunk_1": jax.tree.map(jnp.zeros_like,
                                              params["trunk_1"])}
  first = jax.nn.relu(x.reshape(5, -1) @ params["trunk_0"]["w"] +
                      params["trunk_0"]["b"])
  np.testing.assert_allclose(trunk.apply(params, x), first, rtol=1e-6)
  with pytest.raises(ValueError, match="widths must be >= 1"):
    _apply(lambda x: layers.MLP((8, 0), 4)(x), x)


def test_lstm_torso_unroll_equals_stepping():
  inputs = jax.random.normal(jax.random.PRNGKey(1), (6, 3, 5))

  def unrolled(inputs):
    torso = layers.LSTMTorso((8,), 7)
    return torso.unroll(inputs, torso.initial_state(3))

  def stepped(inputs):
    torso = layers.LSTMTorso((8,), 7)
    state = torso.initial_state(3)
    outputs = []
    for t in range(inputs.shape[0]):
      output, state = torso(inputs[t], state)
      outputs.append(output)
    return jnp.stack(outputs), state

  params, (outputs, _) = _apply(unrolled, inputs)
  step_outputs, _ = hk.without_apply_rng(hk.transform(stepped)).apply(
      params, inputs)
  assert outputs.shape == (6, 3, 7)
  np.testing.assert_allclose(outputs, step_outputs, rtol=1e-5, atol=1e-6)


def test_make_update_fits_a_regression_and_counts_steps():
  network = hk.without_apply_rng(hk.transform(
      lambda x: layers.MLP((), 1)(x)[:, 0]))
  x = jax.random.normal(jax.random.PRNGKey(2), (64, 3))
  y = x @ jnp.array([1.0, -2.0, 0.5]) + 0.3

  def loss_fn(params, net_state, x, y):
    error = network.apply(params, x) - y
    loss = jnp.mean(error**2)
    return loss, (net_state, (loss, jnp.abs(error).max()))

  optimizer = optax.adam(0.05)
  state = training.init_train_state(network.init(jax.random.PRNGKey(3), x),
                                    {}, optimizer)
  update = jax.jit(training.make_update(loss_fn, optimizer))
  first_loss = None
  for _ in range(300):
    state, (loss, worst) = update(state, x, y)
    first_loss = first_loss if first_loss is not None else float(loss)
  assert int(state.step) == 300
  assert float(loss) < 1e-3 * first_loss and float(worst) < 0.1


def test_target_network_copies():
  optimizer = optax.sgd(0.1)
  params = {"w": jnp.ones(2)}
  state = training.init_train_state(params, {}, optimizer, with_target=True)
  assert not bool(training.has_target(state))
  state = state._replace(params={"w": jnp.zeros(2)}, step=jnp.int32(7))
  copied = training.copy_to_target(state)
  assert bool(training.has_target(copied)) and int(copied.target_step) == 7
  np.testing.assert_array_equal(copied.target_params["w"], 0)
  assert training.init_train_state(params, {}, optimizer).target_params is None


def test_weights_files_round_trip_parameters_state_and_record(tmp_path):
  params = {"net/linear": {"w": np.full((2, 3), 0.5, np.float32)}}
  state = {"net/~/mean_ema": {"average": np.ones((1, 3), np.float32),
                              "counter": np.array(7, np.int32)}}
  path = str(tmp_path / "net.npz")
  weights.save(path, params, {"run": 1}, state=state)
  loaded, loaded_state, meta = weights.load_with_state(path)
  jax.tree.map(np.testing.assert_array_equal, (loaded, loaded_state),
               (params, state))
  assert loaded_state["net/~/mean_ema"]["counter"].dtype == np.int32
  assert loaded["net/linear"]["w"].dtype == np.float32
  assert meta == {"run": 1}
  assert weights.load(path)[0].keys() == params.keys()
  (tmp_path / "other.npz").write_bytes(b"not a weights file")
  with pytest.raises(ValueError, match="other.npz is not a toy network"):
    weights.load(str(tmp_path / "other.npz"), "toy network")


@pytest.mark.parametrize("damage,message", [
    ("truncated", "is not a readable toy network file: it is truncated"),
    ("empty", "is not a readable toy network file: it is truncated"),
    ("garbage", "is not a toy network file"),
    ("npy", "is not a toy network file"),
    ("missing", "no such toy network file")])
def test_a_damaged_weights_file_is_refused_naming_it(tmp_path, damage,
                                                    message):
  """Where numpy raised BadZipFile, or advised loading a garbage file
  'unsafely', one ValueError names the file and what it should be."""
  path = str(tmp_path / "net.npz")
  weights.save(path, {"net/linear": {"w": np.ones((50, 50), np.float32)}},
               {"run": 1})
  data = (tmp_path / "net.npz").read_bytes()
  if damage == "npy":
    np.save(str(tmp_path / "net.npy"), np.ones(3))
    path = str(tmp_path / "net.npy")
  elif damage == "missing":
    path = str(tmp_path / "none.npz")
  else:
    (tmp_path / "net.npz").write_bytes({
        "truncated": data[:len(data) // 2], "empty": b"",
        "garbage": bytes(range(256)) * 4}[damage])
  with pytest.raises(ValueError,
                     match=re.escape(path) + ":? " + message) as error:
    weights.load(path, "toy network")
  assert "unsafe" not in str(error.value)
