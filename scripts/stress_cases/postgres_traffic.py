"""What the PostgreSQL cases share: servers on a cluster, traffic through them with every
answer recorded and timed, and the checks on what they stored and answered."""

import hashlib
import http.client
import json
import random
import re
import threading
import time

from diarykit.processes import wait_until
from stress_cases.context import add_user, Client, join_threads, note, Server, text_sample


# The database timeout the PostgreSQL cases give their servers (--database-timeout): every bound
# on an answer while PostgreSQL is away is a multiple of it.
PG_TIMEOUT = 1.0
# PostgresDiaryStore's version lease (dataVersionLease), in seconds.
VERSION_LEASE = 0.001


def pg_servers(cluster, count, args=()):
    """`count` diary-servers on the cluster's database, and a token of a user of its own for each."""
    tokens = [add_user(cluster.url, f"pg{i}") for i in range(count)]
    servers = [Server(cluster.url, ["--threads", "2", "--database-timeout", f"{PG_TIMEOUT:g}", *args]).start()
               for _ in range(count)]
    return servers, tokens


def entry_body(title, body):
    return {"title": title, "body": body, "visibility": "public"}


def acked_check(cluster, acked, sent_titles):
    """Every acknowledged entry in the database with its exact content (compared by MD5), nothing
    there that was never sent, and every diary's kept counts equal to its entries: a text for the table."""
    stored = {int(i): (t, m) for i, t, m in cluster.sql("SELECT entry_id, title, md5(body) FROM entries")}
    lost = [i for i in acked if i not in stored]
    changed = [i for i in acked if i in stored and stored[i] != acked[i]]
    unknown = [i for i, (t, _) in stored.items() if t not in sent_titles]
    counts = cluster.sql("""SELECT d.diary_id FROM diary_totals d LEFT JOIN entries e ON e.diary_id = d.diary_id
        GROUP BY d.diary_id, d.entry_count, d.public_count HAVING d.entry_count <> count(e.entry_id)
        OR d.public_count <> count(e.entry_id) FILTER (WHERE e.visibility = 'public')""")
    ok = bool(acked) and not lost and not changed and not unknown and not counts
    return ok, (f"{len(acked)} acked, {len(stored)} stored, {len(lost)} lost, {len(changed)} changed, "
                f"{len(unknown)} never sent, {len(counts)} diaries with wrong counts")


def digest(text):
    return hashlib.md5(text.encode()).hexdigest()


ENTRY_LINK = re.compile(rb"/entries/(\d+)")


def shows(document_ids, entry_id):
    """A list, page or feed read after the write shows it: it holds the entry, or only entries
    newer than it (as many writes came after it as fill a page). Stale: neither."""
    return entry_id in document_ids or (document_ids and min(document_ids) > entry_id)


def read_ids(client, path):
    status, headers, data = client.request("GET", path)
    if status != 200:
        return status, []
    if path.startswith("/api/"):
        return status, [e["entry_id"] for e in json.loads(data).get("entries", [])]
    return status, [int(i) for i in ENTRY_LINK.findall(data)]


