#!/usr/bin/env python3
"""The reliability and security battery of issue 6, against the real diary-server.

Faults (SIGKILL during writes, graceful stop, disk full, read-only file, busy database), load
(readers and writers, slowloris), hostile input, auth and its timing, secrets in answers and logs,
and the fuzz target. PostgreSQL (issue 14): several servers on one database, one killed,
PostgreSQL stopped, frozen and out of connection slots, each case on a cluster of its own. Prints one table (case, expected, observed, pass) and exits 1 if a case failed.

Only loopback traffic, only temporary databases; every loop is bounded in count and in time.
Nothing waits for the server by sleeping: waits poll for the condition (an answer, a refused
connection, a socket closed or let go) up to a deadline. Wall-clock bounds (BOUNDS) are strict in
the long run and generous with --short; the table says which one applied.
Standard library only. Usage: stress.py [--short] [--bin-dir DIR] [--only NAME] [--libfuzzer BIN]
"""

import argparse
import hashlib
import http.client
import json
import os
import random
import re
import resource
import select
import shutil
import signal
import socket
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

# ---------------------------------------------------------------------------------------------
# Settings

LONG = dict(crash_rounds=3, crash_seconds=5, busy_seconds=15, load_seconds=30, slowloris_seconds=20,
            timing_rounds=1500, fuzz_seconds=60, hostile_mb=100, privacy_seconds=30, pg_seconds=20, pg_down_requests=40)
SHORT = dict(crash_rounds=1, crash_seconds=2, busy_seconds=3, load_seconds=6, slowloris_seconds=4,
             timing_rounds=400, fuzz_seconds=10, hostile_mb=100, privacy_seconds=5, pg_seconds=3, pg_down_requests=6)

# Load: RSS after warm-up may grow by this much and still count as flat (SQLite page caches,
# one per connection, fill up to 2 MiB each as the file grows; the allocator keeps some slack).
RSS_TOLERANCE_RATIO = 0.20
RSS_TOLERANCE_KIB = 8 * 1024
# Crash: the server is killed no sooner than this many writes of the round were acknowledged.
CRASH_MIN_ACKED = 20
# Timing: the medians of the kinds of wrong token, interleaved, may differ by less than the larger
# of 5 % of the median and 3 times the noise (how far the medians of the odd and the even rounds
# of one kind differ): "no measurable difference". On a quiet machine the noise is a few µs.
TIMING_THRESHOLD_RATIO = 0.05
TIMING_NOISE_FACTOR = 3

# Wall-clock bounds, as (strict, short-run, unit, what is bounded). Both runs measure and print the
# same things; the long run gates with the strict bound. The short run is what scripts/test runs
# in CI on a loaded 2-core machine, where a debug build shares the cores with everything else:
# it gates with a bound several times looser, which a correct server meets however loaded the
# machine, so that a failure there means a broken server, not a busy one. Waits for something
# that must happen are polls with a deadline past the bound, never a fixed sleep.
BOUNDS = {
    "refused": (0.3, 2.0, " s", "graceful stop: from SIGTERM until new connections are refused"),
    "graceful_exit": (5.0, 20.0, " s", "graceful stop: from SIGTERM until exit 0"),
    "probe": (2.0, 8.0, " s", "slowloris: a probe's answer"),
    "per_ip_closed": (0.5, 5.0, " s", "slowloris: until the connections past the per-IP limit are closed"),
    "idle_closed": (4.5, 15.0, " s", "slowloris: until idle connections are closed with --connection-timeout 2"),
    "stalled_closed": (8.0, 20.0, " s", "hostile: until a stalled chunked body is closed with --connection-timeout 3"),
    "closed_after_answer": (2.0, 10.0, " s", "raw requests: until the server closes after answering Connection: close"),
    # With --database-timeout 1 (PG_TIMEOUT): no request waits for PostgreSQL longer than that
    # at a step, and once it left one unanswered the others fail at once. The short bounds are
    # wide: on the shared CI machine (load 7 on 2 cores, swapping) a debug server has stalled for
    # seconds; what they catch is a hang, which was for ever (the clients give up after 60 s).
    "pg_down_answer": (2.0, 15.0, " s", "PostgreSQL stopping, stopped or out of slots: an answer (503), from the fault or from when it was asked"),
    "pg_frozen_answer": (2.0, 15.0, " s", "PostgreSQL frozen, --database-timeout 1: an answer (503), from the freeze or from when it was asked"),
    "pg_recover": (2.0, 15.0, " s", "PostgreSQL back: until every server answers a write and a read 2xx again"),
    "timing_ratio": (TIMING_THRESHOLD_RATIO, 4 * TIMING_THRESHOLD_RATIO, " x the smallest median",
                     "token timing: spread of the medians below the larger of this"),
    "timing_noise": (TIMING_NOISE_FACTOR, 4 * TIMING_NOISE_FACTOR, " x the noise", "token timing: ... and this"),
}

OPTS = None            # parsed arguments
CFG = SHORT            # the durations in use
BIN = ""               # folder of diary-server and diary-fuzz
WORK = ""              # temporary folder of this run
SECRETS = set()        # tokens, their hashes and database paths: none may appear in an answer or a log
TRANSCRIPT = []        # every answer read by the raw and simple clients (not the load threads)
TRANSCRIPT_LOCK = threading.Lock()
SERVERS = []           # every server started, killed at exit
ROWS = []              # (case, expected, observed, passed)


def note(text):
    print(f"stress: {text}", file=sys.stderr, flush=True)


def row(case, expected, observed, passed, known=""):
    """One line of the table. `known`: a failure already understood (its fix is reported); it still fails."""
    verdict = "PASS" if passed else f"FAIL (known: {known})" if known else "FAIL"
    ROWS.append((case, expected, observed, bool(passed), verdict))
    note(f"{verdict} {case}: {observed}")


def kib(value):
    return f"{value / 1024:.1f} MiB"


def bound(name):
    """The bound that gates this run: strict in the long run, generous in --short."""
    strict, short, _, _ = BOUNDS[name]
    return short if OPTS.short else strict


def bound_text(name):
    """The bound in force, and which one it is, for the table's expected column."""
    strict, short, unit, _ = BOUNDS[name]
    if OPTS.short:
        return f"{short:g}{unit} [short-run bound; the long run holds {strict:g}{unit}]"
    return f"{strict:g}{unit} [strict bound]"


def wait_until(condition, seconds, interval=0.01):
    """Polls `condition` until it holds or `seconds` passed: the seconds it took, or None."""
    began = time.monotonic()
    while True:
        if condition():
            return time.monotonic() - began
        if time.monotonic() - began > seconds:
            return None
        time.sleep(interval)


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


# ---------------------------------------------------------------------------------------------
# The server and its tools

class Server:
    """A diary-server on a free port; stderr goes to a log file that is scanned for secrets."""

    def __init__(self, database, args=(), preexec=None):
        self.database = database
        self.args = list(args)
        self.preexec = preexec
        self.log = os.path.join(WORK, f"server-{len(SERVERS)}.log")
        self.process = None
        self.port = 0
        SERVERS.append(self)

    def start(self):
        command = [os.path.join(BIN, "diary-server"), "serve", "--port", "0", "--database", self.database] + self.args
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, preexec_fn=self.preexec)
        deadline = time.monotonic() + 60
        line = b""
        while not line.endswith(b"\n"):
            ready, _, _ = select.select([self.process.stdout], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(self.process.stdout.fileno(), 200) if ready else b""
            if not chunk:
                raise RuntimeError(f"diary-server did not start: {line!r} {self.log_text()[-500:]}")
            line += chunk
        match = re.match(rb"listening on http://[^:]+:(\d+)", line)
        if not match:
            raise RuntimeError(f"unexpected ready line {line!r}")
        self.port = int(match.group(1))
        return self

    @property
    def pid(self):
        return self.process.pid

    def rss_kib(self):
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def signal(self, number):
        if self.process and self.process.poll() is None:
            self.process.send_signal(number)

    def wait(self, timeout):
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self):
        """SIGTERM, then SIGKILL if it does not leave within 30 s; the exit status."""
        if not self.process or self.process.poll() is not None:
            return self.process.returncode if self.process else None
        self.signal(signal.SIGTERM)
        code = self.wait(30)
        if code is None:
            self.kill()
        return code

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def log_text(self):
        with open(self.log, "rb") as log:
            return log.read().decode("utf-8", "replace")


def server_tool(database, *args):
    """`diary-server user ...` on `database`: (exit status, stdout)."""
    result = subprocess.run([os.path.join(BIN, "diary-server"), *args, "--database", database],
                            capture_output=True, timeout=60)
    with TRANSCRIPT_LOCK:
        TRANSCRIPT.append(result.stderr)
    return result.returncode, result.stdout.decode().strip()


def add_user(database, name, rotate=False):
    code, token = server_tool(database, "user", "token" if rotate else "add", name)
    if code != 0 or not token:
        raise RuntimeError(f"user {'token' if rotate else 'add'} {name} failed ({code})")
    SECRETS.add(token)
    SECRETS.add(hashlib.sha256(token.encode()).hexdigest())
    return token


def new_database(name):
    folder = os.path.join(WORK, name)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "diary.sqlite3")
    SECRETS.add(os.path.abspath(path))
    return path


def integrity(database):
    with sqlite3.connect(database, timeout=10) as connection:
        return ";".join(r[0] for r in connection.execute("PRAGMA integrity_check"))


def db_rows(database, sql, args=()):
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
    try:
        return connection.execute(sql, args).fetchall()
    finally:
        connection.close()


