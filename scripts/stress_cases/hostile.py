"""Hostile input on raw sockets: malformed and oversized JSON, NUL bytes, invalid UTF-8, huge
bodies, request smuggling, ids and pages out of range, search syntax and cost, import, SQL
injection. Each check: the expected answers, a problem body, nothing written, still serving."""

import http.client
import json
import socket
import struct
import time
import zlib

from diarykit.http_client import build, connect, is_problem
from stress_cases.context import (
    add_user, bound, bound_text, CFG, Client, db_digest, db_rows, new_database, post_entry, raw, read_answer, row,
    Server, server_tool)
from stress_cases.tokens_and_privacy import case_tokens
from stress_cases.uploads import png, png_chunk


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
        # Many anonymous searches from one address, one after another: the rate limit (the stall
        # case's) would answer most 429, and this case checks what is done with their queries.
        self.server = Server(self.database, ["--connection-timeout", "3", "--search-rate", "0"]).start()
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
    """One server with two users, every check of hostile input against it in turn."""
    h = Hostile()
    case_json(h)
    case_encoding(h)
    case_huge_bodies(h)
    case_head_limits(h)
    case_smuggling(h)
    case_ids_and_pages(h)
    case_search_parameters(h)
    case_search_cost(h)
    case_import(h)
    case_injection(h)
    case_images(h)
    case_tokens(h)
    case_atompub(h)
    h.server.stop()


def case_json(h):
    """Malformed, truncated, deeply nested JSON and odd numbers: 400 problem."""
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


def case_encoding(h):
    """NUL bytes (escaped, raw, in the head), invalid UTF-8 and broken titles."""
    post, bad = h.post, {400}
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


def case_head_limits(h):
    """A request line or header fields past the server's 16 KiB connection pool."""
    h.check("request line or headers over 16 KiB", "414 or 431 (libmicrohttpd's own page), the server serving",
            [("40 KB target", build("GET", "/api/entries?q=" + "x" * 40_000), {414, 431}, False),
             ("22 KB of one tag", build("GET", "/api/entries?" + "&".join(["tag=travel"] * 2000)), {414, 431}, False),
             ("40 KB header", build("GET", "/api/health", headers=["X-Big: " + "x" * 40_000]), {431, 413}, False),
             ("2,000 headers", build("GET", "/api/health", headers=[f"X-{i}: y" for i in range(2000)]), {431, 413}, False)],
            problem=False)