class Traffic:
    """Writers and readers through every server, each answer recorded with when it was asked and
    answered: (began, ended, server, method, path, status or None, content type, Retry-After, error)."""

    READS = ["/api/entries", "/", "/feed.atom", "/api/diaries"]

    def __init__(self, servers, tokens, seed):
        self.servers, self.tokens, self.rng = servers, tokens, random.Random(seed)
        self.records, self.acked, self.sent = [], {}, set()
        self.lock, self.stop_event, self.threads = threading.Lock(), threading.Event(), []

    def record(self, *fields):
        with self.lock:
            self.records.append(fields)

    def writer(self, index):
        number = index % len(self.servers)
        client = Client(self.servers[number].port, self.tokens[number], timeout=60, record=False)
        local = random.Random(self.rng.random())
        for n in range(1_000_000):
            if self.stop_event.is_set():
                return
            title = f"traffic s{number} w{index} n{n}"
            body = text_sample(local, local.randint(0, 500))
            with self.lock:
                self.sent.add(title)
            began = time.monotonic()
            try:
                status, headers, data = client.request("POST", "/api/entries", entry_body(title, body))
                self.record(began, time.monotonic(), number, "POST", "/api/entries", status,
                            headers.get("content-type", ""), headers.get("retry-after"), None)
                if status == 201:
                    with self.lock:
                        self.acked[json.loads(data)["entry_id"]] = (title, digest(body))
            except (OSError, http.client.HTTPException) as error:
                self.record(began, time.monotonic(), number, "POST", "/api/entries", None, "", None, repr(error))
                client.close()
                status = None
            if status == 503:
                self.stop_event.wait(0.02)  # as a client honouring Retry-After would, only quicker

    def reader(self, index):
        number = index % len(self.servers)
        client = Client(self.servers[number].port, timeout=60, record=False)
        for n in range(1_000_000):
            if self.stop_event.is_set():
                return
            path = self.READS[n % len(self.READS)]
            began = time.monotonic()
            try:
                status, headers, _ = client.request("GET", path)
                self.record(began, time.monotonic(), number, "GET", path, status,
                            headers.get("content-type", ""), headers.get("retry-after"), None)
            except (OSError, http.client.HTTPException) as error:
                self.record(began, time.monotonic(), number, "GET", path, None, "", None, repr(error))
                client.close()
                status = None
            if status == 503:
                self.stop_event.wait(0.02)

    def start(self, writers_per_server=1, readers_per_server=1):
        count = len(self.servers)
        self.threads = ([threading.Thread(target=self.writer, args=(i,), daemon=True) for i in range(writers_per_server * count)]
                        + [threading.Thread(target=self.reader, args=(i,), daemon=True) for i in range(readers_per_server * count)])
        for thread in self.threads:
            thread.start()
        return self

    def stop(self):
        self.stop_event.set()
        join_threads(self.threads, 120)

    def acked_count(self):
        with self.lock:
            return len(self.acked)

    def answered_since(self, moment, server):
        """How many requests asked at or after `moment` the server has answered."""
        with self.lock:
            return sum(1 for r in self.records if r[0] >= moment and r[2] == server)

    def between(self, first, last):
        """Records asked at or after `first` and answered before `last`."""
        with self.lock:
            return [r for r in self.records if r[0] >= first and r[1] <= last]

    def faults(self):
        """Answers no fault may cause: no answer at all, a status but 2xx or 503, a 503 without
        Retry-After, an API 503 without a problem body."""
        with self.lock:
            records = list(self.records)
        bad = []
        for began, ended, server, method, path, status, kind, retry, error in records:
            if status is None:
                bad.append(f"{method} {path} via {server}: {error}")
            elif status == 503:
                if not retry or (path.startswith("/api/") and not kind.startswith("application/problem+json")):
                    bad.append(f"{method} {path} via {server}: 503 with Retry-After {retry!r}, {kind}")
            elif not 200 <= status < 300:
                bad.append(f"{method} {path} via {server}: {status}")
        return bad


def wait_serving(servers, tokens, deadline):
    """Polls every server until it answers a write (201) and a read (200): the seconds it took, or
    None; and the titles of the writes it sent (a 503 among them may have been kept)."""
    clients = [Client(s.port, t, timeout=60, record=False) for s, t in zip(servers, tokens)]
    healthy = [False] * len(servers)
    titles = set()

    def all_serving():
        for number, client in enumerate(clients):
            if healthy[number]:
                continue
            try:
                title = f"probe {number} {time.monotonic()}"
                titles.add(title)
                status = client.request("POST", "/api/entries", entry_body(title, "p"))[0]
                healthy[number] = status == 201 and client.request("GET", "/api/entries", token=None)[0] == 200
            except (OSError, http.client.HTTPException):
                client.close()
        return all(healthy)

    took = wait_until(all_serving, deadline, interval=0.05)
    return took, titles


def outage_summary(traffic, servers, stopped_at, down_at, back_at, up_at):
    """What the table says of one outage (stop began, stop done, start began, start done):
    every answer's time, and the checks on them."""
    during = traffic.between(stopped_at, up_at)
    with traffic.lock:
        # From the outage's start or from when it was asked, whichever is later: requests on
        # their way to PostgreSQL when it went away count too.
        waits = [(r[1] - max(r[0], stopped_at), r) for r in traffic.records if r[1] > stopped_at and r[0] < back_at]
    slowest, record = max(waits, key=lambda w: w[0], default=(0.0, None))
    if record:
        note(f"slowest answer in the outage: {record[3]} {record[4]} via server {record[2]}, asked "
             f"{record[0] - stopped_at:+.2f} s from the outage's start, {record[5]} after {record[1] - record[0]:.2f} s")
    # Asked once PostgreSQL was away and answered before it began to come back: 503, each of them.
    away = traffic.between(down_at, back_at)
    not_503 = [f"{r[3]} {r[4]} {r[5]}" for r in away if r[5] != 503]
    first_503 = []
    for number in range(len(servers)):
        times = [r[1] - stopped_at for r in during if r[2] == number and r[5] == 503]
        first_503.append(min(times) if times else None)
    return during, away, slowest, not_503, first_503