def db_digest(database):
    """A hash of every row of every table: equal digests mean nothing was written."""
    digest = hashlib.sha256()
    tables = [r[0] for r in db_rows(database, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    for table in tables:
        digest.update(table.encode())
        for record in sorted(repr(r) for r in db_rows(database, f'SELECT * FROM "{table}"')):
            digest.update(record.encode())
    return digest.hexdigest()


# ---------------------------------------------------------------------------------------------
# HTTP clients

class Client:
    """One keep-alive connection; answers are (status, headers as a lower-case dict, body bytes)."""

    def __init__(self, port, token=None, timeout=15, record=True):
        self.port, self.token, self.timeout, self.record = port, token, timeout, record
        self.connection = None

    def request(self, method, path, body=None, token=None, headers=None):
        headers = dict(headers or {})
        token = token or self.token
        if token:
            headers.setdefault("Authorization", f"Bearer {token}")
        if isinstance(body, (dict, list)):
            body = json.dumps(body, ensure_ascii=False).encode()
            headers.setdefault("Content-Type", "application/json")
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as error:
                # A keep-alive connection the server closed while idle: retry once on a new one,
                # but only for reads, so that a write is never sent twice.
                self.close()
                if attempt or method not in ("GET", "HEAD"):
                    raise error
        answer = (response.status, {k.lower(): v for k, v in response.getheaders()}, data)
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        if self.record:
            with TRANSCRIPT_LOCK:
                TRANSCRIPT.append(repr(answer[1]).encode() + data)
        return answer

    def json(self, method, path, body=None, **kwargs):
        status, headers, data = self.request(method, path, body, **kwargs)
        try:
            return status, json.loads(data) if data else None
        except ValueError:
            return status, None

    def close(self):
        if self.connection:
            self.connection.close()
            self.connection = None


def connect(port, source="127.0.0.1", timeout=10):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def read_answer(sock, timeout=10):
    """One response off a raw socket, and whether the server then closed the connection."""
    sock.settimeout(timeout)
    response = http.client.HTTPResponse(sock)
    response.begin()
    body = response.read()
    answer = {"status": response.status, "headers": {k.lower(): v for k, v in response.getheaders()},
              "body": body, "closed": peer_closed(sock, bound("closed_after_answer"))}
    with TRANSCRIPT_LOCK:
        TRANSCRIPT.append(repr(answer["headers"]).encode() + body)
    return answer


def peer_closed(sock, timeout):
    """True when the peer closes (EOF or reset) within `timeout`; False if it stays open or sends more."""
    sock.settimeout(timeout)
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except (socket.timeout, BlockingIOError):
        return False


def raw(port, data, timeout=10):
    """Sends raw bytes on a new connection and reads one answer; None when the server closed without one."""
    with connect(port, timeout=timeout) as sock:
        try:
            sock.sendall(data)
            return read_answer(sock, timeout)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, http.client.BadStatusLine):
            return None


def build(method, path, token=None, body=b"", content_type="application/json", headers=(), length=True):
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    if content_type and (body or method in ("POST", "PUT", "PATCH")):
        lines.append(f"Content-Type: {content_type}")
    if length and (body or method in ("POST", "PUT", "PATCH")):
        lines.append(f"Content-Length: {len(body)}")
    lines.extend(headers)
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head + (body if isinstance(body, bytes) else body.encode())


def is_problem(answer, status):
    try:
        document = json.loads(answer["body"])
    except ValueError:
        return False
    return (answer["headers"].get("content-type", "").startswith("application/problem+json")
            and document.get("status") == status and "title" in document)


def post_entry(client, title, body, **kwargs):
    status, document = client.json("POST", "/api/entries", {"title": title, "body": body}, **kwargs)
    return status, (document or {})


TITLE_MARKS = ["漢字", "😀", "é", "<b>", '"q"', "x", "'; --"]


def start_threads(function, count, *first):
    """`count` threads running function(*first, index); `first` threads run before them (helpers)."""
    threads = [threading.Thread(target=f, daemon=True) for f in first]
    threads += [threading.Thread(target=function, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    return threads


def join_threads(threads, timeout):
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.1, deadline - time.monotonic()))


def text_sample(rng, size):
    alphabet = "abc xyz\n\t\"'\\/é漢字😀<>&%{}[]:,"
    return "".join(rng.choice(alphabet) for _ in range(size))


# ---------------------------------------------------------------------------------------------
# Faults

def case_crash():
    rng = random.Random(OPTS.seed)
    database = new_database("crash")
    tokens = [add_user(database, f"writer{i}") for i in range(4)]
    sent, acked = {}, {}
    lock = threading.Lock()
    all_ok, details = True, []
    for round_number in range(1, CFG["crash_rounds"] + 1):
        server = Server(database).start()
        stop = threading.Event()
        acked_before = len(acked)

        def writer(index):
            client = Client(server.port, tokens[index % len(tokens)], record=False)
            local = random.Random(rng.random())
            for n in range(100_000):
                if stop.is_set():
                    return
                title = f"r{round_number} w{index} n{n} {local.choice(TITLE_MARKS)}"
                body = text_sample(local, local.randint(0, 3000))
                with lock:
                    sent[title] = body
                try:
                    status, document = post_entry(client, title, body)
                except (OSError, http.client.HTTPException):
                    return  # the server was killed
                if status == 201:
                    with lock:
                        acked[document["entry_id"]] = (title, body)

        threads = start_threads(writer, 8)
        # The kill comes after the round's time of writing (the behaviour under test) and after
        # some writes were acknowledged, however slowly a loaded machine gets to them.
        began = time.monotonic()
        writing = CFG["crash_seconds"] * rng.uniform(0.6, 1.0)

        def acknowledged():
            with lock:
                return len(acked) - acked_before >= CRASH_MIN_ACKED
        waited = wait_until(acknowledged, 120)
        time.sleep(max(0.0, began + writing - time.monotonic()))
        server.signal(signal.SIGKILL)
        killed_after = time.monotonic() - began
        stop.set()
        join_threads(threads, 30)
        server.wait(10)

        check = integrity(database)
        stored = {r[0]: (r[1], r[2]) for r in db_rows(database, "SELECT entry_id, title, body FROM entries")}
        lost = [i for i in acked if i not in stored]
        changed = [i for i in acked if i in stored and stored[i] != acked[i]]
        unknown = [i for i, (t, b) in stored.items() if sent.get(t) != b]
        in_flight = len(stored) - len(acked)
        server = Server(database).start()
        client = Client(server.port, tokens[0])

        def served_intact(entry_id):
            document = client.json("GET", f"/api/entries/{entry_id}")[1] or {}
            return (document.get("title"), document.get("body")) == acked[entry_id]

        served = all(served_intact(i) for i in rng.sample(sorted(acked), min(200, len(acked))))
        after_status, document = post_entry(client, f"after crash {round_number}", "ok")
        health = client.request("GET", "/api/health")[0]
        server.stop()
        sent[f"after crash {round_number}"] = "ok"
        if after_status == 201:
            acked[document["entry_id"]] = (f"after crash {round_number}", "ok")
        ok = (len(acked) > 0 and waited is not None and not lost and not changed and not unknown and check == "ok"
              and served and after_status == 201 and health == 200)
        all_ok &= ok
        details.append(f"round {round_number}: killed after {killed_after:.1f} s"
                       + ("" if waited is not None else f" (not {CRASH_MIN_ACKED} writes acknowledged within 120 s)")
                       + f", {len(acked)} acked, {len(lost)} lost, {len(changed)} changed, "
                       f"{len(unknown)} never sent, {in_flight} unacked-but-committed, integrity {check}, "
                       f"after restart: 200 sample intact {served}, POST {after_status}")
    row("crash: SIGKILL during 8 concurrent writers",
        "every 201 entry present with exact content; integrity_check ok; serves after restart",
        "; ".join(details), all_ok)


def read_interim(sock, seconds):
    """The head of an interim answer (`100 Continue`), read byte by byte so that nothing after
    it is taken from the socket; what was read so far if the server closed or went silent."""
    sock.settimeout(seconds)
    head = b""
    try:
        while not head.endswith(b"\r\n\r\n"):
            byte = sock.recv(1)
            if not byte:
                break
            head += byte
    except (socket.timeout, OSError):
        pass
    return head


def case_graceful_stop():
    database = new_database("graceful")
    token = add_user(database, "alice")
    server = Server(database).start()
    idle = Client(server.port, token)
    idle.request("GET", "/api/health")  # a keep-alive connection left open, idle
    bodies = [json.dumps({"title": f"slow {i}", "body": "s" * 40}).encode() for i in range(4)]
    sockets = []
    for body in bodies:
        sock = connect(server.port)
        # Only the head, asking for 100 Continue: that answer says the server read the head and
        # handed the request to the application, so the request is in flight when SIGTERM comes.
        sock.sendall(build("POST", "/api/entries", token, body, headers=["Expect: 100-continue"])[:-len(body)])
        sockets.append(sock)
    interim = [read_interim(sock, 30).split(b"\r\n")[0].decode("latin-1") for sock in sockets]
    started = time.monotonic()
    server.signal(signal.SIGTERM)
    # New connections are refused from when the server has stopped listening; a try that is
    # still accepted before then is closed at once.
    refusal = {"seen": "not refused within 30 s"}

    def refused():
        try:
            connect(server.port, timeout=2).close()
            return False
        except ConnectionRefusedError:
            refusal["seen"] = "refused"
            return True
        except OSError as error:
            refusal["seen"] = f"failed ({error})"
            return True
    wait_until(refused, 30)
    refused_after = time.monotonic() - started
    # The bodies, a byte at a time on every connection, spread over 1.2 s by the clock: a slow
    # client (the behaviour under test) whose pace does not slow down with a loaded machine, so
    # that the server's 4 s grace period is not spent on this side.
    length = max(len(b) for b in bodies)
    dripped = time.monotonic()
    for i in range(length):
        for sock, body in zip(sockets, bodies):
            if i < len(body):
                sock.sendall(body[i:i + 1])
        time.sleep(max(0.0, dripped + 1.2 * (i + 1) / length - time.monotonic()))
    answers = []
    for sock in sockets:
        try:
            answers.append(read_answer(sock, 30)["status"])
        except (OSError, http.client.HTTPException) as error:
            answers.append(type(error).__name__)
        sock.close()
    code = server.wait(bound("graceful_exit") + 30)
    elapsed = time.monotonic() - started
    if code is None:
        server.kill()
    idle.close()
    stored = db_rows(database, "SELECT count(*) FROM entries WHERE title LIKE 'slow %'")[0][0]
    ok = (interim == ["HTTP/1.1 100 Continue"] * 4 and answers == [201] * 4 and refusal["seen"] == "refused"
          and refused_after < bound("refused") and code == 0 and elapsed < bound("graceful_exit") and stored == 4)
    row("graceful stop: SIGTERM with 4 slow bodies in flight",
        f"in-flight requests answered 201 and stored; new connections refused within {bound_text('refused')}; "
        f"exit 0 within {bound_text('graceful_exit')}",
        f"in flight: {interim if interim != ['HTTP/1.1 100 Continue'] * 4 else '4 x 100 Continue'}; answers {answers}, "
        f"{stored} stored, new connection {refusal['seen']} after {refused_after:.2f} s, exit {code} after {elapsed:.2f} s", ok)


def mount_tmpfs(folder, size):
    os.makedirs(folder, exist_ok=True)
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", folder], capture_output=True)
    return result.returncode == 0


def case_disk_full():
    folder = os.path.join(WORK, "tmpfs")
    mounted = mount_tmpfs(folder, "3m")
    database = os.path.join(folder, "diary.sqlite3")
    SECRETS.add(database)
    token = add_user(database, "alice")
    preexec = None
    if mounted:
        method = "a 3 MiB tmpfs filled up to 512 KiB"
    else:
        # No mount here: a file size limit makes every write past it fail (EFBIG instead of
        # ENOSPC; SQLite reports an I/O error instead of SQLITE_FULL, the store maps both to 503).
        limit = os.path.getsize(database) + 256 * 1024
        method = f"RLIMIT_FSIZE {limit} bytes (tmpfs mount refused here)"

        def preexec():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    server = Server(database, preexec=preexec).start()
    client = Client(server.port, token)
    try:
        acked = {}
        for i in range(3):
            status, document = post_entry(client, f"before {i}", "fits")
            if status == 201:
                acked[document["entry_id"]] = f"before {i}"
        if mounted:
            # All but 512 KiB: the first few big writes fit, the next ones find the disk full.
            stat = os.statvfs(folder)
            with open(os.path.join(folder, "filler"), "wb", buffering=0) as filler:
                filler.write(b"\0" * max(0, stat.f_bavail * stat.f_frsize - 512 * 1024))
        # Four writers at once, so that writes share commits (group commit): each is stored or refused whole.
        answers, lock = [], threading.Lock()

        def writer(index):
            own = Client(server.port, token)
            refused = 0
            for i in range(15):
                title = f"full {index} {i}"
                status, headers, data = own.request("POST", "/api/entries", {"title": title, "body": "x" * 100_000})
                with lock:
                    answers.append((status, headers, data, title))
                refused += status == 503
                if refused >= 2:
                    break

        join_threads(start_threads(writer, 4), 120)
        refusals, other, problem = 0, [], True
        for status, headers, data, title in answers:
            if status == 201:
                acked[json.loads(data)["entry_id"]] = title
            elif status == 503:
                refusals += 1
                problem &= is_problem({"headers": headers, "body": data}, 503) and "retry-after" in headers
            else:
                other.append(status)
        reads = [client.request("GET", path)[0] for path in ("/api/entries", "/api/diaries", f"/api/entries/{min(acked)}")]
        status, page = client.json("GET", "/api/entries?per_page=100")
        listed = {e["entry_id"]: e["title"] for e in (page or {}).get("entries", [])}
        if mounted:
            os.remove(os.path.join(folder, "filler"))
        recovered, document = post_entry(client, "after space came back", "ok") if mounted else ("n/a", {})
        if recovered == 201:
            acked[document["entry_id"]] = "after space came back"
    finally:
        code = server.stop()
    stored = {r[0]: r[1] for r in db_rows(database, "SELECT entry_id, title FROM entries")}
    check = integrity(database)
    if mounted:
        subprocess.run(["umount", "-l", folder], capture_output=True)
    ok = (refusals >= 1 and problem and not other and reads == [200] * 3 and stored == acked
          and {k: v for k, v in acked.items() if k in listed} == listed and check == "ok"
          and recovered in (201, "n/a") and code == 0)
    row("disk full", "503 problem+json with Retry-After, nothing half-written, reads served, writes resume",
        f"{method}: 4 writers, {len(answers) - refusals - len(other)} x 201, {refusals} x 503 (problem body {problem}), "
        f"other answers {other or 'none'}, reads {reads}, "
        f"{len(stored)} rows = {len(acked)} acked, integrity {check}, after freeing space POST {recovered}", ok)


def case_read_only():
    database = new_database("readonly")
    token = add_user(database, "alice")
    server = Server(database).start()
    client = Client(server.port, token)
    entry = post_entry(client, "before", "read-only")[1]["entry_id"]
    server.stop()
    before = db_digest(database)
    os.chmod(database, 0o444)
    immutable = (os.geteuid() == 0 and shutil.which("chattr") is not None
                 and subprocess.run(["chattr", "+i", database], capture_output=True).returncode == 0)
    try:
        server = Server(database).start()
        client = Client(server.port, token)
        writes = [
            client.request("POST", "/api/entries", {"title": "after", "body": ""}),
            client.request("PATCH", f"/api/entries/{entry}", {"title": "after"}),
            client.request("PUT", f"/api/entries/{entry}", {"title": "after", "body": ""}),
            client.request("DELETE", f"/api/entries/{entry}"),
            client.request("POST", "/api/diaries", {"title": "more"}),
        ]
        statuses = [w[0] for w in writes]
        problems = all(is_problem({"headers": w[1], "body": w[2]}, 503) for w in writes)
        reads = [client.request("GET", p)[0] for p in ("/api/entries", f"/api/entries/{entry}", "/api/diaries", "/api/me")]
        code = server.stop()
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", database], capture_output=True)
        os.chmod(database, 0o644)
    unchanged = db_digest(database) == before
    how = "chmod 444 + chattr +i (root ignores modes)" if immutable else "chmod 444"
    ok = statuses == [503] * 5 and problems and reads == [200] * 4 and unchanged and code == 0
    row("read-only database file", "every write 503 problem+json, nothing written, reads served",
        f"{how}: writes {statuses} (problem bodies {problems}), reads {reads}, file unchanged {unchanged}", ok)


def case_busy():
    rng = random.Random(OPTS.seed + 1)
    database = new_database("busy")
    tokens = [add_user(database, f"busy{i}") for i in range(4)]
    servers = [Server(database).start(), Server(database).start()]
    stop = threading.Event()
    statuses, errors, live = {}, [], {}
    lock = threading.Lock()
    deadline = time.monotonic() + CFG["busy_seconds"]

    def locker():
        # A third process-level writer: holds the write lock for up to 50 ms at a time.
        connection = sqlite3.connect(database, timeout=10, isolation_level=None)
        while not stop.is_set() and time.monotonic() < deadline:
            connection.execute("BEGIN IMMEDIATE")
            time.sleep(rng.uniform(0, 0.05))
            connection.execute("COMMIT")
            time.sleep(0.005)
        connection.close()

    def writer(index):
        client = Client(servers[index % 2].port, tokens[index % 4], record=False)
        mine = []
        for n in range(100_000):
            if n and time.monotonic() > deadline:  # one write at least, however late the thread started
                break
            try:
                if mine and n % 3 == 0:
                    entry = mine.pop(0)
                    if n % 2:
                        status = client.request("DELETE", f"/api/entries/{entry}")[0]
                        if status == 204:
                            with lock:
                                live.pop(entry, None)
                    else:
                        status = client.request("PATCH", f"/api/entries/{entry}", {"body": f"patched {n}"})[0]
                        if status == 200:
                            with lock:
                                live[entry] = f"patched {n}"
                        mine.append(entry)
                else:
                    status, document = post_entry(client, f"busy {index} {n}", f"body {n}")
                    if status == 201:
                        mine.append(document["entry_id"])
                        with lock:
                            live[document["entry_id"]] = f"body {n}"
            except (OSError, http.client.HTTPException) as error:
                with lock:
                    errors.append(type(error).__name__)
                break
            with lock:
                statuses[status] = statuses.get(status, 0) + 1

    join_threads(start_threads(writer, 16, locker), CFG["busy_seconds"] + 60)
    stop.set()
    codes = [s.stop() for s in servers]
    stored = {r[0]: r[1] for r in db_rows(database, "SELECT entry_id, body FROM entries")}
    five = sum(v for k, v in statuses.items() if k >= 500)
    ok = five == 0 and not errors and stored == live and codes == [0, 0] and sum(statuses.values()) > 0
    row("busy database: 2 servers + an external lock holder on one file",
        "no 5xx (SQLITE_BUSY waited out), every acknowledged change stored",
        f"{sum(statuses.values())} writes from 16 clients, statuses {dict(sorted(statuses.items()))}, "
        f"{len(errors)} connection errors, stored rows match acknowledged {stored == live}", ok)


# ---------------------------------------------------------------------------------------------
# Load

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
                if is_writer:
                    if mine and n % 4 == 3:
                        status = client.request("DELETE", f"/api/entries/{mine.pop()}")[0]
                    else:
                        status, document = post_entry(client, f"load {index} {n}", text_sample(local, 200))
                        if status == 201:
                            mine.append(document["entry_id"])
                else:
                    path = local.choice([f"/api/entries?page={local.randint(1, 5)}", f"/api/entries/{local.choice(ids)}",
                                         "/api/diaries", "/api/health", "/api/diaries/1/entries?per_page=50"])
                    status = client.request("GET", path)[0]
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
    # Warm-up: the first quarter of the requests (and at least 2 s). The caches grow with the work
    # done, not with the time: a loaded machine does less in the same seconds.
    made = sum(progress)
    warm = [(t, rss) for t, rss, n in samples if t >= samples[0][0] + 2.0 and n >= made / 4]
    rss_warm = warm[0][1] if warm else rss_end
    rss_max = max((rss for t, rss in warm), default=rss_end)
    flat = rss_max <= rss_warm * (1 + RSS_TOLERANCE_RATIO) + RSS_TOLERANCE_KIB
    code = server.stop()
    total = sum(counts.values())
    ok = counts["5xx"] == 0 and counts["errors"] == 0 and flat and code == 0 and total > 0
    row(f"load: {seconds} s of 64 readers + 8 writers (keep-alive)",
        f"0 5xx, 0 connection errors, RSS flat after warm-up, the first quarter of the requests "
        f"(max <= warm +{RSS_TOLERANCE_RATIO:.0%} +{RSS_TOLERANCE_KIB // 1024} MiB)",
        f"{total} requests ({total / seconds:.0f}/s): {counts}; RSS start {kib(rss_start)}, after warm-up {kib(rss_warm)}, "
        f"max {kib(rss_max)}, end {kib(rss_end)}", ok)


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


def case_slowloris():
    database = new_database("slowloris")
    add_user(database, "alice")
    server = Server(database).start()  # the defaults: timeout 30 s, 1024 connections, 256 per IP
    # A probe slower than the bound fails the row by its latency; the socket waits longer still.
    probe_client = Client(server.port, timeout=bound("probe") + 5)

    def probe():
        probe_client.close()  # a new connection each time: the hard part when the server is full
        return probe_client.request("GET", "/api/entries")[0]

    def latency_text(latencies):
        if not latencies:
            return "no answers"
        ordered = sorted(latencies)
        return f"p50 {ordered[len(ordered) // 2] * 1000:.1f} ms, max {ordered[-1] * 1000:.1f} ms"

    # 1,000 from 8 addresses (125 each, under the per-IP limit): half idle, half dripping headers.
    sources = [f"127.0.0.{i}" for i in range(2, 10)]
    attackers, failed = open_many(server.port, 1000, sources, slow_every=2)
    latencies, failures = drip(attackers[::2], CFG["slowloris_seconds"], probe)
    still_open = len(attackers) - count_closed(attackers)
    close_all(attackers)
    ok = not failures and latencies and max(latencies) < bound("probe") and still_open >= 990 and failed == 0
    row("slowloris: 1,000 idle/dripping connections from 8 IPs (defaults)",
        f"other clients served (every probe 200 within {bound_text('probe')}) while the 1,000 stay connected",
        f"{len(latencies)} probes, failures {failures or 'none'}, {latency_text(latencies)}; "
        f"{still_open} attacker connections open at the end", ok)

    # Before the next 1,000: the server has let go of these (else they would count against its
    # limit of 1024 connections in all).
    released = wait_until(lambda: server_connections(server.port, sources) == 0, 60, 0.05)
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
    server.stop()

    # The timeout frees idle connections (lowered to 2 s here; 30 s by default).
    server = Server(database, ["--connection-timeout", "2"]).start()
    probe_client = Client(server.port, timeout=bound("probe") + 5)
    attackers, failed = open_many(server.port, 300, sources, slow_every=0)
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


# ---------------------------------------------------------------------------------------------
# Hostile input

# Attempts (by label) whose failure is understood and whose fix is in another team's files: the
# table says so, and they still fail the run. (The trailing comma Foundation accepted was one,
# fixed by StrictJSON in c781475.)
KNOWN_FAILURES = {}


class Hostile:
    """One server with two users; each check sends requests and compares the answers and the database."""

    def __init__(self):
        self.database = new_database("hostile")
        self.alice = add_user(self.database, "alice")
        self.bob = add_user(self.database, "bob")
        self.server = Server(self.database, ["--connection-timeout", "3"]).start()
        self.port = self.server.port
        client = Client(self.port, self.alice)
        self.entry = post_entry(client, "alice's entry", "private")[1]["entry_id"]
        self.diary = client.json("GET", f"/api/entries/{self.entry}")[1]["diary_id"]
        self.bob_entry = post_entry(client, "bob's entry", "his", token=self.bob)[1]["entry_id"]

    def serving(self):
        try:
            return Client(self.port).request("GET", "/api/health")[0] == 200
        except OSError:
            return False

    def check(self, case, expected, attempts, problem=True):
        """attempts: (label, raw bytes, accepted statuses, must close). Passes when every answer
        is accepted, 4xx answers are problem+json (unless libmicrohttpd itself may answer: `problem`
        false), the server still serves and nothing was written."""
        before = db_digest(self.database)
        wrong, known = [], []
        for label, data, statuses, must_close in attempts:
            answer = raw(self.port, data)
            status = answer["status"] if answer else "closed"
            if status not in statuses:
                wrong.append(f"{label}: {status}")
            elif problem and answer and 400 <= status < 500 and not is_problem(answer, status):
                wrong.append(f"{label}: {status} without a problem body")
            elif must_close and answer and not answer["closed"]:
                wrong.append(f"{label}: connection left open")
            elif status == 401 and not answer["headers"].get("www-authenticate", "").startswith("Bearer"):
                wrong.append(f"{label}: 401 without WWW-Authenticate: Bearer")
            if wrong and wrong[-1].startswith(f"{label}:") and label in KNOWN_FAILURES:
                known.append(KNOWN_FAILURES[label])
        unchanged = db_digest(self.database) == before
        serving = self.serving()
        observed = f"{len(attempts) - len(wrong)}/{len(attempts)} as expected"
        observed += f"; {', '.join(wrong)}" if wrong else ""
        observed += "" if unchanged else "; SOMETHING WAS WRITTEN"
        observed += "" if serving else "; SERVER NOT SERVING"
        passed = not wrong and unchanged and serving
        row(case, expected, observed, passed, "; ".join(known) if len(known) == len(wrong) else "")

    def post(self, body, token=True, content_type="application/json"):
        return build("POST", "/api/entries", self.alice if token else None, body, content_type)


def case_hostile():
    h = Hostile()
    post, bad = h.post, {400}
    h.check("JSON: malformed and truncated", "400 problem",
            [(label, post(b), bad, False) for label, b in [
                ("missing value", b'{"title": "x", "body": }'), ("cut", b'{"title":"x","bo'), ("{", b'{'), ("nul", b'nul'),
                ("missing comma", b'{"title":"x" "body":"y"}'), ("single quotes", b"{'title':'x','body':'y'}"),
                ("unquoted keys", b'{title:"x",body:"y"}'), ("comment", b'{"title":"x",/*c*/"body":"y"}'),
                ("trailing garbage", b'{"title":"x","body":"y"}garbage'), ("[", b'['), ("a string", b'"just a string"'),
                ("trailing comma", b'{"title":"x","body":"y",}'), ("bad escape", b'{"title":"x\\q","body":""}'),
                ("raw tab in string", b'{"title":"x","body":"a\tb"}'), ("empty", b''), ("two objects", b'{}{}')]])
    deep = 10_000
    h.check("JSON: nested 10,000 levels", "400 problem, no crash",
            [("array", post(b"[" * deep + b"]" * deep), bad, False),
             ("object in a field", post(b'{"title":"t","body":"b","x":' + b'{"a":' * deep + b"1" + b"}" * deep + b"}"), bad, False),
             ("unclosed", post(b"[" * deep), bad, False)])
    h.check("JSON: huge and odd numbers", "400 problem",
            [(n, post(f'{{"title":"t","body":"b","diary_id":{n}}}'.encode()), bad, False) for n in
             ["99999999999999999999999", "1e999", "-1e999", "1.5", '"1"', "9223372036854775808", "0x10", "NaN", "01", "+1"]]
            + [("1e3 (= 1000, no such diary)", post(b'{"title":"t","body":"b","diary_id":1e3}'), {400, 422}, False),
               ("title 1e400", post(b'{"title":1e400,"body":"b"}'), bad, False)])
    h.check("NUL bytes in JSON, path and query", "422 (escaped NUL) or 400 problem",
            [("\\u0000 in body", post(b'{"title":"t","body":"a\\u0000b"}'), {422}, False),
             ("\\u0000 in title", post(b'{"title":"a\\u0000","body":"b"}'), {422}, False),
             ("raw NUL in string", post(b'{"title":"t","body":"a\x00b"}'), bad, False),
             ("%00 in path", build("GET", "/api/entries/1%00"), bad, False),
             ("%00 in query", build("GET", "/api/entries?page=%00"), bad, False)])
    # libmicrohttpd 0.9.75 hands request lines and fields over as C strings: a raw NUL ends them.
    # It and the router then see the same shorter text, so framing cannot split (the smuggling
    # case below); RFC 9110 would rather have a 400, which this libmicrohttpd cannot give.
    h.check("raw NUL bytes in the request line and header fields", "400, or read as if the text ended at the NUL",
            [("in a field name", build("GET", "/api/me", h.alice, headers=["X-\x00A: b"]), bad, True),
             ("in a field value", build("GET", "/api/health", headers=["X-A: a\x00b"]), {200, 400}, False),
             ("in the target", build("GET", "/api/health\x00/../me"), {200, 400}, False),
             ("in Content-Length", post(b'{"title":"t","body":"b"}' + b"x" * 8, token=True).replace(
                 b"Content-Length: 32", b"Content-Length: 3\x002"), {400}, False)], problem=False)
    h.check("invalid UTF-8", "400 problem",
            [(label, post(b'{"title":"' + seq + b'","body":"b"}'), bad, False) for label, seq in
             [("\\xff", b"\xff"), ("overlong /", b"\xc0\xaf"), ("surrogate bytes", b"\xed\xa0\x80"), ("cut", b"\xe6\x97")]]
            + [("lone surrogate escape", post(b'{"title":"t","body":"\\ud800"}'), bad, False),
               ("path", build("GET", "/api/entries/%ff"), bad, False),
               ("query", build("GET", "/api/entries?page=%c0%af"), bad, False)])
    h.check("overlong or broken titles", "422 problem",
            [(f"{n} chars", post(json.dumps({"title": "t" * n, "body": ""}).encode()), {422}, False) for n in (201, 100_000)]
            + [("line break", post(b'{"title":"a\\nb","body":""}'), {422}, False),
               ("blank", post(b'{"title":"   ","body":""}'), {422}, False),
               ("201 emoji", post(json.dumps({"title": "😀" * 201, "body": ""}).encode()), {422}, False)])
    case_huge_bodies(h)
    h.check("request line or headers over 32 KiB", "414 or 431 (libmicrohttpd's own page), the server serving",
            [("40 KB target", build("GET", "/api/entries?q=" + "x" * 40_000), {414, 431}, False),
             ("40 KB header", build("GET", "/api/health", headers=["X-Big: " + "x" * 40_000]), {431, 413}, False),
             ("2,000 headers", build("GET", "/api/health", headers=[f"X-{i}: y" for i in range(2000)]), {431, 413}, False)],
            problem=False)
    case_smuggling(h)
    ids = ["-1", "0", "99999999999999999999", "1.5", "1e3", "%00", "../", "%2e%2e%2f", "1%20OR%201=1", "0x1", "+1", "1;"]
    attempts = []
    for entry_id in ids:
        attempts += [(f"GET {entry_id}", build("GET", f"/api/entries/{entry_id}"), bad, False),
                     (f"PATCH {entry_id}", build("PATCH", f"/api/entries/{entry_id}", h.alice, b'{"title":"x"}'), bad, False),
                     (f"DELETE {entry_id}", build("DELETE", f"/api/entries/{entry_id}", h.alice), bad, False),
                     (f"diary {entry_id}", build("GET", f"/api/diaries/{entry_id}/entries"), bad, False)]
    h.check("ids: " + " ".join(ids), "400 problem", attempts)
    pages = ["page=0", "page=-1", "page=abc", "page=1.5", "page=1e3", "page=99999999999999999999", "page=",
             "per_page=0", "per_page=101", "per_page=-1", "per_page=1e2", "per_page=99999999999999999999",
             "page=9223372036854775807", "page=%2B1"]
    h.check("page and per_page out of range", "400 problem",
            [(p, build("GET", f"/api/entries?{p}"), bad, False) for p in pages]
            + [(f"diary {p}", build("GET", f"/api/diaries/{h.diary}/entries?{p}"), bad, False) for p in pages[:4]])
    status, page = Client(h.port).json("GET", "/api/entries?page=1000000000000000&per_page=100")
    row("page far past the end (page=10^15, per_page=100)", "200, an empty page, no overflow",
        f"{status}, {len((page or {}).get('entries', [None]))} entries", status == 200 and page["entries"] == [])
    case_search_parameters(h)
    case_search_cost(h)
    case_import(h)
    case_injection(h)
    case_tokens(h)
    h.server.stop()


def case_huge_bodies(h):
    size = CFG["hostile_mb"] * 1_000_000
    before = db_digest(h.database)
    # A 100 MB Content-Length: refused from the headers alone, before any body byte is sent.
    with connect(h.port) as sock:
        sock.sendall(build("POST", "/api/entries", h.alice, b"", length=False)[:-2] + f"Content-Length: {size}\r\n\r\n".encode())
        try:
            answer = read_answer(sock)
            declared = (answer["status"], answer["closed"], is_problem(answer, 413))
        except (OSError, http.client.HTTPException) as error:
            declared = (type(error).__name__, None, None)
    # 100 MB chunked: the server stops reading past the limit and closes.
    head = build("POST", "/api/entries", h.alice, b"", length=False)[:-2] + b"Transfer-Encoding: chunked\r\n\r\n"
    chunk = b"100000\r\n" + b"a" * 0x100000 + b"\r\n"
    sent, outcome = 0, "all sent"
    with connect(h.port, timeout=10) as sock:
        sock.sendall(head)
        try:
            while sent < size:
                sock.sendall(chunk)
                sent += 0x100000
            sock.sendall(b"0\r\n\r\n")
            outcome = f"all sent, then {read_answer(sock)['status']}"
        except (OSError, http.client.HTTPException) as error:
            try:
                answer = read_answer(sock, 2)
                outcome = f"{answer['status']} after {sent // 1_000_000} MB"
            except (OSError, http.client.HTTPException):
                outcome = f"closed after {sent // 1_000_000} MB ({type(error).__name__})"
    # A chunked body that never ends: the connection timeout (3 s here) closes it.
    began = time.monotonic()
    stalled_after = None
    waited = bound("stalled_closed") + 10
    with connect(h.port, timeout=waited) as sock:
        sock.sendall(head + b"5\r\nhello\r\n")
        try:
            data = sock.recv(4096)
            stalled_after = time.monotonic() - began
            stalled = f"closed after {stalled_after:.1f} s" + (f" with {data[:12]!r}" if data else "")
        except socket.timeout:
            stalled = f"still open after {waited:g} s"
        except ConnectionResetError:
            stalled_after = time.monotonic() - began
            stalled = f"reset after {stalled_after:.1f} s"
    unchanged = db_digest(h.database) == before
    serving = h.serving()
    ok = (declared == (413, True, True) and not outcome.startswith("all sent") and stalled.startswith(("closed", "reset"))
          and stalled_after is not None and stalled_after < bound("stalled_closed") and unchanged and serving)
    row(f"{CFG['hostile_mb']} MB bodies; a chunked body that never ends",
        "413 problem + close before the body; stop reading past 2 MiB; stalled body closed at the timeout "
        f"(within {bound_text('stalled_closed')})",
        f"Content-Length {size}: {declared[0]} closed={declared[1]}; chunked: {outcome}; stalled: {stalled}; "
        f"nothing written {unchanged}, serving {serving}", ok)


def case_smuggling(h):
    smuggled = build("GET", "/api/me", h.alice)
    body = b'{"title":"smuggled","body":""}'
    head = build("POST", "/api/entries", h.alice, body, length=False)[:-len(body) - 2]
    attempts = [
        ("two Content-Length", head + f"Content-Length: {len(body)}\r\nContent-Length: 0\r\n\r\n".encode() + body + smuggled),
        ("two equal Content-Length", head + f"Content-Length: {len(body)}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body),
        ("CL + TE", head + f"Content-Length: {len(body)}\r\nTransfer-Encoding: chunked\r\n\r\n".encode() + b"0\r\n\r\n" + smuggled),
        ("TE + CL", head + f"Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n".encode() + b"0\r\n\r\n" + smuggled),
        ("TE twice", head + b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled),
        ("TE gzip, chunked", head + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + smuggled),
        ("Content-Length: 1, 1", head + b"Content-Length: 1, 1\r\n\r\n{" + smuggled),
        ("Content-Length: -1", head + b"Content-Length: -1\r\n\r\n" + smuggled),
    ]
    h.check("request smuggling: duplicate Content-Length, CL + TE", "400 and the connection closed, nothing smuggled",
            [(label, data, {400}, True) for label, data in attempts], problem=False)


def quote(text):
    return "".join(c if c.isalnum() else "".join(f"%{byte:02X}" for byte in c.encode()) for c in text)


def case_search_parameters(h):
    """FTS5 syntax and SQL in every filter: found as text or refused, never a 5xx, nothing written."""
    terms = ['"', '"""', "*", "a*b", "NEAR(ali ent)", "ali OR ent", "-ent", "^ent", "ent:x", "entries_fts", "''",
             "'; DROP TABLE entries; --", "\x00", "abc\x00", "\x00xyz", "x" * 2000, "(", ")", "AND", "\u0000", "{ali ent}", "ali + ent"]
    others = ["tag=" + quote(t) for t in ["'; DROP TABLE entry_tags; --", "a\"b", "%", "x" * 300, ""]]
    others += [f"{name}={quote(value)}" for name in ("since", "until") for value in
               ["2026-11-01' OR '1'='1", "2026-13-01", "9999-12-31T23:59:60Z", "-1", "1e3", "", "2026-11-01T00:00:00+09:00"]]
    others += ["order=" + quote(v) for v in ["relevance; DROP TABLE entries", "NEWEST", "", "bm25"]]
    others += ["cursor=" + quote(v) for v in ["' OR 1=1 --", "AAAA", "x" * 500, "", "%00"]]
    attempts = [(f"q={t[:12]}", build("GET", f"/api/entries?q={quote(t)}"), {200, 400}, False) for t in terms]
    attempts += [(f"diary q={t[:12]}", build("GET", f"/api/diaries/{h.diary}/entries?q={quote(t)}"), {200, 400}, False)
                 for t in terms[:6]]
    attempts += [(p[:24], build("GET", f"/api/entries?{p}"), {200, 400}, False) for p in others]
    h.check("search and filters: FTS5 syntax and SQL in q, tag, since, until, order, cursor",
            "200 (searched as text) or 400 problem; never 5xx", attempts)


def case_search_cost(h):
    """Queries that would hold a thread for minutes (each term walks the index or scans the
    entries) are refused before SQLite sees them; repeats count once; the bounds still search."""
    queries = [("1,000 words", " ".join(["rain"] * 1000), {400}), ("5,000-character phrase", '"' + "rain " * 1000 + '"', {400}),
               ("9 short terms", " ".join("abcdefghi"), {400}), ("201 characters", "x" * 201, {400}),
               ("8 short terms", " ".join("abcdefgh"), {200}), ("8 terms repeated 3 times", " ".join(list("abcdefgh") * 3), {200}),
               ("200 characters", "x" * 200, {200})]
    attempts = [(label, build("GET", f"/api/entries?q={quote(q)}"), statuses, False) for label, q, statuses in queries]
    tags = [("21 different tags", [f"t{i}" for i in range(21)], {400}), ("1,100 different tags", [f"t{i}" for i in range(1100)], {400}),
            ("20 different tags", [f"t{i}" for i in range(20)], {200}), ("one tag 2,000 times", ["travel"] * 2000, {200})]
    attempts += [(label, build("GET", "/api/entries?" + "&".join(f"tag={t}" for t in names)), statuses, False)
                 for label, names, statuses in tags]
    # 2,000 arguments nothing reads: libmicrohttpd's pool ran out on them and the connection hung.
    attempts.append(("2,000 unknown arguments", build("GET", "/api/entries?" + "&".join(f"x{i}" for i in range(2000))), {200}, False))
    h.check("search cost: q over 200 characters or 8 different terms, over 20 tags, many arguments",
            "400 problem; at the bounds 200; never 5xx or no answer", attempts)


def case_import(h):
    ndjson = "application/x-ndjson"
    entry = {"entry_id": 900, "diary_id": h.diary, "author": "alice", "title": "imported", "body": "",
             "created": "2026-11-01T00:00:00Z", "updated": "2026-11-01T00:00:00Z", "tags": []}

    def variant(**changes):
        return json.dumps({**entry, **changes}).encode()

    attempts = [
        ("malformed line", build("POST", "/api/import", h.alice, variant() + b"\n{oops", ndjson), {400, 422}),
        ("array of wrong types", build("POST", "/api/import", h.alice, b'[{"entry_id":"x"}]'), {400, 422}),
        ("huge id", build("POST", "/api/import", h.alice, variant(entry_id=2**64)), {400, 422}),
        ("id 2^63-1", build("POST", "/api/import", h.alice, variant(entry_id=2**63 - 1)), {400, 422}),
        ("bad date", build("POST", "/api/import", h.alice, variant(created="yesterday")), {400, 422}),
        ("NUL title", build("POST", "/api/import", h.alice, variant(title="a\u0000")), {400, 422}),
        ("into alice's diary by bob", build("POST", "/api/import", h.bob, variant(), ndjson), {403}),
        ("as alice by bob", build("POST", "/api/import", h.bob, variant(author="bob"), ndjson), {403}),
        ("no token", build("POST", "/api/import", None, variant()), {401}),
        ("text/plain", build("POST", "/api/import", h.alice, variant(), "text/plain"), {415}),
        ("10,000 nested", build("POST", "/api/import", h.alice, b"[" * 10_000 + b"]" * 10_000), {400, 422}),
    ]
    h.check("import: malformed, out of range, another user's diary", "400/422/403/401/415 problem, nothing written",
            [(label, data, statuses, False) for label, data, statuses in attempts])


def case_injection(h):
    client = Client(h.port, h.alice)
    payloads = ["'; DROP TABLE entries; --", "\" OR 1=1 --", "Robert'); DROP TABLE users;--",
                "1; UPDATE users SET token_hash = 'x'", "' UNION SELECT token_hash FROM users --", "%' OR '%'='"]
    schema = db_rows(h.database, "SELECT type, name, sql FROM sqlite_master ORDER BY name")
    users = db_rows(h.database, "SELECT * FROM users ORDER BY user_id")
    verbatim = []
    for p in payloads:
        status, entry = post_entry(client, p, p)
        stored = client.json("GET", f"/api/entries/{entry.get('entry_id')}")[1] or {}
        verbatim.append(status == 201 and stored.get("title") == p and stored.get("body") == p)
        patched = client.json("PATCH", f"/api/entries/{entry.get('entry_id')}", {"body": p + p})[1] or {}
        verbatim.append(patched.get("body") == p + p)
        status, diary = client.json("POST", "/api/diaries", {"title": p})
        verbatim.append(status == 201 and (diary or {}).get("title") == p)
        status, headers, _ = client.request("POST", "/api/entries", {"title": "idem", "body": p},
                                            headers={"Idempotency-Key": p.replace(" ", "/**/")})
        verbatim.append(status == 201)
    refused = []
    for p in payloads:
        quoted = quote(p)
        for method, path, body, token in [
            ("GET", f"/api/entries?page={quoted}", None, None), ("GET", f"/api/entries?per_page={quoted}", None, None),
            ("GET", f"/api/entries/{quoted}", None, None), ("GET", f"/api/diaries/{quoted}/entries", None, None),
            ("GET", "/api/me", None, p.replace(" ", "")),
            ("POST", "/api/entries", {"title": "t", "body": "b", "diary_id": p}, None),
        ]:
            refused.append(client.request(method, path, body, token=token)[0])
    code, _ = server_tool(h.database, "user", "add", "x'; DROP TABLE users;--")
    intact = (db_rows(h.database, "SELECT type, name, sql FROM sqlite_master ORDER BY name") == schema
              and db_rows(h.database, "SELECT * FROM users ORDER BY user_id") == users)
    statuses = sorted(set(refused))
    ok = all(verbatim) and set(refused) <= {400, 401} and code != 0 and intact and h.serving()
    row("SQL injection in titles, bodies, diary titles, keys, ids, page, per_page, token, user name",
        "text stored verbatim; other parameters 400/401; schema and users unchanged",
        f"{sum(verbatim)}/{len(verbatim)} stored verbatim; refused with {statuses}; user add exit {code}; "
        f"schema and users intact {intact}", ok)


def case_tokens(h):
    e = h.entry
    attempts = [
        ("no token POST", build("POST", "/api/entries", None, b'{"title":"t","body":""}'), {401}),
        ("no token PATCH", build("PATCH", f"/api/entries/{e}", None, b'{"title":"t"}'), {401}),
        ("no token DELETE", build("DELETE", f"/api/entries/{e}"), {401}),
        ("no token me", build("GET", "/api/me"), {401}),
        ("Bearer garbage", build("DELETE", f"/api/entries/{e}", "garbage"), {401}),
        ("Bearer alone", build("GET", "/api/me", headers=["Authorization: Bearer"]), {401}),
        ("Basic", build("GET", "/api/me", headers=["Authorization: Basic YWxpY2U6cGFzcw=="]), {401}),
        ("token + x", build("DELETE", f"/api/entries/{e}", h.alice + "x"), {401}),
        ("token twice", build("DELETE", f"/api/entries/{e}", f"{h.alice} {h.alice}"), {401}),
        ("bob PATCH alice's", build("PATCH", f"/api/entries/{e}", h.bob, b'{"title":"mine"}'), {403}),
        ("bob PUT alice's", build("PUT", f"/api/entries/{e}", h.bob, b'{"title":"mine","body":""}'), {403}),
        ("bob DELETE alice's", build("DELETE", f"/api/entries/{e}", h.bob), {403}),
        ("bob POST to alice's diary", build("POST", "/api/entries", h.bob, f'{{"title":"t","body":"","diary_id":{h.diary}}}'.encode()), {403}),
    ]
    h.check("tokens: none, garbage, another user's", "401 + WWW-Authenticate: Bearer; 403 on others' entries",
            [(label, data, statuses, False) for label, data, statuses in attempts])
    old, client = h.alice, Client(h.port)
    h.alice = add_user(h.database, "alice", rotate=True)
    rotated = (client.request("GET", "/api/me", token=old)[0], client.request("GET", "/api/me", token=h.alice)[0],
               client.request("DELETE", f"/api/entries/{e}", token=old)[0])
    row("tokens: rotated with diary-server user token", "old token 401 at once (also for DELETE), new one 200",
        f"old/new/old-DELETE {rotated}", rotated == (401, 200, 401))


def case_privacy():
    """Readers with and without the owner's token on the same URLs, through the response cache,
    while the owner writes: no answer meant for the owner reaches anyone else, and the owner
    never gets the public answer."""
    database = new_database("privacy")
    alice, bob = add_user(database, "alice"), add_user(database, "bob")
    server = Server(database).start()
    def post(client, title, **fields):
        return client.json("POST", "/api/entries", {"title": title, "body": fields.pop("body", ""), **fields})

    owner = Client(server.port, alice)
    # Every private or unlisted title and body holds SECRET; public ones never do.
    fixed = post(owner, "SECRET fixed kyoto", body="SECRET", visibility="private")[1]["entry_id"]
    post(owner, "SECRET link kyoto", body="SECRET", visibility="unlisted")
    for n in range(20):
        post(owner, f"public {n} kyoto", body="autumn leaves", tags=["travel"])
    owner.close()
    urls = ["/api/entries", "/api/entries?per_page=100", "/api/entries?q=kyoto&per_page=100", "/api/entries?q=SECRET+fixed",
            "/api/entries?tag=travel&per_page=100", "/api/diaries", "/api/diaries/1", "/api/diaries/1/entries?per_page=100",
            "/api/tags", "/api/export", f"/api/entries/{fixed}"]
    deadline = time.monotonic() + CFG["privacy_seconds"]
    leaks, misses, errors, counts = [], [], [], {"anonymous": 0, "bob": 0, "alice": 0, "writes": 0}
    lock = threading.Lock()

    def read(index):
        name, token = [("anonymous", None), ("bob", bob), ("alice", alice)][index % 3]
        client, local, n = Client(server.port, token, record=False), random.Random(index), 0
        while time.monotonic() < deadline or n == 0:
            url = local.choice(urls)
            try:
                status, headers, body = client.request("GET", url)
            except (OSError, http.client.HTTPException) as error:
                with lock:
                    errors.append(f"{name} {url}: {error}")
                client.close()
                continue
            n += 1
            secret = b"SECRET" in body or b'"private"' in body or b'"unlisted"' in body
            with lock:
                # An answer to a token is never kept (no-store); a public one may be (no-cache).
                public_cache = "no-cache" if token is None and status == 200 else "no-store"
                if name != "alice" and (secret or headers.get("cache-control") != public_cache):
                    leaks.append(f"{name} GET {url}: {status} {headers.get('cache-control')} {body[:120]!r}")
                # The fixed private entry is always in the owner's answers that can hold it.
                holds_fixed = url in (f"/api/entries/{fixed}", "/api/entries?q=SECRET+fixed", "/api/export")
                if name == "alice" and (status != 200 or headers.get("cache-control") != "no-store"
                                        or (holds_fixed and b"SECRET fixed" not in body)):
                    misses.append(f"alice GET {url}: {status} {headers.get('cache-control')} {body[:120]!r}")
        with lock:
            counts[name] += n

    def write(_):
        client, n = Client(server.port, alice, record=False), 0
        while time.monotonic() < deadline:
            try:
                status, document = post(client, f"SECRET {n}", body="SECRET kyoto", visibility=["private", "unlisted"][n % 2], tags=["travel"])
                if status == 201:
                    client.request("PATCH", f"/api/entries/{document['entry_id']}", {"title": f"SECRET again {n}"})
                    if n % 3 == 0:
                        client.request("DELETE", f"/api/entries/{document['entry_id']}")
                # A public write now and then, so that the cache is rebuilt under the readers.
                if n % 5 == 0:
                    post(client, f"public write {n}", body="kyoto")
                n += 1
            except (OSError, http.client.HTTPException) as error:
                with lock:
                    errors.append(f"writer: {error}")
                client.close()
        with lock:
            counts["writes"] += n

    threads = start_threads(read, 12, *[lambda: write(0), lambda: write(1)])
    join_threads(threads, CFG["privacy_seconds"] + 120)
    code = server.stop()
    row("privacy: readers with and without the owner's token through the cache, while the owner writes",
        "no private or unlisted entry, nor no-store, in any answer to anyone else; the owner's answers always hold "
        "their private entries (no-store); no errors",
        f"{counts}; leaks {len(leaks)} {leaks[:2]}; owner answers without their entries {len(misses)} {misses[:2]}; "
        f"errors {len(errors)} {errors[:2]}",
        not leaks and not misses and not errors and code == 0 and counts["writes"] > 0 and min(counts["anonymous"], counts["bob"], counts["alice"]) > 0)


def case_timing():
    """Wrong tokens of three kinds, interleaved on one keep-alive connection, compared by median."""
    database = new_database("timing")
    old = add_user(database, "alice")
    current = add_user(database, "alice", rotate=True)
    for i in range(10):
        add_user(database, f"user{i}")
    server = Server(database).start()
    client = Client(server.port, record=False)
    rng = random.Random(OPTS.seed + 3)
    near = current[:-1] + ("A" if current[-1] != "A" else "B")
    kinds = {
        "random token (no user)": lambda: "diary_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789-_") for _ in range(43)),
        "one char off a real token": lambda: near,
        "rotated-out token": lambda: old,
        "no Authorization": lambda: None,
    }
    samples = {k: [] for k in kinds}
    statuses = set()
    for round_number in range(CFG["timing_rounds"] + 100):
        order = list(kinds)
        rng.shuffle(order)
        for kind in order:
            token = kinds[kind]()
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            began = time.perf_counter_ns()
            status = client.request("GET", "/api/me", headers=headers)[0]
            elapsed = (time.perf_counter_ns() - began) / 1000
            statuses.add(status)
            if round_number >= 100:
                samples[kind].append(elapsed)
    server.stop()
    medians = {k: statistics.median(v) for k, v in samples.items()}
    wrong = [k for k in kinds if kinds[k]() is not None]
    spread = max(medians[k] for k in wrong) - min(medians[k] for k in wrong)
    noise = max(abs(statistics.median(samples[k][0::2]) - statistics.median(samples[k][1::2])) for k in wrong)
    ratio, factor = bound("timing_ratio"), bound("timing_noise")
    threshold = max(ratio * min(medians[k] for k in wrong), factor * noise)
    strict = max(TIMING_THRESHOLD_RATIO * min(medians[k] for k in wrong), TIMING_NOISE_FACTOR * noise)
    ok = statuses == {401} and spread < threshold
    described = ", ".join(f"{k} {m:.0f} µs" for k, m in medians.items())
    which = (f"short-run bound; the long run holds max({TIMING_THRESHOLD_RATIO:.0%}, {TIMING_NOISE_FACTOR} x noise)"
             if OPTS.short else "strict bound")
    row(f"timing: wrong tokens, {CFG['timing_rounds']} interleaved rounds",
        f"all 401; medians of the 3 wrong-token kinds differ by < max({ratio:.0%}, {factor:g} x noise) [{which}]",
        f"medians {described}; spread {spread:.1f} µs, noise {noise:.1f} µs, threshold {threshold:.1f} µs"
        + (f" (strict threshold {strict:.1f} µs: {'met' if spread < strict else 'NOT met'})" if OPTS.short else ""), ok)


