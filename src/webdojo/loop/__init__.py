"""``webdojo train loop``: a learning run on task instances, round after round.

A program above the library layers: it rolls out (``rollout``), judges (``judges``), selects
and trains (``training``) and scores held-out instances with the evaluation's statistics
(``eval``). ``config`` says what is asked, ``splits`` which instances train and which are held
out, ``stages`` runs one stage each, ``run`` the whole loop, ``report``/``plot``/``page``
what a person reads afterwards.
"""
