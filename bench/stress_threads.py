"""The thread scenarios of tests/thread_scenarios.py, a minute each (issue 12's goal).

Run: python bench/stress_threads.py [--seconds 60] [NAME ...]
Each scenario runs on its threads for the given time, every epoch compared bit
for bit with the same work done sequentially; prints one line per scenario
(epochs, mismatches, exceptions, leftovers) and exits with status 1 if any failed.
The model is explained in docs/ARCHITECTURE.md, "Threads".

Measured on the 2-core dev machine (other sessions running), 60 s each, after
issue 12's lock: every scenario ok, 0 mismatches, 0 exceptions, 0 leftovers,
in 11640 / 4713 / 26740 / 7601 / 42745 / 16701 / 30496 / 55406 / 21371 / 113816 / 20377
epochs (scenarios in the order of thread_scenarios.SCENARIOS). tensor_hooks, with the
engine lock but before the hook tables took it: 1 mismatch and 5 exceptions
("dictionary changed size during iteration") in 20 s. Before it (60568b1),
10 s each: tape_own_models 13 exceptions (None gradients);
forward_accumulators 4 mismatches and 2022 exceptions (None JVPs);
shared_model_grad_mode a usage count left on the autograd tape; shared_trunk_own_heads
11 exceptions; persistent_tapes 141 exceptions (entries landing on exited tapes among
them); tensors_cross_threads 30 mismatches; the leftovers carried into the next
scenarios. backward_own_models, shared_model_no_grad and shared_persistent_tape, run
alone, passed there too.
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
