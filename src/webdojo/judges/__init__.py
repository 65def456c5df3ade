"""Judges: turn stored trajectories into rewards.

Today: ``reverify`` (the tasks' programmatic verifiers, run again on stored final states).
Judges read ``webdojo.store`` records and task sets; they never drive a browser.
"""