# ---------------------------------------------------------------------------------------------
# Fuzzing, secrets

def case_fuzz():
    seed = OPTS.seed
    command = [os.path.join(BIN, "diary-fuzz"), "--seed", str(seed), "--seconds", str(CFG["fuzz_seconds"])]
    result = subprocess.run(command, capture_output=True, timeout=CFG["fuzz_seconds"] + 120)
    output = result.stdout.decode(errors="replace").strip().splitlines()
    last = output[-1] if output else result.stderr.decode(errors="replace")[-300:]
    row(f"fuzz: seeded random requests to the in-process router, {CFG['fuzz_seconds']} s",
        "no crash, no 5xx, every 4xx problem+json (an HTML page outside /api/), no secret in an answer",
        f"seed {seed}, exit {result.returncode}: {last[:400]}", result.returncode == 0)
    if OPTS.libfuzzer:
        corpus = os.path.join(WORK, "corpus")
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


def case_logs():
    logs = [s.log_text() for s in SERVERS if os.path.exists(s.log)]
    with TRANSCRIPT_LOCK:
        answers = b"\n".join(TRANSCRIPT).decode("utf-8", "replace")
    found = sorted({("token" if s.startswith("diary_") else "path" if "/" in s else "token hash") + where
                    for s in SECRETS for where, text in ((" in an answer", answers), (" in a log", "\n".join(logs)))
                    if s in text})
    row("secrets: database paths, tokens and token hashes",
        "in no answer and no server log line",
        f"{len(SECRETS)} secrets searched in {len(TRANSCRIPT)} answers and {len(logs)} logs "
        f"({sum(len(l) for l in logs)} bytes): {', '.join(found) or 'none found'}", not found)
    # With binaries built under --sanitize=thread or address, their reports land in these logs.
    alarms = sorted({m.group(0) for log in logs for m in re.finditer(
        r"WARNING: ThreadSanitizer: [a-z -]+|ERROR: AddressSanitizer: [a-z-]+|Fatal error|runtime error|Segmentation fault", log)})
    row("server logs: no crash, trap or sanitizer report", "none in any server's stderr",
        f"{len(logs)} logs: {', '.join(alarms) or 'none'}", not alarms)


