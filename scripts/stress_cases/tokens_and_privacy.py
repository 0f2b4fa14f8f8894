"""Tokens and what must not leak: tokens refused, rotated, scoped, revoked and timed alike; private
entries, drafts and scheduled posts kept from everyone else through the response cache; secrets in no answer and
no log."""

import hashlib
import http.client
import os
import random
import re
import statistics
import threading
import time

from diarykit.http_client import build
from stress_cases.context import (
    add_user, bound, CFG, Client, join_threads, new_database, OPTS, row, SECRETS, Server, SERVERS, start_threads,
    TIMING_NOISE_FACTOR, TIMING_THRESHOLD_RATIO, TRANSCRIPT)


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
    reader_id, reader = named_token(h.port, h.alice, "stress reader", "read")
    scoped = (client.request("GET", "/api/me", token=reader)[0],
              client.request("DELETE", f"/api/entries/{e}", token=reader)[0],
              client.request("POST", "/api/tokens", {"name": "more", "scope": "write"}, token=reader)[0],
              client.request("DELETE", f"/api/tokens/{reader_id}", token=h.bob)[0],
              client.request("DELETE", f"/api/tokens/{reader_id}", token=h.alice)[0],
              client.request("GET", "/api/me", token=reader)[0])
    row("tokens: a named read token, then revoked", "reads 200; writes and token management 403; "
        "another user's revoke 404; the owner's 204, then 401 at once",
        f"me/DELETE/POST tokens/bob's revoke/revoke/me {scoped}", scoped == (200, 403, 403, 404, 204, 401))


def named_token(port, owner, name, scope):
    """(id, token) of a new named token of `owner`'s; its answer is not recorded, and the token
    joins the secrets no other answer or log may hold."""
    client = Client(port, owner, record=False)
    status, document = client.json("POST", "/api/tokens", {"name": name, "scope": scope})
    client.close()
    assert status == 201, (status, document)
    SECRETS.add(document["token"])
    SECRETS.add(hashlib.sha256(document["token"].encode()).hexdigest())
    return document["token_id"], document["token"]


def case_privacy():
    """Readers with and without the owner's token on the same URLs, through the response cache,
    while the owner writes: no answer meant for the owner reaches anyone else, and the owner
    never gets the public answer."""
    database = new_database("privacy")
    alice, bob = add_user(database, "alice"), add_user(database, "bob")
    # Twelve readers searching at once from one address: without these the rate limit and the
    # search gate (the stall case's) would answer some 429 or 503, which this case does not judge.
    server = Server(database, ["--search-rate", "0", "--search-queue-wait", "60s"]).start()
    tokens = {name: named_token(server.port, owner, name, scope)[1] for name, owner, scope in
              [("bob-read", bob, "read"), ("bob-write", bob, "write"), ("alice-read", alice, "read"),
               ("alice-write", alice, "write")]}
    traffic = PrivacyTraffic(server.port, alice, bob, owner_entries(server.port, alice), tokens)
    threads = start_threads(traffic.read, 12, *[lambda: traffic.write(0), lambda: traffic.write(1)])
    join_threads(threads, CFG["privacy_seconds"] + 120)
    code = server.stop()
    leaks, misses, errors, counts = traffic.leaks, traffic.misses, traffic.errors, traffic.counts
    row("privacy: readers with and without the owner's token (and named read and write tokens) through the cache, "
        "while the owner writes (with the main token and a named write token), drafts, scheduled posts and tokens made, "
        "used and revoked included, AtomPub and Micropub reads too",
        "no private, unlisted, draft or scheduled entry, nor no-store, in any answer to anyone else; the owner's answers (main "
        "token or read token) always hold their private entries (no-store); no errors",
        f"{counts}; leaks {len(leaks)} {leaks[:2]}; owner answers without their entries {len(misses)} {misses[:2]}; "
        f"errors {len(errors)} {errors[:2]}",
        not leaks and not misses and not errors and code == 0 and counts["writes"] > 0 and min(counts.values()) > 0)


def post(client, title, **fields):
    return client.json("POST", "/api/entries", {"title": title, "body": fields.pop("body", ""), **fields})


