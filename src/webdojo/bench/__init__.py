"""Benchmarks: programs that print ratios against a baseline measured in the same run.

``webdojo.bench.env_bench``: the browser environment against raw Playwright.
"""