# ---------------------------------------------------------------------------------------------
# PostgreSQL faults (issue 14). Each case starts a cluster of its own (scripts/postgres), since
# it stops, freezes or fills it, and removes it whatever happens (also at exit).

PG_BIN = "/usr/lib/postgresql/15/bin"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTERS = []          # every cluster started, thawed and removed at exit
# The database timeout the PostgreSQL cases give their servers (--database-timeout): every bound
# on an answer while PostgreSQL is away is a multiple of it.
PG_TIMEOUT = 1.0
# PostgresDiaryStore's version lease (dataVersionLease), in seconds.
VERSION_LEASE = 0.001


def as_postgres(command):
    """PostgreSQL refuses to run as root: as root, its tools run as the package's `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else list(command)


class Postgres:
    """A throwaway PostgreSQL 15 cluster on loopback (scripts/postgres) that a case may stop,
    start with other settings, freeze (SIGSTOP, as a network partition would look) and query."""

    def __init__(self):
        result = subprocess.run([os.path.join(ROOT, "scripts", "postgres")], capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            raise RuntimeError(f"scripts/postgres failed: {result.stderr[-500:]}")
        values = dict(line.split("=", 1) for line in result.stdout.split())
        self.url, self.dir = values["DIARY_TEST_POSTGRES_URL"], values["DIARY_POSTGRES_DIR"]
        self.port = int(re.search(r":(\d+)/", self.url).group(1))
        self.frozen = []
        CLUSTERS.append(self)

    def ctl(self, *args):
        result = subprocess.run(as_postgres([f"{PG_BIN}/pg_ctl", "-D", f"{self.dir}/data", *args]),
                                capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"pg_ctl {' '.join(args)} failed: {result.stdout[-300:]} {result.stderr[-300:]}")

    def stop(self, mode):
        self.ctl("-m", mode, "-w", "stop")

    def start(self, max_connections=300):
        self.ctl("-l", f"{self.dir}/log", "-w", "-t", "60", "start", "-o",
                 f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c max_connections={max_connections}")

    def processes(self):
        """The postmaster first, then every process it started (backends, background workers)."""
        with open(f"{self.dir}/data/postmaster.pid") as file:
            postmaster = int(file.readline())
        children = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as stat:
                        if int(stat.read().rsplit(")", 1)[1].split()[1]) == postmaster:
                            children.append(int(entry))
                except (OSError, IndexError, ValueError):
                    pass
        return [postmaster] + children

    def freeze(self):
        """SIGSTOP to the postmaster (so it starts no backend) and then to its children."""
        for pid in self.processes():
            os.kill(pid, signal.SIGSTOP)
            self.frozen.append(pid)

    def thaw(self):
        for pid in reversed(self.frozen):
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self.frozen = []

    def sql(self, query):
        """Rows of one query through psql, as lists of text columns."""
        result = subprocess.run(["psql", self.url, "-X", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", query],
                                capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"psql failed: {result.stderr[-300:]}")
        return [line.split("\t") for line in result.stdout.splitlines() if line]

    def close(self):
        self.thaw()
        subprocess.run([os.path.join(ROOT, "scripts", "postgres"), "stop", self.dir], capture_output=True, timeout=180)
        if self in CLUSTERS:
            CLUSTERS.remove(self)


def pg_message(sock):
    """One message of PostgreSQL's protocol: (type byte, payload)."""
    def exactly(size):
        data = b""
        while len(data) < size:
            chunk = sock.recv(size - len(data))
            if not chunk:
                raise ConnectionError("PostgreSQL closed the connection")
            data += chunk
        return data
    kind = exactly(1)
    length = struct.unpack("!i", exactly(4))[0]
    return kind, exactly(length - 4)


