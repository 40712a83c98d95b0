"""The installed package's version, in a module that imports nothing of `bounded` (the
runner stamps it on every run; `bounded.__version__` re-exports it)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("bounded")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = ["__version__"]