def owner_entries(port, alice):
    """The owner's entries before the readers come: one private, one unlisted, 20 public; the
    private one's id."""
    owner = Client(port, alice)
    # Every private or unlisted title and body holds SECRET; public ones never do.
    fixed = post(owner, "SECRET fixed kyoto", body="SECRET", visibility="private")[1]["entry_id"]
    post(owner, "SECRET link kyoto", body="SECRET", visibility="unlisted")
    for n in range(20):
        post(owner, f"public {n} kyoto", body="autumn leaves", tags=["travel"])
    owner.close()
    return fixed


class PrivacyTraffic:
    """Readers (anonymous, bob, alice, and bob's read and write tokens and alice's read token, in
    turn by index) and the owner's writers, who write drafts and scheduled posts too, and make, use and revoke tokens, until the case's deadline; what
    the readers saw that they should not have, or missed."""

    def __init__(self, port, alice, bob, fixed, tokens):
        self.port, self.alice, self.bob, self.fixed, self.tokens = port, alice, bob, fixed, tokens
        self.readers = [("anonymous", None), ("bob", bob), ("alice", alice)] + list(tokens.items())
        self.urls = ["/api/entries", "/api/entries?per_page=100", "/api/entries?q=kyoto&per_page=100",
                     "/api/entries?q=SECRET+fixed", "/api/entries?tag=travel&per_page=100", "/api/diaries",
                     "/api/diaries/1", "/api/diaries/1/entries?per_page=100", "/api/tags", "/api/export",
                     f"/api/entries/{fixed}", "/api/changes", "/api/changes?limit=5", "/api/changes?since=3&limit=50",
                     # The other editors' protocols (issue 23): AtomPub's service, the owner's
                     # collection and the private entry in it, and Micropub's source and config.
                     "/atom", "/atom/diaries/1/entry", f"/atom/diaries/1/entry/{fixed}",
                     f"/micropub?q=source&url=%2Fentries%2F{fixed}", "/micropub?q=config"]
        # Where the fixed private entry is in every answer its owner gets.
        self.holding_fixed = {f"/api/entries/{fixed}", "/api/entries?q=SECRET+fixed", "/api/export",
                              f"/atom/diaries/1/entry/{fixed}", f"/micropub?q=source&url=%2Fentries%2F{fixed}"}
        self.deadline = time.monotonic() + CFG["privacy_seconds"]
        self.leaks, self.misses, self.errors = [], [], []
        self.counts = {name: 0 for name, _ in self.readers} | {"writes": 0}
        self.lock = threading.Lock()

    def read(self, index):
        name, token = self.readers[index % len(self.readers)]
        client, local, n = Client(self.port, token, record=False), random.Random(index), 0
        while time.monotonic() < self.deadline or n == 0:
            url = local.choice(self.urls)
            try:
                status, headers, body = client.request("GET", url)
            except (OSError, http.client.HTTPException) as error:
                with self.lock:
                    self.errors.append(f"{name} {url}: {error}")
                client.close()
                continue
            n += 1
            self.judge(name, token, url, status, headers, body)
        with self.lock:
            self.counts[name] += n

    def judge(self, name, token, url, status, headers, body):
        secret = (b"SECRET" in body or b'"private"' in body or b'"unlisted"' in body or b'"draft"' in body
                  or b'"scheduled"' in body)
        owner = name.startswith("alice")
        cache_control = headers.get("cache-control") or ""
        with self.lock:
            # An answer to a token is never kept (no-store); a public one may be (no-cache).
            # AtomPub's and Micropub's answers are each caller's own, never public.
            personal = url.startswith(("/atom", "/micropub"))
            public_cache = "no-cache" if token is None and status == 200 else "no-store"
            wrong_cache = "public" in cache_control if personal else cache_control != public_cache
            if not owner and (secret or wrong_cache):
                self.leaks.append(f"{name} GET {url}: {status} {cache_control} {body[:120]!r}")
            # The fixed private entry is always in the owner's answers that can hold it.
            holds_fixed = url in self.holding_fixed
            if owner and (status != 200 or (cache_control != "no-store" and not personal) or "public" in cache_control
                          or (holds_fixed and b"SECRET fixed" not in body)):
                self.misses.append(f"{name} GET {url}: {status} {headers.get('cache-control')} {body[:120]!r}")

    def write(self, index):
        # One writer with the owner's main token, the other with a named write token of theirs.
        token = self.alice if index == 0 else self.tokens["alice-write"]
        client, n = Client(self.port, token, record=False), 0
        # A year ahead: never due while the case runs.
        ahead = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 365 * 86400))
        while time.monotonic() < self.deadline:
            try:
                status, document = post(client, f"SECRET {n}", body="SECRET kyoto", visibility=["private", "unlisted"][n % 2], tags=["travel"])
                if status == 201:
                    client.request("PATCH", f"/api/entries/{document['entry_id']}", {"title": f"SECRET again {n}"})
                    if n % 3 == 0:
                        client.request("DELETE", f"/api/entries/{document['entry_id']}")
                # A public write now and then, so that the cache is rebuilt under the readers.
                if n % 5 == 0:
                    post(client, f"public write {n}", body="kyoto")
                # A draft meant to be public, tagged and found by the readers' searches: as
                # private as a private entry until published (never here).
                if n % 4 == 1:
                    post(client, f"SECRET draft {n}", body="SECRET kyoto", visibility="public", tags=["travel"], draft=True)
                # A scheduled post meant to be public, tagged and searched for: as private as a
                # draft before its time, which is a year away.
                if n % 4 == 3:
                    post(client, f"SECRET scheduled {n}", body="SECRET kyoto", visibility="public", tags=["travel"], created=ahead)
                # Tokens of both scopes made, used and revoked by the owner.
                if n % 10 == 7:
                    for scope in ("read", "write"):
                        token_id, made = named_token(self.port, token, f"app {index} {n} {scope}", scope)
                        user = Client(self.port, made, record=False)
                        user.request("GET", "/api/entries?per_page=5")
                        user.close()
                        client.request("DELETE", f"/api/tokens/{token_id}")
                n += 1
            except (OSError, http.client.HTTPException) as error:
                with self.lock:
                    self.errors.append(f"writer: {error}")
                client.close()
        with self.lock:
            self.counts["writes"] += n


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