def pg_sqlstate(payload):
    for field in payload.split(b"\0"):
        if field[:1] == b"C":
            return field[1:].decode()
    return "?"


def pg_login(port):
    """A logged-in, idle connection (as `diary`, trusted on loopback) that holds one of the
    server's slots until closed; or (None, SQLSTATE) when the server refused it."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    body = struct.pack("!i", 196608) + b"user\0diary\0database\0postgres\0application_name\0stress-hold\0\0"
    sock.sendall(struct.pack("!i", len(body) + 4) + body)
    while True:
        kind, payload = pg_message(sock)
        if kind == b"E":
            sock.close()
            return None, pg_sqlstate(payload)
        if kind == b"R" and struct.unpack("!i", payload[:4])[0] != 0:
            sock.close()
            raise RuntimeError("the cluster asked for a password")
        if kind == b"Z":
            return sock, None


def pg_query(sock, sql):
    """The first column of every row of a simple query on a held connection."""
    data = sql.encode() + b"\0"
    sock.sendall(b"Q" + struct.pack("!i", len(data) + 4) + data)
    values, error = [], None
    while True:
        kind, payload = pg_message(sock)
        if kind == b"D" and struct.unpack("!h", payload[:2])[0] > 0:
            size = struct.unpack("!i", payload[2:6])[0]
            values.append(payload[6:6 + size].decode() if size >= 0 else None)
        elif kind == b"E":
            error = pg_sqlstate(payload)
        elif kind == b"Z":
            if error:
                raise RuntimeError(f"query failed: SQLSTATE {error}")
            return values


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


def case_pg_servers():
    """Three servers on one PostgreSQL: every write acknowledged by one shows at once through the
    others, in the JSON list, the entry itself, the home page and the feed, while readers keep
    every server's response cache warm."""
    cluster = Postgres()
    try:
        servers, tokens = pg_servers(cluster, 3)
        stop = threading.Event()
        lock = threading.Lock()
        stale, checked, errors, reads = [], [0], [], [0]
        seconds = CFG["pg_seconds"]

        def warm_reader(index):
            client = Client(servers[index % 3].port, timeout=60, record=False)
            while not stop.is_set():
                for path in ("/api/entries", "/", "/feed.atom"):
                    try:
                        status = client.request("GET", path)[0]
                        if status != 200:
                            with lock:
                                errors.append(f"warm GET {path}: {status}")
                    except (OSError, http.client.HTTPException) as error:
                        client.close()
                        with lock:
                            errors.append(f"warm GET {path}: {error!r}")
                    with lock:
                        reads[0] += 1

        def writer(index):
            number = index % 3
            writer_client = Client(servers[number].port, tokens[number], timeout=60, record=False)
            others = [Client(servers[o].port, timeout=60, record=False) for o in range(3) if o != number]
            deadline = time.monotonic() + seconds
            n = 0
            while time.monotonic() < deadline or n == 0:
                n += 1
                title = f"multi s{number} n{n}"
                try:
                    status, document = writer_client.json("POST", "/api/entries", entry_body(title, "b"))
                    if status != 201:
                        with lock:
                            errors.append(f"POST via {number}: {status}")
                        continue
                    entry_id = document["entry_id"]
                    for other in others:
                        status, body = other.json("GET", f"/api/entries/{entry_id}")
                        found = [f"entry {status}"] if status != 200 or (body or {}).get("title") != title else []
                        for path in ("/api/entries", "/", "/feed.atom"):
                            status, ids = read_ids(other, path)
                            if status != 200 or not shows(ids, entry_id):
                                found.append(f"{path} {status}")
                        with lock:
                            checked[0] += 1
                            if found:
                                stale.append(f"entry {entry_id} via {number}, read via port {other.port}: {found}")
                except (OSError, http.client.HTTPException) as error:
                    with lock:
                        errors.append(f"writer {number}: {error!r}")
                    writer_client.close()

        readers = start_threads(warm_reader, 3)
        writers = start_threads(writer, 3)
        join_threads(writers, seconds + 120)
        stop.set()
        join_threads(readers, 60)
        ok = checked[0] > 0 and not stale and not errors
        row("pg servers: 3 servers on one PostgreSQL, 3 writers and 3 cache-warming readers",
            "after each 201 from one server, the other two show the entry (by id, JSON list, home page, feed); "
            "0 stale reads, 0 errors",
            f"{checked[0]} writes each checked through 2 other servers x 4 reads, {reads[0]} warm reads; "
            f"{len(stale)} stale: {stale[:3]}; {len(errors)} errors: {errors[:3]}", ok)
    finally:
        cluster.close()


