"""From scored trajectories to a trained policy.

``rewards`` (verdicts or verifiers) -> ``selection`` (the papers' rules; ``samples`` on disk)
-> ``contexts`` (each sample's prompt, rebuilt with the policy's own template) -> ``exports``
(trainer formats) or the reference trainer (``trainer``, over ``tiny_models``, ``encoding``,
``objectives``, ``batches``, ``checkpoints``) -> ``loop`` (serve with ``policy_server``, roll
out, judge, select, update).
"""
