"""Writing an output file the user named (exports, report files): all or nothing, one-line errors.

A regular file is written under a temporary name in its folder and renamed into place once complete, so an
interrupted or failed write never leaves a half-written file under the name (an existing file is replaced
only then, keeping its permissions). A device or pipe (``/dev/stdout``, a FIFO) is written directly. Every
failure is an :class:`OutputError` whose message is one line naming the path.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path


class OutputError(Exception):
    """An output file cannot be written; ``str(e)`` is one line naming it."""


def _reason(e: OSError) -> str:
    return e.strerror or str(e) or type(e).__name__


def check_target(path: Path) -> None:
    """Fail early (before anything is computed) when ``path`` cannot be a file we write."""
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder; give a file name")
    parent = path.parent
    if not parent.exists():
        raise OutputError(f"cannot write {path}: no folder {parent}")
    if not parent.is_dir():
        raise OutputError(f"cannot write {path}: {parent} is not a folder")


@contextlib.contextmanager
def output_path(path: Path) -> Iterator[Path]:
    """The path to write ``path``'s content to; it becomes ``path`` when the block ends without an error.
    An ``OSError`` in the block (disk full, permission denied, ...) becomes an :class:`OutputError`."""
    path = Path(path)
    check_target(path)
    try:
        st = os.stat(path)  # what the name stands for, links followed
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise OutputError(f"cannot write {path}: {_reason(e)}") from e
    if st is not None and not stat.S_ISREG(st.st_mode):  # a device or a pipe: written as it comes
        try:
            yield path
        except OSError as e:
            raise OutputError(f"cannot write {path}: {_reason(e)}") from e
        return
    target = Path(os.path.realpath(path))  # a symlink to a file: the file is replaced, the link kept
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # the umask applies, as for any file
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
        yield tmp
        with open(tmp, "rb+") as f:  # durable before it takes the name
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except OSError as e:
        raise OutputError(f"cannot write {path}: {_reason(e)}") from e
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def write_text(path: Path, text: str) -> None:
    """``path`` holds ``text`` (UTF-8; a lone surrogate is written as its backslash escape), all or nothing."""
    with output_path(path) as tmp:
        tmp.write_bytes(text.encode("utf-8", "backslashreplace"))
