"""The command line of the binding rate programs (bench/bindings/*_rates.py):

    PROG enqueue|drain URL QUEUE N

runs workloads[WORKLOAD](url, queue, n) -> seconds and prints `rate WORKLOAD JOBS_PER_S`;
a failure is one stderr line and exit status 1, bad usage exit status 2.
"""
import sys
from typing import Callable, Dict, List

Workload = Callable[[str, str, int], float]


def main(prog: str, workloads: Dict[str, Workload], argv: List[str]) -> int:
    if len(argv) != 4 or argv[0] not in workloads or not argv[3].isdigit() or int(argv[3]) == 0:
        print(f"usage: {prog} {'|'.join(workloads)} URL QUEUE N (N > 0)", file=sys.stderr)
        return 2
    workload, url, queue, n = argv[0], argv[1], argv[2], int(argv[3])
    try:
        seconds = workloads[workload](url, queue, n)
    except Exception as e:
        print(f"{prog}: {workload}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(f"rate {workload} {n / seconds:.1f}")
    return 0
