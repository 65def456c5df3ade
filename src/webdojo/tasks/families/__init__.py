"""Task families: parameterized task templates on webdojo's sites, instances drawn by seed.

``family.Family`` is one template; ``registry.families()`` all of them; ``spec`` reads
``--tasks family:NAME[:N][@SEED]``. Each site's families live in the module named after it.
"""
