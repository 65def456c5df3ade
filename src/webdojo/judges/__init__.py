"""Judges: turn stored trajectories into verdicts and rewards.

One protocol (``base.Judge``: a ``trajectory.Trajectory`` in, a ``store.verdicts.Verdict`` out)
and its judges: ``programmatic`` (built-in verifiers, Mind2Web-Live rules), ``exact`` and
``f1`` (answer matching), ``rubric`` (WebGym), ``website-failure`` (Weblica) and consensus
votes over several (``consensus``). ``spec`` names them, ``runner`` judges a whole run,
``reverify`` checks a run's stored rewards again (``webdojo verify``). Judges read
``webdojo.store`` records and task sets and ask models through ``webdojo.models``; they never
drive a browser.
"""
