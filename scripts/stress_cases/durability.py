"""Faults on SQLite: SIGKILL during writes, a graceful stop with requests in flight, a full disk, a
read-only file, a database busy with two servers and an outside lock holder."""

import http.client
import json
import os
import random
import resource
import shutil
import signal
import socket
import sqlite3
import subprocess
import threading
import time

from diarykit.http_client import build, connect, is_problem
from diarykit.processes import wait_until
from stress_cases.context import (
    add_user, bound, bound_text, CFG, Client, CRASH_MIN_ACKED, db_digest, db_rows, integrity, join_threads,
    new_database, OPTS, post_entry, read_answer, row, SECRETS, Server, start_threads, text_sample, TITLE_MARKS,
    work_path)


def case_crash():
    rng = random.Random(OPTS.seed)
    database = new_database("crash")
    tokens = [add_user(database, f"writer{i}") for i in range(4)]
    writes = Writes()
    all_ok, details = True, []
    for round_number in range(1, CFG["crash_rounds"] + 1):
        waited, killed_after = write_until_killed(database, tokens, rng, round_number, writes)
        intact, detail = check_after_crash(database, tokens, rng, round_number, writes)
        all_ok &= intact and waited is not None
        details.append(f"round {round_number}: killed after {killed_after:.1f} s"
                       + ("" if waited is not None else f" (not {CRASH_MIN_ACKED} writes acknowledged within 120 s)")
                       + detail)
    row("crash: SIGKILL during 8 concurrent writers",
        "every 201 entry present with exact content; integrity_check ok; serves after restart",
        "; ".join(details), all_ok)


class Writes:
    """What the crash case's writers sent (body by title) and the server acknowledged ((title,
    body) by entry id), over every round."""

    def __init__(self):
        self.sent, self.acked, self.lock = {}, {}, threading.Lock()


def write_until_killed(database, tokens, rng, round_number, writes):
    """8 writers on a new server, killed (SIGKILL) after the round's time of writing and
    CRASH_MIN_ACKED acknowledged writes: (seconds waited for those or None, seconds until the kill)."""
    sent, acked, lock = writes.sent, writes.acked, writes.lock
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
    return waited, killed_after


def check_after_crash(database, tokens, rng, round_number, writes):
    """The file after the kill, then a restarted server: (whether all is intact, the round's text
    after its kill time)."""
    sent, acked = writes.sent, writes.acked
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
    ok = (len(acked) > 0 and not lost and not changed and not unknown and check == "ok"
          and served and after_status == 201 and health == 200)
    return ok, (f", {len(acked)} acked, {len(lost)} lost, {len(changed)} changed, "
                f"{len(unknown)} never sent, {in_flight} unacked-but-committed, integrity {check}, "
                f"after restart: 200 sample intact {served}, POST {after_status}")


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
    refusal = {"seen": wait_refused(server.port)}
    refused_after = time.monotonic() - started
    drip_bodies(sockets, bodies)
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


def wait_refused(port):
    """Polls until a new connection is refused (up to 30 s): from when the server has stopped
    listening; a try that is still accepted before then is closed at once. What was seen."""
    refusal = {"seen": "not refused within 30 s"}

    def refused():
        try:
            connect(port, timeout=2).close()
            return False
        except ConnectionRefusedError:
            refusal["seen"] = "refused"
            return True
        except ConnectionResetError:
            # A SYN that met the listening socket as it closed is answered with a reset
            # (seen once in CI, 2026-11-25): refused as well, nothing was accepted.
            refusal["seen"] = "refused"
            return True
        except OSError as error:
            refusal["seen"] = f"failed ({error})"
            return True
    wait_until(refused, 30)
    return refusal["seen"]


def drip_bodies(sockets, bodies):
    """The bodies, a byte at a time on every connection, spread over 1.2 s by the clock: a slow
    client (the behaviour under test) whose pace does not slow down with a loaded machine, so
    that the server's 4 s grace period is not spent on this side."""
    length = max(len(b) for b in bodies)
    dripped = time.monotonic()
    for i in range(length):
        for sock, body in zip(sockets, bodies):
            if i < len(body):
                sock.sendall(body[i:i + 1])
        time.sleep(max(0.0, dripped + 1.2 * (i + 1) / length - time.monotonic()))


def mount_tmpfs(folder, size):
    os.makedirs(folder, exist_ok=True)
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", folder], capture_output=True)
    return result.returncode == 0


def case_disk_full():
    folder = work_path("tmpfs")
    mounted = mount_tmpfs(folder, "3m")
    database = os.path.join(folder, "diary.sqlite3")
    SECRETS.add(database)
    token = add_user(database, "alice")
    method, preexec = disk_limit(database, mounted)
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
        answers = writes_until_refused(server.port, token)
        refusals, other, problem = tally_full(answers, acked)
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


def disk_limit(database, mounted):
    """How the disk fills up: (what the table says, the server's preexec_fn or None)."""
    if mounted:
        return "a 3 MiB tmpfs filled up to 512 KiB", None
    # No mount here: a file size limit makes every write past it fail (EFBIG instead of
    # ENOSPC; SQLite reports an I/O error instead of SQLITE_FULL, the store maps both to 503).
    limit = os.path.getsize(database) + 256 * 1024

    def preexec():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return f"RLIMIT_FSIZE {limit} bytes (tmpfs mount refused here)", preexec


def writes_until_refused(port, token):
    """Four writers at once, so that writes share commits (group commit): each is stored or
    refused whole. Each stops at its second 503: (status, headers, body, title) of every answer."""
    answers, lock = [], threading.Lock()

    def writer(index):
        own = Client(port, token)
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
    return answers


def tally_full(answers, acked):
    """Adds the 201s to `acked`: (how many 503, the other statuses, whether every 503 was a
    problem+json with Retry-After)."""
    refusals, other, problem = 0, [], True
    for status, headers, data, title in answers:
        if status == 201:
            acked[json.loads(data)["entry_id"]] = title
        elif status == 503:
            refusals += 1
            problem &= is_problem({"headers": headers, "body": data}, 503) and "retry-after" in headers
        else:
            other.append(status)
    return refusals, other, problem


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
                status = busy_write(client, index, n, mine, live, lock)
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


def busy_write(client, index, n, mine, live, lock):
    """Write `n` of busy writer `index`: every third a DELETE or a PATCH of one of its entries
    (`mine`), the others a POST; what was acknowledged goes into `live`. The status."""
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
        return status
    status, document = post_entry(client, f"busy {index} {n}", f"body {n}")
    if status == 201:
        mine.append(document["entry_id"])
        with lock:
            live[document["entry_id"]] = f"body {n}"
    return status
