"""Task generation with a model: rubrics (``rubric.py``) and WebGym's decomposition
(``decompose.py``, the pure algorithm; ``subtasks.py``, the model's rewrites). ``runner.py`` runs
the model questions with bounded concurrency, a reply cache (``cache.py``) and token accounting;
``ask.py`` retries replies that fail validation; ``prompts.py`` holds our versioned prompts."""
