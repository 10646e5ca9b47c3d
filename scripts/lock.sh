#!/usr/bin/env bash
# Rewrite constraints.txt from the active venv: the exact versions the tests ran on.
# Use after changing dependencies:  . .venv/bin/activate && bash scripts/lock.sh && bash .ci/run
set -euo pipefail
cd "$(dirname "$0")/.."
{
  echo "# Lock: every package of the venv CI's tests ran on (python $(python -c 'import sys; print(sys.version.split()[0])'), $(uname -m))."
  echo "# Used by the README's install command and by .ci/run:  pip install -c constraints.txt -e '.[local,dev]'"
  echo "# Regenerate with scripts/lock.sh; do not edit by hand."
  python -m pip freeze --exclude-editable --all | grep -v -i -E '^(pip|setuptools|wheel|reasoneval)==' \
    | sed -E 's/^(torch==[^+]+)\+cpu$/\1/' | LC_ALL=C sort -f
} > constraints.txt
echo "wrote constraints.txt ($(grep -c '==' constraints.txt) packages)"
