"""From scored trajectories to training data: the papers' selection rules (``selection``),
rewards from verdicts or verifiers (``rewards``), selections on disk (``samples``).

Exports for common trainers and the reference trainer are not built yet (issue 10)."""
