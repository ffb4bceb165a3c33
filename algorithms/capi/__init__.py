"""CAPI: cooperative approximate policy iteration in the public belief MDP.

A coordinator plays a common-payoff game through its public belief MDP
(`pub_mdp`). At each belief b of an episode it

1. reads a policy over prescriptions that factorises over the acting players'
   private states, π(Γ | b) = ∏_p ∏_x π(Γ_p(x) | b), from a network head (or a
   table per public stage);
2. acquires K prescriptions: K samples, or the K most likely;
3. scores each: q = expected immediate reward + Σ_o P(o) v(b'_o) over the
   public outcomes o, with v the value network on every distinct next belief
   (evaluated once each, in one jitted call per decision);
4. plays the best (a random one of the K with probability ε), and records
   (b, q*, Γ*).

Episodes expand every public branch with positive probability, level by
level; after each, the value network is fitted to q* and the policy to Γ* on
the episode's decisions, and the buffer is cleared.

- `config`: its settings (`Config`).
- `model`: the value network and the policy (step 1), and their updates.
- `prescriptions`: acquiring and scoring K prescriptions (steps 2 and 3).
- `capi`: the learner's episodes (step 4), the training loop with its
  evaluations, and checkpoints (`train`).
"""