def case_pg_kill():
    """SIGKILL of one of three servers during writes through it and the others."""
    rng = random.Random(OPTS.seed + 14)
    cluster = Postgres()
    try:
        servers, tokens = pg_servers(cluster, 3)
        traffic = Traffic(servers, tokens, rng.random())
        victim = servers[0]
        began = time.monotonic()
        traffic.start(writers_per_server=3, readers_per_server=0)

        def acked_through(number):
            with traffic.lock:
                return sum(1 for title, _ in traffic.acked.values() if title.startswith(f"traffic s{number} "))
        waited = wait_until(lambda: acked_through(0) >= CRASH_MIN_ACKED, 120)
        time.sleep(max(0.0, began + CFG["crash_seconds"] * rng.uniform(0.6, 1.0) - time.monotonic()))
        victim.signal(signal.SIGKILL)
        killed_at = time.monotonic()
        victim.wait(10)
        # The survivors go on: each acknowledges more writes after the kill.
        after = {n: acked_through(n) for n in (1, 2)}
        kept_on = wait_until(lambda: all(acked_through(n) >= after[n] + 5 for n in (1, 2)), 120)
        traffic.stop()
        # Every acknowledged entry, as a survivor reads it.
        reader = Client(servers[1].port, timeout=60, record=False)
        sample = rng.sample(sorted(traffic.acked), min(200, len(traffic.acked)))
        unread = [i for i in sample if (reader.json("GET", f"/api/entries/{i}")[1] or {}).get("title") != traffic.acked[i][0]]
        stored_ok, stored = acked_check(cluster, traffic.acked, traffic.sent)
        # The victim's writers lose their connections; the survivors' must not notice.
        survivor_faults = [f for f in traffic.faults() if " via 0:" not in f]
        ok = (waited is not None and kept_on is not None and stored_ok and not unread and not survivor_faults)
        row("pg kill: SIGKILL of 1 of 3 servers on one PostgreSQL during 9 writers",
            "every 201 entry stored with its content and read through a survivor; counts consistent; "
            "the survivors answer 2xx throughout",
            f"killed {killed_at - began:.1f} s in, after {acked_through(0)} writes acked through it; {stored}; "
            f"{len(sample) - len(unread)}/{len(sample)} read back via a survivor; survivors "
            + ("went on" if kept_on is not None else "did not go on") + f", {len(survivor_faults)} faults there {survivor_faults[:3]}",
            ok)
    finally:
        cluster.close()


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


