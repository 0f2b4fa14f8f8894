"""Load: many readers and writers on keep-alive connections (RSS stays flat), and slowloris (idle
and dripping connections from one and from many addresses)."""

import http.client
import random
import select
import socket
import threading
import time

from diarykit.http_client import connect
from diarykit.processes import wait_until
from stress_cases.context import (
    add_user, bound, bound_text, CFG, Client, kib, new_database, OPTS, post_entry, row, RSS_TOLERANCE_KIB,
    RSS_TOLERANCE_RATIO, Server, start_threads, text_sample)


def tcp_sockets():
    """Every IPv4 TCP socket of this machine as the kernel lists it in /proc/net/tcp:
    (local (ip, port), remote (ip, port), state in hex, inode: 0 once no process holds it)."""
    def address(text):
        ip, port = text.split(":")
        return socket.inet_ntoa(bytes.fromhex(ip)[::-1]), int(port, 16)
    with open("/proc/net/tcp") as table:
        next(table)
        return [(address(f[1]), address(f[2]), f[3], f[9]) for f in (line.split() for line in table)]


def server_connections(port, sources):
    """How many connections from `sources` the server on `port` still holds open: after the
    clients closed theirs, the ones it has not closed yet (a socket it closed is left to the
    kernel, inode 0, for its last packets)."""
    return sum(1 for local, remote, state, inode in tcp_sockets()
               if local[1] == port and state != "0A" and remote[0] in sources and inode != "0")


def case_load():
    rng = random.Random(OPTS.seed + 2)
    database = new_database("load")
    token = add_user(database, "loader")
    server = Server(database).start()
    seeder = Client(server.port, token)
    ids = [post_entry(seeder, f"seed {i}", text_sample(rng, 300))[1]["entry_id"] for i in range(100)]
    seeder.close()
    rss_start = server.rss_kib()
    seconds = CFG["load_seconds"]
    deadline = time.monotonic() + seconds
    counts = {"2xx": 0, "4xx": 0, "5xx": 0, "errors": 0}
    lock = threading.Lock()
    progress = [0] * 72  # requests made by each thread so far, each written by its own thread only

    def run(index):
        is_writer = index < 8
        client = Client(server.port, token if is_writer else None, record=False)
        local = random.Random(index)
        tally = {"2xx": 0, "4xx": 0, "5xx": 0, "errors": 0}
        mine = []
        for n in range(1_000_000):
            if n and time.monotonic() > deadline:  # one request at least, however late the thread started
                break
            progress[index] += 1
            try:
                status = load_write(client, local, index, n, mine) if is_writer else load_read(client, local, ids)
                tally[f"{status // 100}xx"] = tally.get(f"{status // 100}xx", 0) + 1
            except (OSError, http.client.HTTPException):
                tally["errors"] += 1
                client.close()
        with lock:
            for key, value in tally.items():
                counts[key] = counts.get(key, 0) + value

    threads = start_threads(run, 72)
    samples = []
    while any(t.is_alive() for t in threads) and time.monotonic() < deadline + 60:
        samples.append((time.monotonic(), server.rss_kib(), sum(progress)))
        time.sleep(0.5)  # the sampling interval
    rss_end = server.rss_kib()
    rss_warm, rss_max = after_warm_up(samples, sum(progress), rss_end)
    flat = rss_max <= rss_warm * (1 + RSS_TOLERANCE_RATIO) + RSS_TOLERANCE_KIB
    code = server.stop()
    total = sum(counts.values())
    ok = counts["5xx"] == 0 and counts["errors"] == 0 and flat and code == 0 and total > 0
    row(f"load: {seconds} s of 64 readers + 8 writers (keep-alive)",
        f"0 5xx, 0 connection errors, RSS flat after warm-up, the first quarter of the requests "
        f"(max <= warm +{RSS_TOLERANCE_RATIO:.0%} +{RSS_TOLERANCE_KIB // 1024} MiB)",
        f"{total} requests ({total / seconds:.0f}/s): {counts}; RSS start {kib(rss_start)}, after warm-up {kib(rss_warm)}, "
        f"max {kib(rss_max)}, end {kib(rss_end)}", ok)


