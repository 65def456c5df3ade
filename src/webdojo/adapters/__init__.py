"""Adapters: webdojo in the shapes that other training frameworks call.

Each adapter lives in its own module, behind an optional extra when it needs the framework's
package; none is imported by the rest of webdojo.

* ``openai_agent``: AReaL's agent workflow (``async run(data, **extra_kwargs) -> float``), one
  episode against an injected OpenAI-compatible endpoint. It needs no extra: AReaL imports
  it, and it imports nothing of AReaL.
"""
