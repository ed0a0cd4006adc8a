"""Benchmark suites (pytest-benchmark); see bench/README.md. A package so that
its conftest does not shadow tests/conftest.py when both folders are collected."""
