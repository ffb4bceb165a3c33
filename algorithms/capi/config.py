"""CAPI's settings."""

import dataclasses

ACQUISITIONS = ("sample", "most_likely")
POLICIES = ("network", "tabular")
EXPLORATIONS = ("epsilon", "one_per_episode")


@dataclasses.dataclass(frozen=True)
class Config:
  """Hyperparameters (the Trade Comm settings of the paper by default;
  `experiments/capi_recipes.py` gives its Tiny Bridge ones).

  `exploration` says where a training episode plays a random one of the
  acquired prescriptions instead of the best: "epsilon" at each decision with
  probability `epsilon`; "one_per_episode" at one decision per episode, drawn
  as a public depth of the game (uniformly) and a belief of the episode at
  that depth (uniformly; none if the episode ends sooner).
  """
  episodes: int = 2_000
  num_prescriptions: int = 10_000
  acquisition: str = "sample"
  policy: str = "network"
  epsilon: float = 0.1
  exploration: str = "epsilon"
  structured_exploration: bool = True
  hidden_sizes: tuple[int, ...] = (256, 256, 256)
  learning_rate: float = 1e-4
  policy_loss_weight: float = 0.01
  updates_per_episode: int = 1
  tabular_policy_rate: float = 0.01
  policy_floor: float = 0.01
  squash_values: bool = False
  eval_every: int = 50
  seed: int = 0

  def validate(self) -> None:
    if self.acquisition not in ACQUISITIONS:
      raise ValueError(f"acquisition must be one of {ACQUISITIONS}, got "
                       f"{self.acquisition!r}")
    if self.exploration not in EXPLORATIONS:
      raise ValueError(f"exploration must be one of {EXPLORATIONS}, got "
                       f"{self.exploration!r}")
    if self.policy not in POLICIES:
      raise ValueError(f"policy must be one of {POLICIES}, got "
                       f"{self.policy!r}")
    for name in ("episodes", "num_prescriptions", "updates_per_episode",
                 "eval_every"):
      if getattr(self, name) < 1:
        raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
    for name in ("epsilon", "tabular_policy_rate", "policy_floor"):
      if not 0 <= getattr(self, name) <= 1:
        raise ValueError(f"{name} must be in [0, 1], got "
                         f"{getattr(self, name)}")
    if not self.hidden_sizes or min(self.hidden_sizes) < 1:
      raise ValueError(f"hidden_sizes must be positive, got "
                       f"{self.hidden_sizes}")
    if self.learning_rate <= 0:
      raise ValueError(f"learning_rate must be > 0, got {self.learning_rate}")
