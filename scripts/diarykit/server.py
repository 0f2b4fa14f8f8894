"""`diary-server serve` on a free port of HOST, started and waited for: its ready line
("listening on http://HOST:PORT") read with a deadline, so that a server that neither prints
nor exits fails the run instead of hanging it."""

import os
import re
import select
import subprocess
import time


def serve_command(bin_folder, database, flags=(), host=None):
    """`diary-server serve` on a free port (--port 0) and `database` (a file or a postgres:// URL)."""
    command = [os.path.join(bin_folder, "diary-server"), "serve"]
    if host:
        command += ["--host", host]
    return command + ["--port", "0", "--database", database, *flags]


def serve_flags(threads=None, connections=None, public_url=None, response_cache=None, shared_reads=True,
                behind_proxy=False):
    """The flags of one server of several: `public_url` the proxy's, so that every server builds
    the same bytes (feeds hold absolute URLs); `behind_proxy`: no per-IP limit below the total,
    since every connection comes from the proxy's address."""
    flags = [] if shared_reads else ["--no-shared-version-reads"]
    if threads:
        flags += ["--threads", str(threads)]
    if connections:
        flags += ["--database-connections", str(connections)]
    if public_url:
        flags += ["--public-url", public_url]
    if response_cache is not None:
        flags += ["--response-cache", str(response_cache)]
    if behind_proxy:
        flags += ["--max-connections-per-ip", "1024"]
    return flags


def pool_size(threads, connections):
    """The pool one server opens with these flags: what `diary-server serve` computes (DatabaseSizing)."""
    if connections:
        return connections
    threads = threads or min(256, max(2, os.cpu_count() or 2) * 8)
    return threads + 12


def start_serving(command, log_path, timeout=60, launch=subprocess.Popen, preexec=None):
    """Starts `command` (a `diary-server serve`) with its stderr appended to `log_path` and reads
    its ready line within `timeout` s: (process, port). `launch` starts the process (Popen, or
    Children.start to have it stopped with the others)."""
    with open(log_path, "ab") as log:
        process = launch(command, stdout=subprocess.PIPE, stderr=log, preexec_fn=preexec)
    deadline = time.monotonic() + timeout
    line = b""
    while not line.endswith(b"\n"):
        ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(process.stdout.fileno(), 200) if ready else b""
        if not chunk:
            with open(log_path, "rb") as log:
                tail = log.read().decode("utf-8", "replace")[-500:]
            raise RuntimeError(f"diary-server did not start: {line!r}; see {log_path}: {tail}")
        line += chunk
    match = re.match(rb"listening on http://[^:]+:(\d+)", line)
    if not match:
        raise RuntimeError(f"unexpected ready line {line!r}; see {log_path}")
    return process, int(match.group(1))