def case_pg_restart():
    """PostgreSQL stopped (fast, then immediate) and started again under load through three servers."""
    rng = random.Random(OPTS.seed + 15)
    cluster = Postgres()
    try:
        servers, tokens = pg_servers(cluster, 3)
        traffic = Traffic(servers, tokens, rng.random()).start()
        details, all_ok, probes_sent = [], True, set()
        for mode in ("fast", "immediate"):
            base = traffic.acked_count()
            if wait_until(lambda: traffic.acked_count() >= base + 10, 120) is None:
                raise RuntimeError("no writes acknowledged before the stop")
            stopped_at = time.monotonic()
            cluster.stop(mode)
            down_at = time.monotonic()
            # Down for as long as every server takes to answer some requests asked since.
            answered = wait_until(lambda: all(traffic.answered_since(down_at, n) >= CFG["pg_down_requests"]
                                              for n in range(len(servers))), 120)
            back_at = time.monotonic()
            cluster.start()
            up_at = time.monotonic()
            recovered, probes = wait_serving(servers, tokens, 120)
            probes_sent |= probes
            during, away, slowest, not_503, first_503 = outage_summary(traffic, servers, stopped_at, down_at, back_at, up_at)
            ok = (answered is not None and away and not not_503 and slowest <= bound("pg_down_answer")
                  and recovered is not None and recovered <= bound("pg_recover"))
            all_ok &= ok
            details.append(
                f"-m {mode}: stop took {down_at - stopped_at:.2f} s, first 503 per server "
                f"{[None if t is None else round(t, 2) for t in first_503]} s after the stop began; "
                f"down {back_at - down_at:.1f} s: {len(away)} answers, {len(not_503)} not 503 {not_503[:3]}; "
                f"slowest answer {slowest:.2f} s; every server 2xx again "
                + (f"{recovered:.2f} s after start" if recovered is not None else "never"))
        traffic.stop()
        faults = traffic.faults()
        traffic.sent |= probes_sent
        stored_ok, stored = acked_check(cluster, traffic.acked, traffic.sent)
        ok = all_ok and not faults and stored_ok
        row("pg restart: PostgreSQL stopped (-m fast, -m immediate) and started under load, 3 servers",
            f"while down every request 503 + Retry-After (problem+json under /api/), each within "
            f"{bound_text('pg_down_answer')}; 0 other 5xx, 0 socket errors; every server 2xx again within "
            f"{bound_text('pg_recover')} of the start, no restart; no acked write lost",
            "; ".join(details) + f"; {len(traffic.records)} answers, {len(faults)} faults {faults[:3]}; {stored}", ok)
    finally:
        cluster.close()


