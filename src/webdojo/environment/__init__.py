"""Environments for one task each, for code that drives its own loop: ``webdojo.make`` (blocking,
``sync_env.Env``) and ``webdojo.make_async`` (asyncio, ``async_env.AsyncEnv``), the
Gymnasium registration (``gym_env``), and what they share (``runtime``: one browser and one
site server per event loop). The episode's rules are ``tasks.episode_core``'s."""