def case_ids_and_pages(h):
    """Ids, page and per_page out of range or not numbers: 400 problem; a page far past the end: empty."""
    bad = {400}
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
    row("page far past the end (page=10^15, per_page=100)", "400 naming page, pointing to next_cursor (the deep-page cap); no overflow",
        f"{status}, {(page or {}).get('detail')}",
        status == 400 and (page or {}).get("errors", [{}])[0].get("field") == "page" and "next_cursor" in page.get("detail", ""))


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
    entries) are refused before SQLite sees them; repeated words count once, repeated tags each
    time (an entry's tags are bounded as sent); the bounds still search."""
    queries = [("1,000 words", " ".join(["rain"] * 1000), {400}), ("5,000-character phrase", '"' + "rain " * 1000 + '"', {400}),
               ("9 short terms", " ".join("abcdefghi"), {400}), ("201 characters", "x" * 201, {400}),
               ("8 short terms", " ".join("abcdefgh"), {200}), ("8 terms repeated 3 times", " ".join(list("abcdefgh") * 3), {200}),
               ("200 characters", "x" * 200, {200})]
    attempts = [(label, build("GET", f"/api/entries?q={quote(q)}"), statuses, False) for label, q, statuses in queries]
    tags = [("21 different tags", [f"t{i}" for i in range(21)], {400}), ("1,100 different tags", [f"t{i}" for i in range(1100)], {400}),
            ("20 different tags", [f"t{i}" for i in range(20)], {200}), ("one tag 20 times", ["travel"] * 20, {200}),
            # Tags count as sent, as the contract's maxItems does: repeats of one tag too.
            ("one tag 1,000 times", ["travel"] * 1000, {400})]
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


def case_images(h):
    """Uploads that are no image, or a broken one, or one that claims 900 megapixels: refused
    with a problem and nothing stored; and images carrying script and text, kept without it."""
    def upload(body, content_type="image/png"):
        return build("POST", "/api/media", h.alice, body, content_type)
    header_only = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0))
    bomb = header_only + png_chunk(b"IDAT", zlib.compress(b"\x00" * 90_001, 9)) + png_chunk(b"IEND", b"")
    zero = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 0, 0, 8, 2, 0, 0, 0)) + png_chunk(b"IEND", b"")
    whole = png(40, 30, 3)
    h.check("images: not images, broken, empty, zero-size, a 30,000 × 30,000 header", "415 or 422 problem, nothing stored",
            [("SVG with script", upload(b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "image/svg+xml"), {415}, False),
             ("HTML called a PNG", upload(b"<!doctype html><script>alert(1)</script>"), {415}, False),
             ("PDF called a JPEG", upload(b"%PDF-1.4\n%%EOF\n", "image/jpeg"), {415}, False),
             ("empty", upload(b""), {422}, False), ("zero-size PNG", upload(zero), {422}, False),
             ("truncated PNG", upload(whole[: len(whole) // 2]), {422}, False),
             ("30,000 × 30,000 claimed", upload(bomb), {422}, False),
             ("multipart without the file field", upload(b"--b\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n1\r\n--b--\r\n",
                                                         "multipart/form-data; boundary=b"), {400}, False)])
    # Kept, but as pixels only: the text chunk's script, a 4 MB profile, HTML after the end.
    client = Client(h.port, h.alice)
    script = png_chunk(b"tEXt", b"Comment\x00<script>alert(document.cookie)</script>")
    profile = png_chunk(b"iCCP", b"icc\x00\x00" + zlib.compress(b"\x00" * 4_000_000, 9))
    carriers = {"script in a text chunk": png(40, 30, 5, script), "4 MB iCCP profile": png(40, 30, 6, profile),
                "HTML after IEND (polyglot)": png(40, 30, 7) + b"<html><script>alert(1)</script></html>"}
    wrong, kept_count, refused = [], 0, 0
    for label, body in carriers.items():
        status, _, answer = client.request("POST", "/api/media", body, headers={"Content-Type": "image/png"})
        if status == 422:
            refused += 1  # refused as broken: nothing of it kept either
            continue
        if status != 201:
            wrong.append(f"{label}: {status}")
            continue
        url = json.loads(answer)["url"]
        kept = client.request("GET", url)[2]
        kept_count += 1
        if b"script" in kept or b"html" in kept or b"iCCP" in kept or b"tEXt" in kept:
            wrong.append(f"{label}: kept with its text")
        client.request("DELETE", "/api/media/" + url.rsplit("/", 1)[1])
    client.close()
    row("images carrying script, text, a huge profile, HTML after the end", "kept as pixels only (or 422), never their text",
        f"{kept_count} kept without their text, {refused} refused" if not wrong else "; ".join(wrong), not wrong and h.serving())




def case_atompub(h):
    """AtomPub bodies: any DTD (billion laughs, external entities, external DTDs), malformed XML,
    XML nested 10,000 deep, and entries Diary cannot keep: 400 problem, nothing written."""
    collection = f"/atom/diaries/{h.diary}/entry"
    member = f"{collection}/{h.entry}"

    def send(body, target=collection, method="POST"):
        return build(method, target, h.alice, body, "application/atom+xml;type=entry")
    entry = b'<entry xmlns="http://www.w3.org/2005/Atom"><title>%s</title><content type="text/x-markdown">b</content></entry>'
    # Ten levels of ten: 10^9 "a"s if expanded.
    laughs = (b'<?xml version="1.0"?><!DOCTYPE e [<!ENTITY a "aaaaaaaaaa">'
              + b"".join(b'<!ENTITY %c "%s">' % (98 + i, (b"&%c;" % (97 + i)) * 10) for i in range(9))
              + b"]>" + entry % b"&j;")
    deep = 10_000
    h.check("AtomPub: DTDs and entities", "400 problem, nothing expanded or fetched",
            [("billion laughs", send(laughs), {400}, False),
             ("external entity (file)", send(b'<!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]>' + entry % b"&x;"), {400}, False),
             ("external entity (http)", send(b'<!DOCTYPE e [<!ENTITY x SYSTEM "http://127.0.0.1:9/x">]>' + entry % b"&x;"), {400}, False),
             ("external DTD", send(b'<!DOCTYPE entry SYSTEM "http://127.0.0.1:9/x.dtd">' + entry % b"t"), {400}, False),
             ("parameter entity", send(b'<!DOCTYPE e [<!ENTITY % p SYSTEM "http://127.0.0.1:9/p">%p;]>' + entry % b"t"), {400}, False),
             ("undeclared entity", send(entry % b"&nope;"), {400}, False),
             ("DTD on a replace", send(b'<!DOCTYPE e [<!ENTITY a "b">]>' + entry % b"&a;", member, "PUT"), {400}, False)])
    h.check("AtomPub: malformed and unkeepable entries", "400 problem (415 for another type, 422 for an empty title)",
            [("cut", send(entry[:40]), {400}, False), ("empty", send(b""), {400}, False),
             ("not XML", send(b'{"title":"t","body":"b"}'), {400}, False),
             ("a feed, not an entry", send(b'<feed xmlns="http://www.w3.org/2005/Atom"/>'), {400}, False),
             ("nested 10,000 deep", send(b'<entry xmlns="http://www.w3.org/2005/Atom">' + b"<x>" * deep + b"</x>" * deep + b"</entry>"), {400}, False),
             ("xhtml content", send(b'<entry xmlns="http://www.w3.org/2005/Atom"><title>t</title><content type="xhtml">'
                                    b'<div xmlns="http://www.w3.org/1999/xhtml"><b>x</b></div></content></entry>'), {400}, False),
             ("invalid UTF-8", send(entry % b"\xff\xfe"), {400}, False),
             ("JSON content type", build("POST", collection, h.alice, entry % b"t", "application/json"), {415}, False),
             ("empty title", send(entry % b" "), {422}, False),
             ("another user's collection", build("POST", f"/atom/diaries/{h.diary}/entry", h.bob, entry % b"t",
                                                 "application/atom+xml"), {403}, False)])
