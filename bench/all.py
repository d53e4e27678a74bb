"""Every benchmark in one run, with budgets small enough for a shared 2-core machine.

    make bench            # or: .venv/bin/python -m bench.all [--quick]

Each benchmark prints its own figures; this only runs them in turn. Speed is
measured here, never asserted in tests: the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

# (module, full arguments, quick arguments)
BENCHMARKS: list[tuple[str, list[str], list[str]]] = [
    ("bench.selfplay", ["--games", "200"], ["--games", "20"]),
    ("bench.ai_fairy_tale_inn", ["--games", "200"], ["--games", "10"]),
    ("bench.render", [], ["--games", "2"]),
    ("bench.render_winter", [], ["--games", "1", "--players", "3"]),
    ("bench.service_latency", [], ["--moves", "200"]),
    ("bench.treasure_tuning", [], ["--games", "100"]),
    ("bench.load_emulator", [], ["--tables", "2"]),
    ("bench.load", [], ["--sizes", "10", "--window", "5", "--interval", "5", "--ramp", "1"]),
    ("bench.load_games", [], ["--sizes", "10", "--window", "5", "--ramp", "1",
                              "--idle-seconds", "5"]),
    ("bench.render_cost", [], ["--games", "1", "--every", "30", "--repeat", "1"]),
    ("bench.click_cost", [], ["--moves", "4"]),
    ("bench.crash_delivery", [], ["--kills", "5"]),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small budgets, for a smoke run")
    parser.add_argument("--only", action="append", default=None, help="run only this module")
    args = parser.parse_args(argv)
    failed = 0
    for module_name, full, quick in BENCHMARKS:
        if args.only and module_name not in args.only:
            continue
        print(f"\n=== {module_name} {' '.join(quick if args.quick else full)}", flush=True)
        start = time.perf_counter()
        try:
            rc = importlib.import_module(module_name).main(quick if args.quick else full)
        except SystemExit as exc:  # argparse-style exits
            rc = exc.code if isinstance(exc.code, int) else 1
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            print(f"{module_name} failed: {type(exc).__name__}: {exc}")
            rc = 1
        failed += bool(rc)
        print(f"=== {module_name} took {time.perf_counter() - start:.1f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
