"""The thread scenarios of tests/thread_scenarios.py, a minute each (issue 12's goal).

Run: python bench/stress_threads.py [--seconds 60] [NAME ...]
Each scenario runs on its threads for the given time, every epoch compared bit
for bit with the same work done sequentially; prints one line per scenario
(epochs, mismatches, exceptions, leftovers) and exits with status 1 if any failed.
The figures measured for issue 12 are in docs/ARCHITECTURE.md, "Threads".
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests"))

from thread_scenarios import SCENARIOS, run  # noqa: E402  (tests/ is not a package)


def main():
    names = [s.name for s in SCENARIOS]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="per scenario (default 60)")
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"scenarios to run (default all): {', '.join(names)}")
    args = parser.parse_args()
    unknown = sorted(set(args.names) - set(names))
    if unknown:
        parser.error(f"unknown scenario {unknown[0]!r}; known: {', '.join(names)}")
    failed = 0
    for scenario in SCENARIOS:
        if args.names and scenario.name not in args.names:
            continue
        report = run(scenario, args.seconds)
        print(report, flush=True)
        failed += not report.ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
