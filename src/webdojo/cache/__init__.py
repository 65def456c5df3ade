"""Record and replay of websites: WARC archives with a SQLite index, tiered request matching
under normalization rules (generic, per-domain, learned), deterministic pages, importers."""
