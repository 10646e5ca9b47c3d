"""20% of prompts get HTTP 500 on their first attempt (transient), 250 KOR-Bench items, default settings: the
run must finish within 3x the fault-free time, 0 lost, 0 duplicated (issue 23).

    python bench/faults_500.py [--delay 0.5] [--limit 50] [--client-src /other/checkout/src] [--cap 600]
"""

from __future__ import annotations

from faultbench import main  # bench/faultbench.py

if __name__ == "__main__":
    main(__doc__ or "", "500", 0.2, with_window=False)
