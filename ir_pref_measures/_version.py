"""The package's version, read by the build (``pyproject.toml``) without importing the package."""

__version__ = "0.1.0"
