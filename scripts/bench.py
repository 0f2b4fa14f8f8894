#!/usr/bin/env python3
"""The benchmark behind scripts/bench (standard library only).

Seeds a database through `diary-server seed`, serves it with diary-server on a free port,
serves the same bytes from nginx on another, drives both with wrk (bench/*.lua) on 127.0.0.1,
times `diary list` against `curl -s` with hyperfine, times page 1 against the last page reached
by cursor, and prints one table (and JSON with --json).
Every child process is bounded in time and stopped on the way out.
"""

import argparse
import datetime
import http.client
import json
import os
import platform
import re
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LUA_DIR = os.path.join(ROOT, "bench")
HOST = "127.0.0.1"
LIST_PATH = "/api/entries?page=1&per_page=20"
# The reading pages measured against nginx: (path, file name under www/).
PAGES = (("/", "home.html"), ("/feed.atom", "feed.atom"))
MAX_SAMPLED_IDS = 10_000


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="folder with the release diary-server and diary")
    parser.add_argument("--entries", type=int, default=10_000, help="entries to seed (default 10000)")
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run (default 10)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON here")
    parser.add_argument("--connections", type=int, default=64, help="wrk connections for reads (default 64)")
    parser.add_argument("--post-connections", type=int, default=16, help="wrk connections for posts (default 16)")
    parser.add_argument("--threads", type=int, help="diary-server --threads (default: its own)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each read scenario; the median is shown")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (database, nginx files)")
    arguments = parser.parse_args()
    if arguments.entries < 1 or arguments.duration < 1 or arguments.repeat < 1:
        parser.error("--entries, --duration and --repeat must be positive")
    return arguments


def log(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


# MARK: - Processes


class Children:
    """Every process started here, stopped (TERM, then KILL) whatever way the run ends."""

    def __init__(self):
        self.processes = []

    def start(self, command, **options):
        process = subprocess.Popen(command, **options)
        self.processes.append(process)
        return process

    def stop(self, process, grace=5):
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def stop_all(self):
        for process in reversed(self.processes):
            self.stop(process)


def run(command, timeout, **options):
    """Runs a command to its end (at most `timeout` s) and returns its stdout; fails loudly."""
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **options)
    if result.returncode != 0:
        raise SystemExit(f"bench: {command[0]} failed ({result.returncode}): {result.stderr.strip()[-2000:]}")
    return result.stdout


