"""How the cost of each kind of request grows with the data: `scripts/bench --growth 10000,100000,1000000`.

For each size, a database is seeded (or taken from --seed-cache), served with the response cache
off (so every request is the first of its kind, as an operator's users would send them) and with
no search rate limit and a query timeout of 10 s (so that the time is the request's whole cost,
up to 10 s; a 503 beside a time says it took longer), and each
request kind below is sent SAMPLES times in a row, anonymously and with a token. The table shows,
per kind and size, the median and the worst time (the worst of 20 is the p99 a reader would
feel), with the server's start-up time and peak RSS. Timed by the client over one keep-alive
connection on 127.0.0.1; a kind whose first answers each take over a second stops early. On
PostgreSQL, the cluster's shared_buffers is a quarter of the machine's memory, as an operator
sets it (docs/postgresql.md).
"""

import os
import statistics
import time
import urllib.parse

from diarykit import HOST
from diarykit.http_client import Client
from diarykit.postgres import PostgresCluster
from diarykit.processes import status_kib
from diarykit.server import serve_command, start_serving

SAMPLES = 20
SLOW_S = 1.0
# Seeded entries are 10 minutes apart from 2020-01-01, so these dates exist at every size.
OLDEST_DAY = "2020-01-02T00:00:00Z"


def search(query, **more):
    return "/api/entries?" + urllib.parse.urlencode({"q": query, **more})


# (label, path). The words come from `diary-server seed`'s vocabulary: "coffee" is in about 97 %
# of entries, "zanzibar" in about one in a thousand, "kashaquamo" in about one in a hundred,
# "night" in one in seven, "train" in two in five, 京都 in about one in five, "zz" in none. A word in
# one entry in a hundred is past the count's bound but too rare for a page to be near the top:
# these rows hid 5 s answers on SQLite until 2026-11-28 (docs/performance.md).
KINDS = (
    ("list, page 1", "/api/entries"),
    ("list, page 450 (offset 9,000)", "/api/entries?page=450"),
    ("list, the oldest day", f"/api/entries?until={OLDEST_DAY}"),
    ("list, a week's range", "/api/entries?since=2020-01-15T00:00:00Z&until=2020-01-22T00:00:00Z"),
    ("tag, common (daily)", "/api/entries?tag=daily"),
    ("tag, rare (night)", "/api/entries?tag=night"),
    ("search, rare (zanzibar)", search("zanzibar")),
    ("search, rare, newest", search("zanzibar", order="newest")),
    ("search, middling (kashaquamo)", search("kashaquamo")),
    ("search, middling, newest, page 5", search("kashaquamo", order="newest", page=5)),
    ("search, two middling words (night train)", search("night train")),
    ("search, common (coffee)", search("coffee")),
    ("search, common, newest", search("coffee", order="newest")),
    ("search, 雨でした", search("雨でした")),
    ("search, phrase \"river bridge\"", search('"river bridge"')),
    ("search, phrase \"and the\"", search('"and the"')),
    ("search, phrase, newest", search('"river bridge"', order="newest")),
    ("search, 2 chars 京都", search("京都")),
    ("search, 2 chars 京都, newest", search("京都", order="newest")),
    ("search, 2 chars zz (none)", search("zz")),
    ("search, 2 chars ka (common)", search("ka")),
    ("search, 2 chars 雨で (half)", search("雨で")),
    ("search, 1 char e", search("e")),
    # A character in no entry: a scan of every entry on PostgreSQL until schema v11 (4.2 s).
    ("search, 1 char 😀 (none)", search("😀")),
    ("search, coffee zz (common + none)", search("coffee zz")),
    # café in half of the entries: an accented letter the trigram tokenizer folds (É into é)
    # and LIKE does not; on SQLite, 310 ms until 2026-11-29 (docs/performance.md, twelfth round).
    ("search, rare + accented (zanzibar café)", search("zanzibar café")),
    ("search, coffee + tag daily", search("coffee", tag="daily")),
    # A tag on fewer entries than the words (night: 1.3 %), whose matches are few among them:
    # each costs what the smaller part holds, not what the answer holds (docs/performance.md,
    # eleventh round).
    ("search, night + tag night", search("night", tag="night")),
    ("search, night train + tag night", search("night train", tag="night")),
    ("search, 2 chars 京都 + tag night", search("京都", tag="night")),
    # Dates and tags beside words, and deep pages of a tag (docs/performance.md, twelfth round):
    # two days at the start (counted through coffee's 970,000 entries: 855 ms), a month of the
    # common tag, and page 500 of the rare tag (walked: 275 ms to 4 s).
    ("search, coffee in two days", search("coffee", since="2020-01-05T00:00:00Z", until="2020-01-07T00:00:00Z")),
    ("tag, common (daily), in a month", "/api/entries?tag=daily&since=2020-02-01T00:00:00Z&until=2020-03-01T00:00:00Z"),
    ("tag, rare (night), page 500", "/api/entries?tag=night&page=500"),
    # A common term the chunks do not narrow beside a common word (café through its trigrams
    # on PostgreSQL: 128-161 ms), and page 20 of a word within a tag, newest first (a walk of
    # 212,000 entries: 104 ms on SQLite, 523 on PostgreSQL) (docs/performance.md, thirteenth round).
    ("search, café night (two common)", search("café night")),
    ("search, night + tag night, newest, page 20", search("night", tag="night", order="newest", page=20)),
    ("search page /search?q=coffee", "/search?q=coffee"),
    # Every tag with its count (1.4 million tag rows counted: 130 ms on SQLite), and the last
    # pages of two common tags together (a seek per row of food for travel: 73 ms), until the
    # kept counts and all_tags (docs/performance.md, fifteenth round).
    ("tags, all with counts (/api/tags)", "/api/tags"),
    ("tags, two (food and travel), page 500", "/api/entries?tag=food&tag=travel&page=500"),
)


