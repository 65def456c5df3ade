"""Public task sets as webdojo tasks: one module per format, and the importer that runs them.

========================  ==========================================================
format (``Task.source``)  what it reads
========================  ==========================================================
``webvoyager``            WebVoyager_data.jsonl + reference_answer.json (golden/possible)
``online_mind2web``       Online-Mind2Web JSON list (level, reference_length)
``mind2web_live``         Mind2Web-Live JSON list; its evaluation -> ``eval_rules``
``deepshop``              DeepShop JSONL (difficulty -> level)
``mind2web2``             Mind2Web-2 JSONL (no website)
``webgym``                WebGym JSONL / parquet (fact groups -> rubric)
``insta``                 InSTA CSV (numpy-array text columns)
``flashrag``              FlashRAG QA JSONL (golden answers)
``verl_qa``               verl QA parquet (ground truth -> golden answers)
``builtin``               webdojo's built-in sites
========================  ==========================================================

``import_tasks(sources, out)`` (``importer.py``) is what ``webdojo tasks import`` runs;
``detect.py`` picks the format, ``readers.py`` reads each file kind, ``base.py`` holds what the
formats share. To add a format: a module with a ``Format`` (its keys, a converter from a raw
record to Task fields), listed in ``registry.py``, and a test on a real file.
"""

from webdojo.tasks.sources.importer import ImportReport, Skipped, SourceReport, import_tasks
from webdojo.tasks.sources.registry import FORMATS, get_format

__all__ = ["FORMATS", "ImportReport", "Skipped", "SourceReport", "get_format", "import_tasks"]
