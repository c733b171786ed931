"""The version of zeroclaw-eval: written here only (pyproject.toml reads it from here)."""

__version__ = "0.1.0"
