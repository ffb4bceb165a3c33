"""The one network kit of the learned algorithms (haiku and optax).

`layers`: MLP, residual MLP, CAPI's residual trunk, an LSTM torso.
`masking`: the one way illegal actions are masked, for numpy and JAX arrays.
`training`: `TrainState` and a jitted update from a loss and an optimiser.
"""
