"""Hosted third-party environments: MiniWoB++ and an offline Wikipedia (ZIM files)."""
