"""JSON-lines reading with errors that name the file and line (one reader for every benchmark).

Lines are split on ``\\n`` and each one is decoded and parsed on its own (UTF-8; a leading BOM is allowed),
so a bad line -- invalid JSON, invalid UTF-8, not an object, nested deeper than the parser goes (about 1,000
levels: :func:`json_value`), longer than :data:`MAX_LINE_BYTES` -- is an error naming ``file:line``.
:func:`iter_jsonl` stops at the first one; :func:`iter_jsonl_tolerant` hands it over and reads on (outside
completions given to ``rescore``, where one bad row must not hide the rest): an over-long line of a regular file
is skipped without being held and the lines after it are read; a device or pipe with one (``/dev/zero``) stops
there.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

E = TypeVar("E", bound=Exception)

#: the longest line read (a row with embedded images fits many times over); a file with a longer one, such as
#: ``/dev/zero``, is an error at that line instead of reading without limit
MAX_LINE_BYTES = 64 << 20
MakeError = Callable[[Path, "int | None", str], Exception]


#: bytes read from the file at a time: raw-output lines are a few KiB, so the default 8 KiB buffer reads most lines
#: in several calls; 1 MiB reads a release's 650 MB in a quarter of the time
READ_BUFFER = 1 << 20


class TooDeep(ValueError):
    """JSON nested deeper than the parser goes (Python's recursion limit)."""


def json_value(data: str | bytes | bytearray) -> Any:
    """``json.loads``, where a document nested deeper than the parser goes (about ``sys.getrecursionlimit()``
    levels) is a :class:`TooDeep` (a ``ValueError``, as other invalid JSON is) instead of a ``RecursionError``."""
    try:
        return json.loads(data)
    except RecursionError:
        raise TooDeep(f"JSON nested too deeply (more than about {sys.getrecursionlimit()} levels)") from None


def located(path: Path, line: int | None, msg: str) -> str:
    return f"{path}:{line}: {msg}" if line is not None else f"{path}: {msg}"


def _error(make_error: Callable[[Path, int | None, str], E], path: Path, line: int | None, msg: str,
           cause: BaseException) -> E:
    err = make_error(path, line, msg)
    err.__cause__ = cause
    return err


def iter_jsonl_tolerant(path: str | Path, make_error: Callable[[Path, int | None, str], E]
                        ) -> Iterator[tuple[int, dict[str, Any] | E]]:
    """(line number, object) for every non-blank line, or (line number, ``make_error(path, line, message)``)
    for a line that is not a JSON object; reading goes on after it. A file that cannot be opened gives one
    ``(0, make_error(path, None, ...))``."""
    p = Path(path)
    try:
        fh = p.open("rb", buffering=READ_BUFFER)
    except OSError as e:
        yield 0, _error(make_error, p, None, f"cannot open: {e.strerror}", e)
        return
    with fh:
        regular = stat.S_ISREG(os.fstat(fh.fileno()).st_mode)
        lineno = 0
        while True:
            line = fh.readline(MAX_LINE_BYTES + 1)
            if not line:
                break
            lineno += 1
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                if not regular:  # /dev/zero, a pipe: there may be no end to skip to
                    yield lineno, make_error(p, lineno, f"line longer than {MAX_LINE_BYTES >> 20} MiB; not a "
                                                        "JSON-lines file? (reading stopped)")
                    return
                skipped = _skip_line(fh) + len(line)
                yield lineno, make_error(p, lineno, f"line of {skipped:,} bytes, longer than the "
                                                    f"{MAX_LINE_BYTES >> 20} MiB a line may have; skipped")
                continue
            if not line.strip():
                continue
            try:
                rec = json_value(_as_text(line))
            except TooDeep as e:
                yield lineno, _error(make_error, p, lineno, str(e), e)
                continue
            except json.JSONDecodeError as e:
                yield lineno, _error(make_error, p, lineno, f"invalid JSON ({e.msg} at column {e.colno})", e)
                continue
            except UnicodeDecodeError as e:
                yield lineno, _error(make_error, p, lineno, f"invalid JSON (not UTF-8: {e.reason} at byte "
                                                            f"{e.start + 1})", e)
                continue
            if not isinstance(rec, dict):
                yield lineno, make_error(p, lineno, f"expected a JSON object, got {type(rec).__name__}")
                continue
            yield lineno, rec


def _as_text(line: bytes) -> str | bytes:
    """The line decoded as UTF-8 when ``json.loads`` would decode it so (no BOM, none of the NUL bytes of UTF-16
    or UTF-32 in its first four) and it is valid UTF-8: the same text ``json.loads`` makes of the bytes (its
    'surrogatepass' decoding differs only on input strict UTF-8 rejects), a third faster. Otherwise the bytes,
    which ``json.loads`` decodes, or rejects, as ever."""
    if line.startswith(b"\xef\xbb\xbf") or b"\x00" in line[:4]:
        return line
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line


def _skip_line(fh: Any) -> int:
    """Read past the rest of the current line (1 MiB at a time, nothing kept); the bytes skipped."""
    n = 0
    while True:
        chunk = fh.readline(1 << 20)
        n += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return n


def iter_jsonl(path: str | Path, make_error: MakeError) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; raises ``make_error(path, line, message)`` on the
    first bad one."""
    for lineno, rec in iter_jsonl_tolerant(path, make_error):
        if isinstance(rec, Exception):
            raise rec
        yield lineno, rec
