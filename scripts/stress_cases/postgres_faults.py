"""PostgreSQL faults (issue 14). Each case starts a cluster of its own (scripts/postgres), since
it stops, freezes or fills it, and removes it whatever happens (also at exit)."""

import http.client
import random
import signal
import socket
import struct
import threading
import time

from diarykit import pgwire
from diarykit.processes import wait_until
from stress_cases.context import (
    add_user, bound, bound_text, CFG, Client, CRASH_MIN_ACKED, join_threads, new_cluster, OPTS, row, Server,
    start_threads)
from stress_cases.postgres_traffic import (
    acked_check, entry_body, outage_summary, pg_servers, PG_TIMEOUT, read_ids, shows, Traffic, VERSION_LEASE,
    wait_serving)


def case_pg_servers():
    """Three servers on one PostgreSQL: every write acknowledged by one shows at once through the
    others, in the JSON list, the entry itself, the home page and the feed, while readers keep
    every server's response cache warm."""
    with new_cluster() as cluster:
        servers, tokens = pg_servers(cluster, 3)
        stop = threading.Event()
        lock = threading.Lock()
        stale, checked, errors, reads = [], [0], [], [0]
        seconds = CFG["pg_seconds"]

        def warm_reader(index):
            warm_reads(Client(servers[index % 3].port, timeout=60, record=False), stop, lock, errors, reads)

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
                        found = stale_reads(other, entry_id, title)
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


def warm_reads(client, stop, lock, errors, reads):
    """Reads the list, the home page and the feed until `stop`, keeping the server's response
    cache warm; counts them in reads[0], and what was not a 200 in `errors`."""
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


def stale_reads(other, entry_id, title):
    """What another server answers without the entry just written: by id, in the JSON list, the
    home page and the feed. Empty when all show it."""
    status, body = other.json("GET", f"/api/entries/{entry_id}")
    found = [f"entry {status}"] if status != 200 or (body or {}).get("title") != title else []
    for path in ("/api/entries", "/", "/feed.atom"):
        status, ids = read_ids(other, path)
        if status != 200 or not shows(ids, entry_id):
            found.append(f"{path} {status}")
    return found


def case_pg_kill():
    """SIGKILL of one of three servers during writes through it and the others."""
    rng = random.Random(OPTS.seed + 14)
    with new_cluster() as cluster:
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


def case_pg_restart():
    """PostgreSQL stopped (fast, then immediate) and started again under load through three servers."""
    rng = random.Random(OPTS.seed + 15)
    with new_cluster() as cluster:
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


def case_pg_frozen():
    """PostgreSQL frozen (SIGSTOP on the postmaster and its backends), as a network partition looks:
    requests must not wait for it longer than the database timeout allows."""
    rng = random.Random(OPTS.seed + 16)
    with new_cluster() as cluster:
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


def case_pg_slots():
    """Every connection slot of PostgreSQL taken (by idle logins held here): 503 at once, not a
    hang; 2xx again once slots are free."""
    cluster = new_cluster()
    held = []
    try:
        cluster.stop("fast")
        cluster.start(max_connections=12)
        servers, tokens = pg_servers(cluster, 2)
        traffic_check, _ = wait_serving(servers, tokens, 60)
        if traffic_check is None:
            raise RuntimeError("the servers did not serve before the slots were taken")
        refused = take_every_slot(cluster, held)
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


def take_every_slot(cluster, held):
    """Logs in to `cluster` (into `held`) until every slot is held here, the servers' own
    connections ended: the SQLSTATE of the last refusal ("53300": too many connections)."""
    def fill():
        """Logs in until the server refuses: every slot is then held here or by a server."""
        while len(held) < 50:
            sock, state = pgwire.login(cluster.port)
            if sock is None:
                return state
            held.append(sock)
        return "none"
    fill()
    # The servers' own connections are ended, and their slots taken by ones held here too.
    pgwire.query(held[0], "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'diary'")

    def servers_out():
        fill()
        return pgwire.query(held[0], "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'diary'") == ["0"]
    if wait_until(servers_out, 60, interval=0.05) is None:
        raise RuntimeError("the servers' connections did not end")
    return fill()


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
            length = struct.unpack("!i", pgwire.read_exactly(client, 4))[0]
            server.sendall(struct.pack("!i", length) + pgwire.read_exactly(client, length - 4))
            while True:
                kind, payload = pgwire.read_message(client)
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
                server.sendall(pgwire.message(kind, payload))
        except OSError:
            self.cut(client, server)

    def downstream(self, client, server, state):
        """PostgreSQL to client, message by message, so that COMMIT's answer can be held back."""
        try:
            while True:
                kind, payload = pgwire.read_message(server)
                if kind == b"C" and payload.startswith(b"COMMIT") and state["cut_answer"]:
                    self.cut(client, server)   # committed, and the server never hears it
                    return
                client.sendall(pgwire.message(kind, payload))
        except OSError:
            self.cut(client, server)

    def close(self):
        self.listener.close()


def case_pg_commit_lost():
    """The connection lost during COMMIT, after PostgreSQL committed and before: the server asks
    PostgreSQL what became of the write, and answers what is true."""
    cluster = new_cluster()
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
