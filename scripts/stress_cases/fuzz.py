"""The fuzz target: the seeded fuzzer built into diary-fuzz, and libFuzzer when it was built."""

import os
import re
import subprocess
import tempfile

from stress_cases.context import binary, CFG, OPTS, row, work_path


def case_fuzz():
    seed = OPTS.seed
    command = [binary("diary-fuzz"), "--seed", str(seed), "--seconds", str(CFG["fuzz_seconds"])]
    result = subprocess.run(command, capture_output=True, timeout=CFG["fuzz_seconds"] + 120)
    output = result.stdout.decode(errors="replace").strip().splitlines()
    last = output[-1] if output else result.stderr.decode(errors="replace")[-300:]
    row(f"fuzz: seeded random requests to the in-process router, {CFG['fuzz_seconds']} s",
        "no crash, no 5xx, every 4xx problem+json (an HTML page outside /api/), no secret in an answer",
        f"seed {seed}, exit {result.returncode}: {last[:400]}", result.returncode == 0)
    if OPTS.libfuzzer:
        corpus = work_path("corpus")
        os.makedirs(corpus, exist_ok=True)
        # A crashing input is kept outside the run's folder, to be replayed: diary-fuzz FILE.
        artifacts = os.path.join(tempfile.gettempdir(), f"diary-fuzz-{seed}-")
        result = subprocess.run([OPTS.libfuzzer, corpus, f"-max_total_time={CFG['fuzz_seconds']}", f"-seed={seed}",
                                 "-max_len=4096", "-rss_limit_mb=4096", f"-artifact_prefix={artifacts}"],
                                capture_output=True, timeout=CFG["fuzz_seconds"] + 300)
        lines = result.stderr.decode(errors="replace").strip().splitlines()
        found = [line for line in lines if re.search(r"Fatal error|==ERROR|SUMMARY|Test unit written", line)]
        done = " ".join(found) or next((line for line in reversed(lines) if line.startswith("Done")), lines[-1] if lines else "")
        row(f"fuzz: libFuzzer on the router, {CFG['fuzz_seconds']} s", "no crash, no 5xx (a 5xx aborts the run)",
            f"seed {seed}, exit {result.returncode}: {done[:300]}", result.returncode == 0)
