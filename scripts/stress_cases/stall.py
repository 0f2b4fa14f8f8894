"""Stall: no request can hold the others hostage (issue 25). Sixteen clients send expensive
searches the cache cannot answer (two-character and common terms, distinct targets) while one
client reads single entries with a token: the searches run on threads of their own, a few at
a time (--search-concurrency), each stopped at --query-timeout, anonymous ones rate-limited per
address; the reader's p99 stays low, and every search is answered 200, 429 or 503."""

import http.client
import random
import string
import subprocess
import threading
import time
from urllib.parse import quote

from stress_cases.context import (
    add_user, binary, bound, bound_text, CFG, new_database, note, OPTS, row, Server, start_threads, join_threads)

COMMON = ["coffee", "rain", "river bridge", '"river bridge"', "morning", "train", "雨でした", "今日", "cat", "tea"]
SEARCHERS = 16


def seed(database, entries):
    """`diary-server seed` into a new file: the users bench-1…, their entries public."""
    began = time.monotonic()
    result = subprocess.run([binary("diary-server"), "seed", "--entries", str(entries), "--database", database],
                            capture_output=True, timeout=1800)
    if result.returncode != 0:
        raise RuntimeError(f"seed failed ({result.returncode}): {result.stderr.decode()[-300:]}")
    note(f"stall: seeded {entries} entries in {time.monotonic() - began:.1f} s")


def search_target(rng):
    """A search no earlier request asked for: a two-character or a common term, either order,
    a random page size (the response cache keeps answers by target), the API or the page."""
    term = "".join(rng.choice(string.ascii_lowercase) for _ in range(2)) if rng.random() < 0.5 else rng.choice(COMMON)
    if rng.random() < 0.15:
        return f"/search?q={quote(term)}&n={rng.randint(0, 10**9)}"
    order = "&order=newest" if rng.random() < 0.5 else ""
    return f"/api/entries?q={quote(term)}&per_page={rng.randint(1, 100)}{order}&n={rng.randint(0, 10**9)}"


def case_stall():
    entries, seconds = CFG["stall_entries"], CFG["stall_seconds"]
    database = new_database("stall")
    seed(database, entries)
    token = add_user(database, "reader")
    server = Server(database).start()
    deadline = time.monotonic() + seconds
    lock = threading.Lock()
    searched = {}
    latencies, reader_statuses = [], {}

    def search(index):
        # Half send a token (not rate-limited); the others each come from an address of their own.
        anonymous = index % 2 == 0
        source = f"127.0.0.{10 + index}" if anonymous else "127.0.0.1"
        headers = {} if anonymous else {"Authorization": f"Bearer {token}"}
        rng = random.Random(OPTS.seed * 100 + index)
        tally = {}
        connection = None
        while time.monotonic() < deadline:
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60, source_address=(source, 0))
                connection.request("GET", search_target(rng), headers=headers)
                response = connection.getresponse()
                response.read()
                tally[response.status] = tally.get(response.status, 0) + 1
            except (OSError, http.client.HTTPException) as error:
                tally[type(error).__name__] = tally.get(type(error).__name__, 0) + 1
                connection = None
        with lock:
            for key, value in tally.items():
                searched[key] = searched.get(key, 0) + value

    def read():
        rng = random.Random(OPTS.seed)
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        headers = {"Authorization": f"Bearer {token}"}
        while time.monotonic() < deadline:
            began = time.monotonic()
            try:
                connection.request("GET", f"/api/entries/{rng.randint(1, entries)}", headers=headers)
                response = connection.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException) as error:
                status = type(error).__name__
                connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
            latencies.append(time.monotonic() - began)
            reader_statuses[status] = reader_statuses.get(status, 0) + 1

    threads = start_threads(search, SEARCHERS)
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    join_threads(threads + [reader], seconds + 120)
    alive = server.process.poll() is None
    server.stop()

    ordered = sorted(latencies)
    p50 = ordered[len(ordered) // 2] if ordered else float("inf")
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else float("inf")
    row("stall: a token's entry reads while 16 clients search, uncached",
        f"p99 ≤ {bound_text('stall_p99')}; every read 200",
        f"{len(ordered)} reads, p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms; statuses {reader_statuses}; "
        f"{entries} entries, {seconds} s",
        p99 <= bound("stall_p99") and set(reader_statuses) == {200})
    row("stall: the searches' answers", "only 200, 429 or 503 (never another 5xx, an error or no answer); the server runs on",
        f"{sum(v for v in searched.values())} searches: {dict(sorted(searched.items(), key=str))}; server alive: {alive}",
        alive and searched and set(searched) <= {200, 429, 503} and searched.get(200, 0) > 0)
