"""Writes the generated reference pages into the site (run by mkdocs-gen-files at build time).

Nothing here is committed: the pages are made from the code on every build, so they cannot
go stale. ``site_pages.py`` lists them; each page's module is next to this file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import mkdocs_gen_files

sys.path.insert(0, str(Path(__file__).parent))  # runpy does not add the script's folder

from site_pages import generated

for path, text in generated().items():
    with mkdocs_gen_files.open(path, "w") as f:
        f.write(text())
