"""The error types every layer shares: bad data, bad options."""

from __future__ import annotations

from pathlib import Path


class DataError(ValueError):
    """Bad or missing benchmark data; the message names the file (and line/row/field where known).

    ``DataError(message)`` or ``DataError(path, line, message)`` (the message then starts ``path:line:``).
    """

    def __init__(self, *args: object) -> None:
        self.path: str | None = None
        self.line: int | None = None
        if len(args) == 3 and isinstance(args[0], str | Path) and (args[1] is None or isinstance(args[1], int)):
            path, line, message = args
            self.path, self.line = str(path), line  # type: ignore[assignment]
            where = f"{self.path}:{line}" if line is not None else self.path
            super().__init__(f"{where}: {message}")
        else:
            super().__init__(*args)


class OptionError(ValueError):
    """A benchmark option that is unknown or has a value outside its allowed values."""
