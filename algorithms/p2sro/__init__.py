"""Pipeline PSRO and its rivals with learned best responses, on the
executors (local processes or Ray), checkpointed and resumable.

A population (`rl/population.py`) starts from one random network. Active
learners (any learner of `algorithms/rl`, in the symmetric mode) train in
rounds of `chunk_steps` batched steps each, against a mixture of members
drawn per game.

- `p2sro`: `learners` active levels; level j trains against the meta-Nash
  of the fixed policies and the active ones below it (their parameters as of
  the last round), mixed with uniform by `uniform_mix` as the reference
  does; only the lowest active level can be fixed, once its mean return
  gained less than `plateau_gain` over a round after at least `min_steps`,
  and a new level starts on top.
- `psro`: sequential PSRO, one learner, the same plateau rule.
- `naive`: `learners` learners against the meta-Nash of the fixed policies
  only; any that plateaus is fixed and replaced.
- `dch`: `learners` levels as in P2SRO, never fixed (its population is the
  levels themselves).
- `rectified`: generations; every member in the meta-Nash's support starts
  a learner against the Nash-weighted members it beats or ties; each trains
  until it plateaus, and the generation joins the population together.
- `self_play`: one learner against the newest member; fixed on a plateau.

With `anchors` (p2sro, psro, naive), fixed single policies of other kinds,
such as a game's scripted bots (`make_anchor` makes them from their names),
head the population: rows of its payoff table and members of every mixture
the learners train against, never trained themselves. That is a variant to
report beside a method, not the method.

With `warm_start`, a learner that replaces a fixed one (p2sro, psro, naive,
self_play) starts from the learner state (network, optimiser, buffers) of
the newest learner still active, or of the one just fixed when none is,
with its own games and random stream; otherwise from a new network.

Each round logs the exploitability of the meta-Nash of the population (with
DCH's levels): exact where the game's tree fits (the payoffs exact too), or
from the `evaluator` given (the payoffs then from sampled games), such as
the approximate exploitability on the Loss Game, whose learners act
continuously (a continuous PPO config; members play their actions).

The driver (`pipeline.Pipeline`) holds the population and its payoff
table; each active learner is a training carry in a checkpoint file. A round submits one
executor task per active learner (`train_chunk`), which loads the carry,
trains against the mixture the driver hands it (the members' parameters and
weights), saves the carry under a new name and returns the learner's
parameters and mean return (`tasks.py`). The driver fixes what plateaued, extends the
payoff table and saves its own state (`state.pkl`) atomically; only then do
the new carries count. The same command with the same directory resumes
from `state.pkl` (`fork_from` starts a new run from another run's state under
other method settings; `copy_state` keeps a copy a run resumes from, with
`portable` one of megabytes: each task also saves its carry's portable
twin). With `task_opponents`, a round's task trains against that many
members drawn from its mixture rather than the whole mixture (a step then
runs at most that many opponent networks). A task whose worker died (its
executor broken) is started again on a new executor from the carry it
started from, so a run with a killed worker ends exactly as one never
interrupted. The algorithm does not know which executor runs its tasks.
The files of a run are `persistence.py`'s, its settings and log
`settings.py`'s; `analysis.py` reads a finished or saved run.
"""

from open_spiel_ext.algorithms.p2sro import analysis
from open_spiel_ext.algorithms.p2sro import persistence
from open_spiel_ext.algorithms.p2sro import pipeline
from open_spiel_ext.algorithms.p2sro import settings
from open_spiel_ext.algorithms.p2sro import tasks

Config = settings.Config
LogEntry = settings.LogEntry
METHODS = settings.METHODS
Pipeline = pipeline.Pipeline
STATE_FILE = persistence.STATE_FILE
carry_bytes = tasks.carry_bytes
engine = tasks.engine
entry_bytes = tasks.entry_bytes
portable_path = tasks.portable_path
stack_mixture = tasks.stack_mixture
trainer_for = tasks.trainer_for
SavedRun = analysis.SavedRun
saved_run = analysis.saved_run
LearnerHistory = analysis.LearnerHistory
learner_histories = analysis.learner_histories
best_response_payoffs = analysis.best_response_payoffs
first_trained = analysis.first_trained
networks_part = analysis.networks_part
fixings_table = analysis.fixings_table
# Driver states saved before the package was split name the learners'
# record, and their log entries, by this module.
_Active = persistence.ActiveLearner