def case_pg_frozen():
    """PostgreSQL frozen (SIGSTOP on the postmaster and its backends), as a network partition looks:
    requests must not wait for it longer than the database timeout allows."""
    rng = random.Random(OPTS.seed + 16)
    cluster = Postgres()
    try:
        servers, tokens = pg_servers(cluster, 2)
        traffic = Traffic(servers, tokens, rng.random()).start()
        if wait_until(lambda: traffic.acked_count() >= 10, 120) is None:
            raise RuntimeError("no writes acknowledged before the freeze")
        frozen_at = time.monotonic()
        try:
            cluster.freeze()
            # Away once its last process is stopped (one at a time, after a scan of /proc; a
            # request may still commit meanwhile), and a version lease later: a kept answer may
            # rest on a version read begun up to the lease before the request.
            away_at = time.monotonic() + VERSION_LEASE
            answered = wait_until(lambda: all(traffic.answered_since(frozen_at, n) >= CFG["pg_down_requests"]
                                              for n in range(len(servers))), 120)
        finally:
            back_at = time.monotonic()
            cluster.thaw()
        thawed_at = time.monotonic()
        recovered, probes = wait_serving(servers, tokens, 120)
        traffic.stop()
        during, away, slowest, not_503, first_503 = outage_summary(traffic, servers, frozen_at, away_at, back_at, thawed_at)
        faults = traffic.faults()
        traffic.sent |= probes
        stored_ok, stored = acked_check(cluster, traffic.acked, traffic.sent)
        ok = (answered is not None and away and not not_503 and slowest <= bound("pg_frozen_answer") and not faults and stored_ok
              and recovered is not None and recovered <= bound("pg_recover"))
        row(f"pg frozen: PostgreSQL stopped with SIGSTOP under load, 2 servers, --database-timeout {PG_TIMEOUT:g}",
            f"every request 503 + Retry-After within {bound_text('pg_frozen_answer')} of the freeze or of being asked; "
            f"0 other 5xx, 0 socket errors; 2xx again within {bound_text('pg_recover')} of SIGCONT; no acked write lost",
            f"first 503 per server {[None if t is None else round(t, 2) for t in first_503]} s after SIGSTOP; "
            f"frozen {thawed_at - frozen_at:.1f} s: {len(away)} answers, {len(not_503)} not 503 {not_503[:3]}, "
            f"slowest {slowest:.2f} s from the freeze or from being asked; every server 2xx again "
            + (f"{recovered:.2f} s after SIGCONT" if recovered is not None else "never")
            + f"; {len(faults)} faults {faults[:3]}; {stored}", ok)
    finally:
        cluster.close()


def case_pg_slots():
    """Every connection slot of PostgreSQL taken (by idle logins held here): 503 at once, not a
    hang; 2xx again once slots are free."""
    cluster = Postgres()
    held = []
    try:
        cluster.stop("fast")
        cluster.start(max_connections=12)
        servers, tokens = pg_servers(cluster, 2)
        traffic_check, _ = wait_serving(servers, tokens, 60)
        if traffic_check is None:
            raise RuntimeError("the servers did not serve before the slots were taken")

        def fill():
            """Logs in until the server refuses: every slot is then held here or by a server."""
            while len(held) < 50:
                sock, state = pg_login(cluster.port)
                if sock is None:
                    return state
                held.append(sock)
            return "none"
        refused = fill()
        # The servers' own connections are ended, and their slots taken by ones held here too.
        pg_query(held[0], "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'diary'")

        def servers_out():
            fill()
            return pg_query(held[0], "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'diary'") == ["0"]
        if wait_until(servers_out, 60, interval=0.05) is None:
            raise RuntimeError("the servers' connections did not end")
        refused = fill()
        taken_at = time.monotonic()
        traffic = Traffic(servers, tokens, OPTS.seed).start()
        answered = wait_until(lambda: all(traffic.answered_since(taken_at, n) >= CFG["pg_down_requests"]
                                          for n in range(len(servers))), 120)
        freed_at = time.monotonic()
        slots_held = len(held)
        for sock in held[len(held) // 2:]:
            sock.close()
        del held[len(held) // 2:]
        recovered, _ = wait_serving(servers, tokens, 120)
        traffic.stop()
        full = traffic.between(taken_at, freed_at)
        not_503 = [f"{r[3]} {r[4]} {r[5]}" for r in full if r[5] != 503]
        slowest = max((r[1] - r[0] for r in full), default=0.0)
        faults = traffic.faults()
        ok = (refused == "53300" and answered is not None and full and not not_503 and slowest <= bound("pg_down_answer")
              and not faults and recovered is not None and recovered <= bound("pg_recover"))
        row("pg slots: every PostgreSQL connection slot taken (max_connections 12), 2 servers",
            f"503 + Retry-After within {bound_text('pg_down_answer')}, not a hang; 0 other 5xx, 0 socket errors; "
            f"2xx again within {bound_text('pg_recover')} once slots free up",
            f"{slots_held} slots held here (then refused: SQLSTATE {refused}); {len(full)} answers while full, "
            f"{len(not_503)} not 503 {not_503[:3]}, slowest {slowest:.2f} s; half freed: every server 2xx again "
            + (f"{recovered:.2f} s later" if recovered is not None else "never") + f"; {len(faults)} faults {faults[:3]}", ok)
    finally:
        for sock in held:
            sock.close()
        cluster.close()


class CommitCutter:
    """A TCP proxy between diary-servers and PostgreSQL that, once armed, cuts the next writing
    transaction's connection at its COMMIT: "before" drops the COMMIT (PostgreSQL rolls the
    transaction back), "after" lets PostgreSQL commit and drops only its answer. Either way the
    server sees its connection lost during COMMIT. A transaction writes when it touched
    `data_version`, as every write of the store does and no read (by a statement prepared under a
    name and then bound, or by one sent whole)."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.armed = None          # "before", "after" or None
        self.cuts = 0
        threading.Thread(target=self.accept, daemon=True).start()

    def arm(self, mode):
        with self.lock:
            self.armed = mode

    def accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target_port))
            state = {"writes": False, "cut_answer": False, "moves_version": set()}
            threading.Thread(target=self.upstream, args=(client, server, state), daemon=True).start()
            threading.Thread(target=self.downstream, args=(client, server, state), daemon=True).start()

    @staticmethod
    def read_exactly(sock, size):
        data = b""
        while len(data) < size:
            chunk = sock.recv(size - len(data))
            if not chunk:
                raise ConnectionError
            data += chunk
        return data

    def cut(self, client, server):
        for sock in (client, server):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def upstream(self, client, server, state):
        """Client to PostgreSQL: the startup message has no type byte, every later one has."""
        try:
            length = struct.unpack("!i", self.read_exactly(client, 4))[0]
            server.sendall(struct.pack("!i", length) + self.read_exactly(client, length - 4))
            while True:
                kind = self.read_exactly(client, 1)
                header = self.read_exactly(client, 4)
                payload = self.read_exactly(client, struct.unpack("!i", header)[0] - 4)
                if kind == b"B":
                    # A prepared statement run by name (the store prepares its data version's UPDATE).
                    if payload.split(b"\0", 2)[1] in state["moves_version"]:
                        state["writes"] = True
                elif kind in (b"P", b"Q"):
                    parts = payload.split(b"\0", 2)
                    text = parts[1 if kind == b"P" else 0]
                    if b"data_version SET" in text:
                        if kind == b"P" and parts[0]:
                            state["moves_version"].add(parts[0])   # prepared: runs when bound
                        else:
                            state["writes"] = True
                    elif text.strip().upper() == b"COMMIT":
                        with self.lock:
                            mode = self.armed if state["writes"] else None
                            if mode:
                                self.armed = None
                                self.cuts += 1
                        state["writes"] = False
                        if mode == "before":
                            self.cut(client, server)
                            return
                        if mode == "after":
                            state["cut_answer"] = True
                server.sendall(kind + header + payload)
        except OSError:
            self.cut(client, server)

    def downstream(self, client, server, state):
        """PostgreSQL to client, message by message, so that COMMIT's answer can be held back."""
        try:
            while True:
                kind = self.read_exactly(server, 1)
                header = self.read_exactly(server, 4)
                payload = self.read_exactly(server, struct.unpack("!i", header)[0] - 4)
                if kind == b"C" and payload.startswith(b"COMMIT") and state["cut_answer"]:
                    self.cut(client, server)   # committed, and the server never hears it
                    return
                client.sendall(kind + header + payload)
        except OSError:
            self.cut(client, server)

    def close(self):
        self.listener.close()


def case_pg_commit_lost():
    """The connection lost during COMMIT, after PostgreSQL committed and before: the server asks
    PostgreSQL what became of the write, and answers what is true."""
    cluster = Postgres()
    cutter = CommitCutter(cluster.port)
    server = None
    try:
        token = add_user(cluster.url, "pgcut")
        proxied = cluster.url.replace(f":{cluster.port}/", f":{cutter.port}/")
        server = Server(proxied, ["--threads", "2", "--database-timeout", f"{PG_TIMEOUT * 5:g}"]).start()
        client = Client(server.port, token, timeout=60)
        results = {}
        for mode in ("after", "before", "after", "before"):
            title = f"cut {mode} {len(results)}"
            cutter.arm(mode)
            status, answer = client.json("POST", "/api/entries", entry_body(title, "a write whose COMMIT lost its answer"))
            stored = cluster.sql(f"SELECT entry_id FROM entries WHERE title = '{title}'")
            results[title] = (mode, status, (answer or {}).get("entry_id"), [int(r[0]) for r in stored])
        with cutter.lock:
            cuts, unused = cutter.cuts, cutter.armed
        wrong = []
        for title, (mode, status, answered_id, stored) in results.items():
            if mode == "after" and not (status == 201 and stored == [answered_id]):
                wrong.append(f"{title}: {status}, stored {stored}")
            if mode == "before" and not (status == 503 and stored == []):
                wrong.append(f"{title}: {status}, stored {stored}")
        reads = Client(server.port, timeout=60, record=False).json("GET", "/api/entries?per_page=1")[0]
        ok = cuts == len(results) and unused is None and not wrong and reads == 200
        row("pg commit lost: the connection to PostgreSQL cut during COMMIT (a proxy), after it committed and before",
            "committed: 201 with the stored entry's id; rolled back: 503 and nothing stored; the server serves on",
            f"{cuts} cuts; " + "; ".join(f"{m} -> {s}, stored {len(st)}" for m, s, _, st in results.values())
            + f"; {len(wrong)} wrong {wrong[:2]}; then a read: {reads}", ok)
    finally:
        if server:
            server.stop()
        cutter.close()
        cluster.close()


# ---------------------------------------------------------------------------------------------

CASES = [("crash", case_crash), ("graceful", case_graceful_stop), ("diskfull", case_disk_full),
         ("readonly", case_read_only), ("busy", case_busy), ("load", case_load), ("slowloris", case_slowloris),
         ("hostile", case_hostile), ("privacy", case_privacy), ("timing", case_timing), ("fuzz", case_fuzz),
         ("pg-servers", case_pg_servers), ("pg-kill", case_pg_kill), ("pg-restart", case_pg_restart),
         ("pg-slots", case_pg_slots), ("pg-frozen", case_pg_frozen),
         ("pg-commit-lost", case_pg_commit_lost), ("logs", case_logs)]


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
    global OPTS, CFG, BIN, WORK
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", action="store_true", help="a few seconds per case, for CI")
    parser.add_argument("--bin-dir", default=os.environ.get("DIARY_BIN_DIR", ""), help="folder of diary-server and diary-fuzz")
    parser.add_argument("--only", action="append", choices=[c[0] for c in CASES], help="run only these cases")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 1_000_000, help="for the random choices and the fuzzer")
    parser.add_argument("--libfuzzer", default="", help="a diary-fuzz built with -sanitize=fuzzer -DFUZZING")
    OPTS = parser.parse_args()
    CFG = SHORT if OPTS.short else LONG
    BIN = OPTS.bin_dir or subprocess.run(["swift", "build", "--show-bin-path"], capture_output=True, text=True).stdout.strip()
    WORK = tempfile.mkdtemp(prefix="diary-stress-")
    note(f"{'short' if OPTS.short else 'long'} run, seed {OPTS.seed} (replay: --seed {OPTS.seed}), binaries {BIN}")
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
    tmpfs = os.path.join(WORK, "tmpfs")
    if os.path.ismount(tmpfs):
        subprocess.run(["umount", "-l", tmpfs], capture_output=True)
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
