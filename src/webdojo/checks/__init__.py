"""Checkers any user can run on their own sites and tasks, built on the rollout engine with
the scripted policy. ``sites``: ``webdojo sites check``, is a site directory fit to train on
(pages load cleanly, every reference solution passes and every wrong one fails)?
"""
