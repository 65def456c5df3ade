"""``webdojo eval``: a model scored on a fixed suite, with its uncertainty and its provenance.

A score is a success rate with a 95% confidence interval from a nested bootstrap over tasks and
their repeats (``bootstrap``, ``stats``); two evals are compared task by task, with a paired
bootstrap interval on the difference and a paired sign-flip permutation test (``compare``); and
every eval writes a reproducibility manifest (``manifest``: versions, git hash, suite, Chromium,
model and sampling settings) so that a later comparison can say what differed. Faulted episodes
(env or infra) are never scored: they are counted apart and can make an eval invalid.
"""