def timed_kind(client, path):
    """Times SAMPLES GETs of `path`: (seconds each, statuses seen)."""
    times, statuses = [], set()
    for sample in range(SAMPLES):
        started = time.perf_counter()
        status, _, _ = client.request("GET", path)
        times.append(time.perf_counter() - started)
        statuses.add(status)
        if sample == 2 and min(times) > SLOW_S:
            break
    return times, statuses


def measure_size(bin_folder, database, token, log_path, flags, log, kinds=KINDS):
    """Serves `database` and times each of `kinds`: (rows, start-up seconds, peak RSS MiB)."""
    # No search rate limit, and a query timeout of 10 s rather than 500 ms: the table shows what
    # each request costs, not the 429 or 503 that would cut it short, up to a point where a 503
    # (shown beside the time) says "more than 10 s" without holding the only search place.
    command = serve_command(bin_folder, database, ["--response-cache", "0", "--search-rate", "0", "--query-timeout", "10s", *flags],
                            host=HOST)
    started = time.monotonic()
    server, port = start_serving(command, log_path, 600)
    startup = time.monotonic() - started
    rows = []
    try:
        for who, credential in (("anonymous", None), ("token", token)):
            client = Client(port, token=credential, timeout=120)
            for label, path in kinds:
                times, statuses = timed_kind(client, path)
                rows.append({"kind": label, "who": who, "median_ms": statistics.median(times) * 1000,
                             "worst_ms": max(times) * 1000, "samples": len(times), "statuses": sorted(statuses)})
                log(f"{label} ({who}): median {rows[-1]['median_ms']:.1f} ms, worst {rows[-1]['worst_ms']:.1f} ms, {sorted(statuses)}")
            client.close()
        peak = status_kib(server.pid, "VmHWM")
    finally:
        server.terminate()
        server.wait(30)
    return rows, startup, (peak or 0) / 1024


def seeded_sqlite(arguments, entries, folder, seed):
    """An SQLite file of `entries` seeded entries: from --seed-cache when it has one, else seeded
    (and kept there when --seed-cache is given). (path, a user's token)."""
    cache = arguments.seed_cache
    if cache:
        os.makedirs(cache, exist_ok=True)
        path, users = os.path.join(cache, f"seed-{entries}.sqlite"), os.path.join(cache, f"seed-{entries}.users")
        if os.path.exists(path) and os.path.exists(users):
            with open(users) as file:
                return path, file.read().split()[1]
    else:
        path, users = os.path.join(folder, f"seed-{entries}.sqlite"), None
    token = seed(entries, path)
    if users:
        with open(users, "w") as file:
            file.write(f"user {token}\n")
    return path, token


def dedicated_shared_buffers_mib():
    """A quarter of this machine's memory: PostgreSQL's advice for the cache of a server of its
    own ("a reasonable starting value for shared_buffers is 25% of the memory"), where the
    default is 128 MB. At a million entries the database is 4 GB; in 128 MB, the 12,000 pages of
    a word in one entry in a hundred are pushed out by other searches and copied back from the
    kernel's cache on the next (docs/postgresql.md, `shared_buffers`)."""
    with open("/proc/meminfo") as meminfo:
        total_kib = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal:"))
    return total_kib // 1024 // 4


def measure_growth(arguments, folder, seed, log, flags=()):
    """Every kind at every size of `arguments.growth`, on SQLite or on PostgreSQL (one server)."""
    report = {"database": arguments.database, "sizes": []}
    postgres = PostgresCluster() if arguments.database == "postgres" else None
    try:
        if postgres:
            postgres.restart_with(shared_buffers=f"{dedicated_shared_buffers_mib()}MB")
        for entries in arguments.growth:
            if postgres:
                database = postgres.create_database(f"growth_{entries}")
                token = seed(entries, database)
            else:
                database, token = seeded_sqlite(arguments, entries, folder, seed)
            kinds = [kind for kind in KINDS if (arguments.growth_kinds or "") in kind[0]]
            rows, startup, rss = measure_size(arguments.bin, database, token,
                                              os.path.join(folder, f"growth-{entries}.log"), flags, log, kinds)
            report["sizes"].append({"entries": entries, "startup_s": startup, "peak_rss_mib": rss, "rows": rows})
            if not postgres and not arguments.seed_cache:
                os.remove(database)
    finally:
        if postgres:
            postgres.close()
    return report


def print_growth_table(report):
    sizes = report["sizes"]
    print(f"{report['database']}: median / worst of {SAMPLES} ms, each request uncached (--response-cache 0)")
    header = ["request", "who"] + [f"{size['entries']:,}" for size in sizes]
    lines = [header]
    for index, row in enumerate(sizes[0]["rows"]):
        cells = [row["kind"], row["who"]]
        for size in sizes:
            other = size["rows"][index]
            note = "" if other["statuses"] == [200] else " " + "/".join(map(str, other["statuses"]))
            cells.append(f"{other['median_ms']:.1f} / {other['worst_ms']:.1f}{note}")
        lines.append(cells)
    lines.append(["start-up (s)", ""] + [f"{size['startup_s']:.2f}" for size in sizes])
    lines.append(["peak RSS (MiB)", ""] + [f"{size['peak_rss_mib']:.0f}" for size in sizes])
    widths = [max(len(line[column]) for line in lines) for column in range(len(header))]
    for line in lines:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip())

