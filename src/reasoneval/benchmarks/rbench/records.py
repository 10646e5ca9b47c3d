"""Moved: the records reader is the core's, :mod:`reasoneval.core.records` (re-exported here)."""

from reasoneval.core.records import *  # noqa: F403
from reasoneval.core.records import DataError, Record, configured, data_files, data_path, read_records  # noqa: F401