def load_write(client, local, index, n, mine):
    """Write `n` of load writer `index`: every fourth a DELETE of one of its entries (`mine`),
    the others a POST. The status."""
    if mine and n % 4 == 3:
        return client.request("DELETE", f"/api/entries/{mine.pop()}")[0]
    status, document = post_entry(client, f"load {index} {n}", text_sample(local, 200))
    if status == 201:
        mine.append(document["entry_id"])
    return status


def load_read(client, local, ids):
    """One read of a page, an entry, the diaries or the health check. The status."""
    path = local.choice([f"/api/entries?page={local.randint(1, 5)}", f"/api/entries/{local.choice(ids)}",
                         "/api/diaries", "/api/health", "/api/diaries/1/entries?per_page=50"])
    return client.request("GET", path)[0]


def after_warm_up(samples, made, rss_end):
    """RSS after warm-up and its largest since: (KiB, KiB). Warm-up: the first quarter of the
    requests `made` (and at least 2 s). The caches grow with the work done, not with the time:
    a loaded machine does less in the same seconds."""
    warm = [(t, rss) for t, rss, n in samples if t >= samples[0][0] + 2.0 and n >= made / 4]
    rss_warm = warm[0][1] if warm else rss_end
    rss_max = max((rss for t, rss in warm), default=rss_end)
    return rss_warm, rss_max


def open_many(port, count, sources, slow_every=0):
    """`count` connections spread over the source addresses; every `slow_every`-th starts a request it never ends."""
    sockets, failed = [], 0
    for i in range(count):
        try:
            sock = connect(port, sources[i % len(sources)], timeout=5)
            if slow_every and i % slow_every == 0:
                sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            sock.setblocking(False)
            sockets.append(sock)
        except OSError:
            failed += 1
    return sockets, failed


def count_closed(sockets, timeout=0.5):
    """How many of the connections the server has closed (readable with EOF or reset)."""
    poller = select.poll()
    by_fd = {s.fileno(): s for s in sockets}
    for fd in by_fd:
        poller.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)
    closed = 0
    for fd, _ in poller.poll(timeout * 1000):
        try:
            if by_fd[fd].recv(1, socket.MSG_PEEK) == b"":
                closed += 1
        except (ConnectionResetError, BlockingIOError, OSError):
            closed += 1
    return closed


def drip(sockets, seconds, probe):
    """For `seconds`: one more header byte on every slow connection each 0.5 s, and `probe()` between."""
    latencies, failures = [], []
    deadline = time.monotonic() + seconds
    next_drip = 0.0
    for _ in range(100_000):
        if time.monotonic() > deadline:
            break
        if time.monotonic() >= next_drip:
            for sock in sockets:
                try:
                    sock.send(b"a")
                except OSError:
                    pass
            next_drip = time.monotonic() + 0.5
        began = time.monotonic()
        try:
            status = probe()
            latencies.append(time.monotonic() - began)
            if status != 200:
                failures.append(status)
        except (OSError, http.client.HTTPException) as error:
            failures.append(type(error).__name__)
        time.sleep(0.02)
    return latencies, failures


def close_all(sockets):
    for sock in sockets:
        sock.close()


# The attackers' addresses when they come from several: 8 of loopback's.
SLOW_SOURCES = [f"127.0.0.{i}" for i in range(2, 10)]


def prober(port):
    """A probe of the server on `port`: GET /api/entries on a new connection each time (the hard
    part when the server is full), its status. One slower than the bound fails the row by its
    latency; the socket waits longer still."""
    client = Client(port, timeout=bound("probe") + 5)

    def probe():
        client.close()
        return client.request("GET", "/api/entries")[0]
    return probe


def latency_text(latencies):
    if not latencies:
        return "no answers"
    ordered = sorted(latencies)
    return f"p50 {ordered[len(ordered) // 2] * 1000:.1f} ms, max {ordered[-1] * 1000:.1f} ms"


