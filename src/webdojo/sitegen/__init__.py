"""``webdojo sites generate``: synthetic sites written by a model, validated in Chromium.

Each site is parameterized by a (capability, category, style) triple sampled from the catalogs
we ship (``catalogs.py``). The model writes the site and its tasks in one JSON reply
(``reply.py``); the site is checked in real Chromium (``validate.py``, ``page_check.py``) and
every problem goes back to the model as a repair request, up to a cap (``pipeline.py``).
"""