def case_logs():
    logs = [s.log_text() for s in SERVERS if os.path.exists(s.log)]
    answers = TRANSCRIPT.text()
    found = sorted({("token" if s.startswith("diary_") else "path" if "/" in s else "token hash") + where
                    for s in SECRETS for where, text in ((" in an answer", answers), (" in a log", "\n".join(logs)))
                    if s in text})
    row("secrets: database paths, tokens and token hashes",
        "in no answer and no server log line",
        f"{len(SECRETS)} secrets searched in {len(TRANSCRIPT)} answers and {len(logs)} logs "
        f"({sum(len(l) for l in logs)} bytes): {', '.join(found) or 'none found'}", not found)
    # With binaries built under --sanitize=thread or address, their reports land in these logs.
    alarm = re.compile(r"WARNING: ThreadSanitizer: [a-z -]+|ERROR: AddressSanitizer: [a-z-]+|Fatal error|runtime error|Segmentation fault")
    alarms = sorted({m.group(0) for log in logs for m in alarm.finditer(log)})
    # Where each came from, for a run that cannot be replayed: the battery's folder goes at its end.
    def case_of(server):
        """The case folder a server's database is in, or PostgreSQL's."""
        return "PostgreSQL" if "://" in server.database else os.path.basename(os.path.dirname(server.database))
    where = [f"{os.path.basename(s.log)} ({case_of(s)}): {line.strip()[:300]}"
             for s in SERVERS if os.path.exists(s.log) for line in s.log_text().splitlines() if alarm.search(line)]
    row("server logs: no crash, trap or sanitizer report", "none in any server's stderr",
        f"{len(logs)} logs: {', '.join(alarms) or 'none'}" + (f"; first lines: {' | '.join(where[:3])}" if where else ""), not alarms)
