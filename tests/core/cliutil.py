"""What the CLI tests of bad input check: a refusal is exit code 2 and one `error:` line on stderr."""

from __future__ import annotations

import subprocess


def one_line_error(p: subprocess.CompletedProcess[str], *needles: str) -> str:
    """The one `error:` line of a refused command (exit 2), which holds every needle."""
    assert p.returncode == 2, (p.returncode, p.stdout[-500:], p.stderr[-2000:])
    lines = [x for x in p.stderr.strip().splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]
