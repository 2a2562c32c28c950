"""The package's version: written once here (pyproject.toml reads it; every module imports it)."""

__version__ = "0.1.0"
