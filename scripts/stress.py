#!/usr/bin/env python3
"""The reliability and security battery of issue 6, against the real diary-server.

Faults (SIGKILL during writes, graceful stop, disk full, read-only file, busy database), load
(readers and writers, slowloris), searches stalling entry reads (issue 25), hostile input, auth and its timing, secrets in answers and logs,
and the fuzz target. PostgreSQL (issue 14): several servers on one database, one killed,
PostgreSQL stopped, frozen and out of connection slots, each case on a cluster of its own. Prints one table (case, expected, observed, pass) and exits 1 if a case failed.

Only loopback traffic, only temporary databases; every loop is bounded in count and in time.
Nothing waits for the server by sleeping: waits poll for the condition (an answer, a refused
connection, a socket closed or let go) up to a deadline. Wall-clock bounds (BOUNDS) are strict in
the long run and generous with --short; the table says which one applied.
Standard library only. Usage: stress.py [--short] [--bin-dir DIR] [--only NAME] [--libfuzzer BIN]
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in scripts/ from the imports below
# The cases live in scripts/stress_cases, one module a subject; servers, PostgreSQL and HTTP in scripts/diarykit.
from stress_cases import context  # noqa: E402
from stress_cases.context import BOUNDS, CLUSTERS, note, OPTS, ROWS, row, SERVERS  # noqa: E402
from stress_cases.durability import case_busy, case_crash, case_disk_full, case_graceful_stop, case_read_only  # noqa: E402
from stress_cases.fuzz import case_fuzz  # noqa: E402
from stress_cases.hostile import case_hostile  # noqa: E402
from stress_cases.load import case_load, case_slowloris  # noqa: E402
from stress_cases.stall import case_stall  # noqa: E402
from stress_cases.postgres_faults import (  # noqa: E402
    case_pg_commit_lost, case_pg_frozen, case_pg_kill, case_pg_restart, case_pg_servers, case_pg_slots)
from stress_cases.tokens_and_privacy import case_logs, case_privacy, case_timing  # noqa: E402
from stress_cases.uploads import case_uploads  # noqa: E402


CASES = [("crash", case_crash), ("graceful", case_graceful_stop), ("diskfull", case_disk_full),
         ("readonly", case_read_only), ("busy", case_busy), ("load", case_load), ("slowloris", case_slowloris), ("stall", case_stall),
         ("hostile", case_hostile), ("privacy", case_privacy), ("timing", case_timing), ("fuzz", case_fuzz),
         ("pg-servers", case_pg_servers), ("pg-kill", case_pg_kill), ("pg-restart", case_pg_restart),
         ("pg-slots", case_pg_slots), ("pg-frozen", case_pg_frozen),
         ("pg-commit-lost", case_pg_commit_lost), ("uploads", case_uploads), ("logs", case_logs)]


def print_table():
    print()
    print("| case | expected | observed | pass |")
    print("|---|---|---|---|")
    for case, expected, observed, passed, verdict in ROWS:
        cell = lambda text: str(text).replace("|", "\\|").replace("\n", " ")
        print(f"| {cell(case)} | {cell(expected)} | {cell(observed)} | {verdict} |")
    failed = [r[0] for r in ROWS if not r[3]]
    print()
    if OPTS.short:
        print("Wall-clock bounds applied: the short run's, generous for a loaded CI machine (the long run holds the strict ones):")
    else:
        print("Wall-clock bounds applied: the strict ones (scripts/stress --short holds generous ones):")
    for strict, short, unit, what in BOUNDS.values():
        applied, other = (short, strict) if OPTS.short else (strict, short)
        print(f"- {what}: {applied:g}{unit} ({'long run' if OPTS.short else 'short run'}: {other:g}{unit})")
    print()
    print(f"{len(ROWS) - len(failed)} of {len(ROWS)} passed" + (f"; FAILED: {'; '.join(failed)}" if failed else ""))
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", action="store_true", help="a few seconds per case, for CI")
    parser.add_argument("--bin-dir", default=os.environ.get("DIARY_BIN_DIR", ""), help="folder of diary-server and diary-fuzz")
    parser.add_argument("--only", action="append", choices=[c[0] for c in CASES], help="run only these cases")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 1_000_000, help="for the random choices and the fuzzer")
    parser.add_argument("--libfuzzer", default="", help="a diary-fuzz built with -sanitize=fuzzer -DFUZZING")
    options = parser.parse_args()
    bin_folder = options.bin_dir or subprocess.run(["swift", "build", "--show-bin-path"], capture_output=True,
                                                   text=True).stdout.strip()
    context.configure(options, bin_folder, tempfile.mkdtemp(prefix="diary-stress-"))
    note(f"{'short' if OPTS.short else 'long'} run, seed {OPTS.seed} (replay: --seed {OPTS.seed}), binaries {bin_folder}")
    # Room for 1,000+ connections on each side.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    # A watchdog: a case that hangs must not hang CI.
    limit = 900 if OPTS.short else 3600
    watchdog = threading.Timer(limit, lambda: (note(f"gave up after {limit} s"), print_table(), cleanup(), os._exit(2)))
    watchdog.daemon = True
    watchdog.start()
    try:
        for name, function in CASES:
            if OPTS.only and name not in OPTS.only:
                continue
            began = time.monotonic()
            try:
                function()
            except Exception as error:  # a case that breaks is a failed case, and the rest still run
                row(name, "the case runs to its end", f"{type(error).__name__}: {error}"[:400], False)
            note(f"{name} took {time.monotonic() - began:.1f} s")
    finally:
        cleanup()
    watchdog.cancel()
    print_table()
    return 0 if ROWS and all(r[3] for r in ROWS) else 1


def cleanup():
    for server in SERVERS:
        server.kill()
    for cluster in list(CLUSTERS):
        cluster.close()
    tmpfs = context.work_path("tmpfs")
    if os.path.ismount(tmpfs):
        subprocess.run(["umount", "-l", tmpfs], capture_output=True)
    shutil.rmtree(context.WORK, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
