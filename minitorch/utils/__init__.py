"""Utilities that are not part of the tensor engine; ``minitorch.utils.data`` holds the data pipeline."""

from . import data

__all__ = ["data"]
