"""Hosted third-party environments: task pages written elsewhere, served by webdojo."""