def free_port():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def wait_for_port(port, process, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"bench: a server on port {port} exited with {process.returncode}")
        try:
            socket.create_connection((HOST, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"bench: nothing listens on port {port} after {timeout} s")


def peak_rss_mib(pid):
    """VmHWM, the peak resident set of the process so far, in MiB."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def start_diary_server(children, arguments, database, log_path):
    command = [os.path.join(arguments.bin, "diary-server"), "serve", "--host", HOST, "--port", "0", "--database", database]
    if arguments.threads:
        command += ["--threads", str(arguments.threads)]
    process = children.start(command, stdout=subprocess.PIPE, stderr=open(log_path, "w"), text=True)
    ready, _, _ = select.select([process.stdout], [], [], 30)
    line = process.stdout.readline() if ready else ""
    match = re.match(r"listening on http://(\S+):(\d+)", line)
    if not match:
        raise SystemExit(f"bench: diary-server did not start: {line!r}; see {log_path}")
    return process, int(match.group(2))


def start_nginx(children, folder, content_type, page_types):
    """nginx with one worker and no access log, serving the captured responses."""
    pages = "\n".join(f'        location = {path} {{ default_type "{page_types[name]}"; try_files /{name} =404; }}'
                      for path, name in PAGES)
    port = free_port()
    config = os.path.join(folder, "nginx.conf")
    with open(config, "w") as file:
        file.write(f"""
worker_processes 1;
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    types {{ }}
    default_type "{content_type}";
    keepalive_requests 100000000;
    server {{
        listen {HOST}:{port};
        root {folder}/www;
        location = /api/entries {{ try_files /list.json =404; }}
        location /api/entries/ {{ rewrite "^/api/entries/([0-9]+)$" /entry/$1.json break; }}
{pages}
    }}
}}
""")
    process = children.start(["nginx", "-p", folder, "-e", f"{folder}/nginx-error.log", "-c", config],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_for_port(port, process)
    return process, port


def nginx_worker(master):
    try:
        with open(f"/proc/{master.pid}/task/{master.pid}/children") as file:
            return int(file.read().split()[0])
    except (OSError, IndexError, ValueError):
        return master.pid


# MARK: - Data


def seed(arguments, database):
    started = time.monotonic()
    output = run([os.path.join(arguments.bin, "diary-server"), "seed", "--entries", str(arguments.entries),
                  "--database", database], timeout=600)
    users = [line.split() for line in output.splitlines() if line.strip()]
    log(f"seeded {arguments.entries} entries for {len(users)} users in {time.monotonic() - started:.1f} s")
    return users[0][1]


def sampled_ids(entries):
    """Entry ids spread over the whole table, at most MAX_SAMPLED_IDS of them: (count, step)."""
    step = max(1, -(-entries // MAX_SAMPLED_IDS))
    return (entries + step - 1) // step, step


def capture(port, folder, count, step):
    """Saves the exact bytes diary-server answers for the list and the sampled entries."""
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    content_types = set()

    def get(path, destination):
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"bench: GET {path} answered {response.status}")
        content_types.add(response.getheader("Content-Type"))
        with open(destination, "wb") as file:
            file.write(body)
        return len(body)

    os.makedirs(os.path.join(folder, "www", "entry"))
    sizes = {"list": get(LIST_PATH, os.path.join(folder, "www", "list.json"))}
    entry_sizes = [get(f"/api/entries/{1 + step * k}", os.path.join(folder, "www", "entry", f"{1 + step * k}.json"))
                   for k in range(count)]
    sizes["entry"] = round(statistics.mean(entry_sizes))
    if len(content_types) != 1:
        raise SystemExit(f"bench: list and entries differ in Content-Type: {content_types}")
    json_type = content_types.pop()
    # The reading pages, served by nginx with the Content-Type diary-server gave them.
    page_types = {}
    for path, name in PAGES:
        sizes[name] = get(path, os.path.join(folder, "www", name))
        page_types[name] = content_types.pop()
    connection.close()
    return json_type, page_types, sizes


def same_bytes(port, folder):
    """Whether diary-server still answers what nginx served: the list and the pages."""
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    same = True
    for path, name in ((LIST_PATH, "list.json"), *PAGES):
        connection.request("GET", path)
        body = connection.getresponse().read()
        with open(os.path.join(folder, "www", name), "rb") as file:
            same = same and body == file.read()
    connection.close()
    return same


# MARK: - Measuring


def wrk(port, duration, connections, script, path="/", script_arguments=()):
    command = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{duration}s", "--timeout", "2s",
               "-s", script, f"http://{HOST}:{port}{path}"]
    if script_arguments:
        command += ["--", *script_arguments]
    output = run(command, timeout=duration + 60, cwd=LUA_DIR)
    line = next((line for line in output.splitlines() if line.startswith("BENCH ")), None)
    if line is None:
        raise SystemExit(f"bench: no summary from wrk:\n{output}")
    result = json.loads(line[len("BENCH "):])
    seconds = result["duration_us"] / 1e6
    socket_errors = sum(result[key] for key in ("connect", "read", "write", "timeout"))
    return {
        "requests": result["requests"],
        "requests_per_s": result["requests"] / seconds,
        "p50_ms": result["p50_us"] / 1000,
        "p99_ms": result["p99_us"] / 1000,
        "non_2xx": result["status"],
        "socket_errors": socket_errors,
        "errors": result["status"] + socket_errors,
    }


def median_run(runs):
    ordered = sorted(runs, key=lambda run: run["requests_per_s"])
    return dict(ordered[len(ordered) // 2], runs=[round(run["requests_per_s"]) for run in runs])


def hyperfine(arguments, port, folder):
    url = f"http://{HOST}:{port}"
    export = os.path.join(folder, "hyperfine.json")
    diary = f"{os.path.join(arguments.bin, 'diary')} list --server {url}"
    curl = f"curl -s {url}{LIST_PATH}"
    run(["hyperfine", "-N", "--warmup", "5", "--runs", "60", "--export-json", export, diary, curl], timeout=300)
    with open(export) as file:
        results = json.load(file)["results"]

    def row(result, name):
        times = sorted(result["times"])
        return {"scenario": name, "connections": 1, "requests_per_s": 1 / result["mean"],
                "p50_ms": result["median"] * 1000, "p99_ms": times[min(len(times) - 1, int(len(times) * 0.99))] * 1000,
                "non_2xx": 0, "socket_errors": 0, "errors": 0}
    return row(results[0], "diary list"), row(results[1], "curl -s (same page)")


# MARK: - Report


def machine():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as file:
            model = next((line.split(":", 1)[1].strip() for line in file if line.startswith("model name")), model)
    except OSError:
        pass
    return {"cores": os.cpu_count(), "cpu": model, "kernel": platform.release(),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def judge(rows, entries):
    """Fills `ratio`, `target` and `ok` on the rows that have a target (issue 5)."""
    by_name = {row["scenario"]: row for row in rows}
    for name in ("list page 1", "one entry", "home page /", "Atom feed"):
        row, limit = by_name[name], by_name[f"{name} (nginx)"]
        row["ratio"] = row["requests_per_s"] / limit["requests_per_s"]
        row["ratio_of"] = "nginx"
        row["target"] = ">=0.6x nginx, p99<=10ms"
        row["ok"] = row["ratio"] >= 0.6 and row["p99_ms"] <= 10 and row["errors"] == 0
    reads, limit = by_name["reads 50/50"], by_name["reads 50/50 (nginx)"]
    reads["ratio"], reads["ratio_of"] = reads["requests_per_s"] / limit["requests_per_s"], "nginx"
    post = by_name["post entry"]
    post["target"] = ">=3000/s, 0 errors"
    post["ok"] = post["requests_per_s"] >= 3000 and post["errors"] == 0
    mixed = by_name["mixed 90% reads"]
    mixed["ratio"] = 0.9 * mixed["requests_per_s"] / reads["requests_per_s"]
    mixed["ratio_of"] = "read-only reads"
    mixed["target"] = "reads >=0.8x read-only, 0 errors"
    mixed["ok"] = mixed["ratio"] >= 0.8 and mixed["errors"] == 0
    client, curl = by_name["diary list"], by_name["curl -s (same page)"]
    client["ratio"], client["ratio_of"] = client["p50_ms"] / curl["p50_ms"], "curl time"
    client["target"] = "<=2x curl"
    client["ok"] = client["ratio"] <= 2
    peak = max(row["rss_mib"] for row in rows if row.get("server") == "diary-server")
    return {"target": f"peak RSS <=100 MiB at 100,000 entries", "peak_rss_mib": peak, "entries": entries,
            "ok": peak <= 100 if entries >= 100_000 else None}


def print_table(report):
    header = ("scenario", "conns", "req/s", "p50 ms", "p99 ms", "non-2xx", "sock err", "ratio", "peak RSS MiB", "target")
    lines = []
    for row in report["scenarios"]:
        ratio = f"{row['ratio']:.2f}x {row['ratio_of']}" if "ratio" in row else ""
        verdict = "" if "ok" not in row else ("ok " if row["ok"] else "MISS ") + row["target"]
        rss = f"{row['rss_mib']:.1f}" if row.get("rss_mib") is not None else ""
        lines.append((row["scenario"], str(row["connections"]), f"{row['requests_per_s']:,.0f}",
                      f"{row['p50_ms']:.2f}", f"{row['p99_ms']:.2f}", str(row["non_2xx"]), str(row["socket_errors"]),
                      ratio, rss, verdict))
    widths = [max(len(line[i]) for line in [header, *lines]) for i in range(len(header))]
    left = {0, 7, 9}

    def format_line(cells):
        return "  ".join(cell.ljust(widths[i]) if i in left else cell.rjust(widths[i]) for i, cell in enumerate(cells)).rstrip()
    m, rss = report["machine"], report["rss"]
    print(f"{report['entries']:,} entries, {report['duration_s']} s per wrk run, {m['cores']} cores ({m['cpu']}), {m['date']}")
    print(format_line(header))
    print(format_line(["-" * width for width in widths]))
    for line in lines:
        print(format_line(line))
    verdict = "n/a below 100,000 entries" if rss["ok"] is None else ("ok" if rss["ok"] else "MISS")
    print(f"diary-server peak RSS {rss['peak_rss_mib']:.1f} MiB ({verdict}: {rss['target']})")
    depth = report.get("cursor_paging")
    if depth:
        print(f"deep paging ({depth['per_page']} per page): page 1 {depth['first_page_ms']:.2f} ms, "
              f"page {depth['pages']:,} by cursor {depth['last_page_by_cursor_ms']:.2f} ms, "
              f"by page number {depth['last_page_by_number_ms']:.2f} ms (median of 30)")
    if not report["bytes_identical"]:
        print("WARNING: the list or a page changed during the read scenarios; nginx served other bytes")


# MARK: - Deep paging


def cursor_depth(port, per_page=20, samples=30):
    """Walks the whole list by next_cursor, then times page 1 against the last page reached by
    cursor (and by page number, for contrast): a keyset seek should cost what page 1 costs."""
    connection = http.client.HTTPConnection(HOST, port, timeout=30)

    def get(path):
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise SystemExit(f"bench: GET {path} answered {response.status}: {body[:300]!r}")
        return json.loads(body)

    def median_ms(path):
        times = []
        for _ in range(samples):
            started = time.perf_counter()
            get(path)
            times.append((time.perf_counter() - started) * 1000)
        return statistics.median(times)

    first = f"/api/entries?per_page={per_page}"
    started = time.monotonic()
    page, pages, last_cursor = get(first), 1, None
    while page["next_cursor"] is not None:
        last_cursor = page["next_cursor"]
        page = get(f"{first}&cursor={last_cursor}")
        pages += 1
    walked = time.monotonic() - started
    log(f"walked {pages:,} pages by cursor in {walked:.1f} s")
    result = {"per_page": per_page, "pages": pages, "walk_s": walked, "first_page_ms": median_ms(first)}
    result["last_page_by_cursor_ms"] = median_ms(f"{first}&cursor={last_cursor}") if last_cursor else result["first_page_ms"]
    result["last_page_by_number_ms"] = median_ms(f"{first}&page={pages}")
    connection.close()
    return result


# MARK: - Main


def main():
    arguments = parse_arguments()
    for tool in ("wrk", "nginx", "hyperfine", "curl"):
        if shutil.which(tool) is None:
            raise SystemExit(f"bench: {tool} is missing (scripts/bench installs it)")
    folder = tempfile.mkdtemp(prefix="diary-bench-")
    os.chmod(folder, 0o755)  # nginx's worker runs as nobody and must read www/
    children = Children()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        report = measure(arguments, folder, children)
    finally:
        children.stop_all()
        if not arguments.keep:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            log(f"kept {folder}")
    print_table(report)
    if arguments.json:
        with open(arguments.json, "w") as file:
            json.dump(report, file, indent=2)
            file.write("\n")


def measure(arguments, folder, children):
    database = os.path.join(folder, "diary.sqlite3")
    token = seed(arguments, database)
    server, server_port = start_diary_server(children, arguments, database, os.path.join(folder, "diary-server.log"))
    count, step = sampled_ids(arguments.entries)
    content_type, page_types, sizes = capture(server_port, folder, count, step)
    log(f"diary-server on port {server_port}; list page {sizes['list']} bytes, entries about {sizes['entry']} bytes ({count} captured), "
        f"home page {sizes['home.html']} bytes, feed {sizes['feed.atom']} bytes")
    nginx, nginx_port = start_nginx(children, folder, content_type, page_types)
    worker = nginx_worker(nginx)
    ids = (str(count), str(step))
    duration, connections = arguments.duration, arguments.connections
    rows = []

    def measured(name, port, pid, runs, conns, script, path="/", script_arguments=()):
        results = []
        for _ in range(runs):
            results.append(wrk(port, duration, conns, script, path, script_arguments))
        row = dict(median_run(results), scenario=name, connections=conns,
                   server="nginx" if port == nginx_port else "diary-server", rss_mib=peak_rss_mib(pid))
        log(f"{name}: {row['requests_per_s']:,.0f} requests/s, p99 {row['p99_ms']:.2f} ms, {row['errors']} errors")
        rows.append(row)

    log("warming up")
    for port in (server_port, nginx_port):
        wrk(port, 2, connections, "requests.lua", script_arguments=("reads", *ids))
    for name, script, path, script_arguments in (
        ("list page 1", "report.lua", LIST_PATH, ()),
        ("one entry", "requests.lua", "/", ("entry", *ids)),
        ("reads 50/50", "requests.lua", "/", ("reads", *ids)),
        ("home page /", "report.lua", "/", ()),
        ("Atom feed", "report.lua", "/feed.atom", ()),
    ):
        measured(f"{name} (nginx)", nginx_port, worker, arguments.repeat, connections, script, path, script_arguments)
        measured(name, server_port, server.pid, arguments.repeat, connections, script, path, script_arguments)
    bytes_identical = same_bytes(server_port, folder)
    children.stop(nginx)

    log("timing diary list against curl -s")
    for row in hyperfine(arguments, server_port, folder):
        rows.append(dict(row, rss_mib=None))
    log("walking every page by cursor")
    depth = cursor_depth(server_port)
    # Writes last: they change page 1, which the nginx copy no longer matches.
    measured("post entry", server_port, server.pid, 1, arguments.post_connections, "requests.lua",
             script_arguments=("post", token))
    measured("mixed 90% reads", server_port, server.pid, 1, connections, "requests.lua",
             script_arguments=("mixed", *ids, token))
    children.stop(server)
    return {
        "machine": machine(), "entries": arguments.entries, "duration_s": duration, "repeat": arguments.repeat,
        "response_bytes": sizes, "bytes_identical": bytes_identical,
        "rss": judge(rows, arguments.entries), "scenarios": rows, "cursor_paging": depth,
    }


if __name__ == "__main__":
    main()
