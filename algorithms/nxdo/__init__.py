"""Neural Extensive-Form Double Oracle (NXDO) and NXDO-VA: restricted games.

NXDO keeps a population of learned policies (each one network that plays
both seats, told apart by the information-state tensor, as the learned best
responses of `algorithms/rl` are trained). Its restricted game keeps the
original game's histories but replaces the actions: at every information
state the player to move picks a population member (a meta-action), and that
member's action is sampled and applied. The game therefore grows with the
population, not with the action space. NXDO-VA ("valid actions") keeps the
original actions instead and masks those that no member plays (with
probability at least `va_threshold`), as tabular XDO does.

- `restricted_game`: that game as a JAX engine of the batched-environment
  contract (`games/batched.py`) over an engine of the original game, so
  NFSP (`algorithms/rl/nfsp.py`) solves it as it solves any game.
- `meta_ne`: a restricted-game policy (the meta-NE) as a policy of the
  original game, and its exploitability within the restricted game.
- `oracles`: best responses that become members, exact (tree engine) or
  learned (`train_best_response` until a plateau).
- `solvers`: the meta-NE of a restricted game, by CFR+ on the tree (tabular
  members) or by NFSP on a schedule.
- `driver`: the NXDO loop over an oracle and a solver, checkpointed.

Which oracle, solver, schedule and evaluator the reference ran on which game
is experiment knowledge: `open_spiel_ext/experiments/nxdo_recipes.py`.
"""