def case_slowloris():
    database = new_database("slowloris")
    add_user(database, "alice")
    server = Server(database).start()  # the defaults: timeout 30 s, 1024 connections, 256 per IP
    probe = prober(server.port)
    slowloris_from_many(server, probe)
    slowloris_from_one(server, probe)
    server.stop()
    slowloris_idle_timeout(database)


def slowloris_from_many(server, probe):
    # 1,000 from 8 addresses (125 each, under the per-IP limit): half idle, half dripping headers.
    attackers, failed = open_many(server.port, 1000, SLOW_SOURCES, slow_every=2)
    latencies, failures = drip(attackers[::2], CFG["slowloris_seconds"], probe)
    still_open = len(attackers) - count_closed(attackers)
    close_all(attackers)
    ok = not failures and latencies and max(latencies) < bound("probe") and still_open >= 990 and failed == 0
    row("slowloris: 1,000 idle/dripping connections from 8 IPs (defaults)",
        f"other clients served (every probe 200 within {bound_text('probe')}) while the 1,000 stay connected",
        f"{len(latencies)} probes, failures {failures or 'none'}, {latency_text(latencies)}; "
        f"{still_open} attacker connections open at the end", ok)


def slowloris_from_one(server, probe):
    # Before the next 1,000: the server has let go of these (else they would count against its
    # limit of 1024 connections in all).
    released = wait_until(lambda: server_connections(server.port, SLOW_SOURCES) == 0, 60, 0.05)
    # 1,000 from one address: the per-IP limit (default 256) closes the rest at once.
    attackers, failed = open_many(server.port, 1000, ["127.0.0.10"], slow_every=2)
    over_limit = len(attackers) + failed - 256
    counted = {"closed": failed}

    def rest_closed():
        counted["closed"] = count_closed(attackers, timeout=0.05) + failed
        return counted["closed"] >= over_limit
    closed_after = wait_until(rest_closed, bound("per_ip_closed") + 30, 0.05)
    closed = counted["closed"]
    latencies, failures = drip(attackers[::2], min(3, CFG["slowloris_seconds"]), probe)
    close_all(attackers)
    ok = (not failures and latencies and 1000 - closed <= 256 and closed >= 700 and released is not None
          and closed_after is not None and closed_after < bound("per_ip_closed"))
    row("slowloris: 1,000 connections from 1 IP (default per-IP limit 256)",
        f"at most 256 kept, the rest closed at once (within {bound_text('per_ip_closed')}); others served",
        f"{1000 - closed} kept, {closed} closed "
        + (f"{closed_after:.2f} s after the last connected" if closed_after is not None else "(not all within the deadline)")
        + ("" if released is not None else "; the first 1,000 were still held 60 s after they closed")
        + f"; {len(latencies)} probes, failures {failures or 'none'}, {latency_text(latencies)}", ok)


def slowloris_idle_timeout(database):
    """The timeout frees idle connections (lowered to 2 s here; 30 s by default)."""
    server = Server(database, ["--connection-timeout", "2"]).start()
    probe = prober(server.port)
    attackers, failed = open_many(server.port, 300, SLOW_SOURCES, slow_every=0)
    counted = {"closed": 0}

    def all_closed():
        counted["closed"] = count_closed(attackers, timeout=0.05)
        return counted["closed"] == len(attackers)
    closed_after = wait_until(all_closed, bound("idle_closed") + 30, 0.05)
    closed = counted["closed"]
    status = probe()
    close_all(attackers)
    server.stop()
    row("slowloris: idle connections with --connection-timeout 2",
        f"all 300 idle connections closed by the server within {bound_text('idle_closed')}; others served",
        f"{closed} of {len(attackers)} closed"
        + (f" {closed_after:.2f} s after the last connected" if closed_after is not None else " (not all within the deadline)")
        + f"; probe {status}",
        closed == len(attackers) and closed_after is not None
        and closed_after < bound("idle_closed") and status == 200)
