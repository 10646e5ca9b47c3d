"""10% of prompts hang forever, 10% get a 429 with ``Retry-After: 1`` (first attempt), 250 KOR-Bench items,
default settings: the run must finish within 3x the fault-free time plus one abandonment window, 0 lost,
0 duplicated (issue 23).

    python bench/faults_hang429.py [--delay 0.5] [--limit 50] [--client-src /other/checkout/src] [--cap 600]
"""

from __future__ import annotations

from faultbench import main  # bench/faultbench.py

if __name__ == "__main__":
    main(__doc__ or "", "hangforever,429", 0.2, with_window=True)
