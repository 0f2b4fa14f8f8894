#!/usr/bin/env python3
"""Several diary-servers on one PostgreSQL database behind nginx, on one machine (standard library only).

Run through scripts/cluster, which installs what is missing and builds the release binaries.
Starts a throwaway PostgreSQL cluster (scripts/postgres), makes the database and a first user,
starts --servers diary-servers on free ports of 127.0.0.1 and nginx in front of them on one port,
prints the URL, the user's token and an example, and waits: Ctrl-C or SIGTERM stops everything
and removes every temporary folder. scripts/bench imports the pieces (the nginx configuration
above all), so that the benchmark measures the layout this script runs.
"""

import argparse
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import json
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "127.0.0.1"
# Connections PostgreSQL keeps for itself and for an administrator (superuser_reserved_connections
# is 3), and for `diary-server user` or psql while the servers run.
RESERVED_CONNECTIONS = 10


def log(message):
    print(f"cluster: {message}", file=sys.stderr, flush=True)


# MARK: - Processes


class Children:
    """Every process started here, each in a session of its own (so that Ctrl-C in the terminal
    reaches this script only, which stops them in order), stopped with TERM then KILL."""

    def __init__(self):
        self.processes = []

    def start(self, command, **options):
        process = subprocess.Popen(command, start_new_session=True, **options)
        self.processes.append(process)
        return process

    def stop(self, process, grace=6):
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

    def exited(self):
        """The first child that is no longer running, or None."""
        return next((process for process in self.processes if process.poll() is not None), None)


def free_port():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def wait_for_port(port, process, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{os.path.basename(sys.argv[0])}: the process for port {port} exited with {process.returncode}")
        try:
            socket.create_connection((HOST, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"{os.path.basename(sys.argv[0])}: nothing listens on port {port} after {timeout} s")


def wait_for_answer(url, timeout=15):
    """Waits until GET url answers 200 (through the proxy: every hop works), with a deadline."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
                last = response.status
        except OSError as error:
            last = error
        time.sleep(0.05)
    raise SystemExit(f"cluster: {url} did not answer 200 within {timeout} s (last: {last})")


# MARK: - PostgreSQL


def start_postgres():
    """A throwaway PostgreSQL cluster from scripts/postgres: (server URL, its folder)."""
    result = subprocess.run([os.path.join(ROOT, "scripts", "postgres")], capture_output=True, text=True,
                            timeout=300, start_new_session=True)
    if result.returncode != 0:
        raise SystemExit(f"cluster: scripts/postgres failed: {result.stderr.strip()[-2000:]}")
    values = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    return values["DIARY_TEST_POSTGRES_URL"], values["DIARY_POSTGRES_DIR"]


def stop_postgres(folder):
    subprocess.run([os.path.join(ROOT, "scripts", "postgres"), "stop", folder], capture_output=True, timeout=120)


def postgres_setting(server_url, name):
    """A setting of the server, read with psql."""
    match = re.match(r"postgres://([^@]+)@([^:/]+):(\d+)/", server_url)
    user, host, port = match.groups()
    result = subprocess.run(["psql", "-h", host, "-p", port, "-U", user, "-d", "postgres", "-XAtc", f"SHOW {name}"],
                            capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise SystemExit(f"cluster: psql failed: {result.stderr.strip()}")
    return result.stdout.strip()


def create_database(server_url, name):
    """A new UTF-8 database with the C.UTF-8 locale (what search's case folding assumes); its URL."""
    match = re.match(r"postgres://([^@]+)@([^:/]+):(\d+)/", server_url)
    user, host, port = match.groups()
    result = subprocess.run(["createdb", "-h", host, "-p", port, "-U", user, "-E", "UTF8", "-T", "template0",
                             "--locale", "C.UTF-8", name], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise SystemExit(f"cluster: createdb failed: {result.stderr.strip()}")
    return f"postgres://{user}@{host}:{port}/{name}"


def check_connection_budget(server_url, servers, connections_per_server):
    """PostgreSQL's max_connections must cover every server's pool, and a reserve."""
    limit = int(postgres_setting(server_url, "max_connections"))
    needed = servers * connections_per_server + RESERVED_CONNECTIONS
    if needed > limit:
        raise SystemExit(f"cluster: {servers} servers x {connections_per_server} connections + {RESERVED_CONNECTIONS} reserved "
                         f"= {needed} > PostgreSQL's max_connections {limit}")


# MARK: - diary-server


def server_command(bin_folder, database, threads=None, connections=None, public_url=None, response_cache=None):
    """`diary-server serve` for one server of several: on a free port; `--public-url` the
    proxy's, so that every server builds the same bytes (feeds hold absolute URLs); no per-IP
    limit below the total, since every connection comes from the proxy's address."""
    command = [os.path.join(bin_folder, "diary-server"), "serve", "--host", HOST, "--port", "0", "--database", database,
               "--max-connections-per-ip", "1024"]
    if threads:
        command += ["--threads", str(threads)]
    if connections:
        command += ["--database-connections", str(connections)]
    if public_url:
        command += ["--public-url", public_url]
    if response_cache is not None:
        command += ["--response-cache", str(response_cache)]
    return command


def start_server(children, command, log_path, timeout=30):
    """Starts `diary-server serve` and reads its 'listening on' line, with a deadline: (process, port)."""
    process = children.start(command, stdout=subprocess.PIPE, stderr=open(log_path, "w"), text=True)
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    line = process.stdout.readline() if ready else ""
    match = re.match(r"listening on http://(\S+):(\d+)", line)
    if not match:
        raise SystemExit(f"cluster: diary-server did not start: {line!r}; see {log_path}")
    return process, int(match.group(2))


def server_connections(threads, connections):
    """The pool one server opens with these flags: what `diary-server serve` computes (DatabaseSizing)."""
    if connections:
        return connections
    threads = threads or min(256, max(2, os.cpu_count() or 2) * 8)
    return threads + 12


# MARK: - nginx


def proxy_config(folder, port, upstream_ports, workers="auto"):
    """The nginx configuration in front of the servers: the one scripts/cluster runs and
    scripts/bench measures, and the one the README shows for several machines.

    - keepalive connections to the servers (a new TCP connection per request would cost more
      than a cached read);
    - a read (GET, HEAD, OPTIONS) goes to another server when one cannot be reached or fails
      before its answer began (`error timeout`); any other method is sent once (`off`): nginx
      would retry PUT and DELETE, which HTTP calls idempotent, but a PUT with If-Match retried
      after the first server applied it answers 412, and a retried DELETE 404;
    - headers pass through both ways; Host is the client's, and X-Forwarded-For/-Proto tell the
      servers who asked;
    - request bodies up to 4 MiB reach the servers, so that their own 413 (problem+json past
      2 MiB) is what clients see, not nginx's HTML one.
    """
    common = "\n".join(f"            {line}" for line in (
        "proxy_http_version 1.1;",
        'proxy_set_header Connection "";',
        "proxy_set_header Host $http_host;",
        "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
        "proxy_set_header X-Forwarded-Proto $scheme;",
        "proxy_connect_timeout 2s;",
        "proxy_read_timeout 60s;",
    ))
    upstreams = "\n".join(f"        server {HOST}:{upstream} max_fails=1 fail_timeout=2s;" for upstream in upstream_ports)
    path = os.path.join(folder, "nginx.conf")
    with open(path, "w") as file:
        file.write(f"""# Generated by scripts/cluster.py (proxy_config).
worker_processes {workers};
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/nginx-error.log;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    server_tokens off;
    keepalive_requests 100000000;
    client_max_body_size 4m;
    upstream diary {{
{upstreams}
        keepalive 128;
        keepalive_requests 100000000;
    }}
    server {{
        listen {HOST}:{port};
        # Reads (GET, HEAD, OPTIONS) go to another server when one cannot be reached or fails
        # before its answer began; every other method is sent once, to one server.
        location / {{
            error_page 418 = @write;
            if ($request_method !~ ^(GET|HEAD|OPTIONS)$) {{ return 418; }}
            proxy_pass http://diary;
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 3;
{common}
        }}
        location @write {{
            proxy_pass http://diary;
            proxy_next_upstream off;
{common}
        }}
    }}
}}
""")
    return path


def start_nginx(children, folder, config, port):
    process = children.start(["nginx", "-p", folder, "-e", f"{folder}/nginx-error.log", "-c", config],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_for_port(port, process)
    return process


# MARK: - Checking


def request(url, method="GET", token=None, body=None):
    """(status, parsed JSON body or None) of one request."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method, headers=headers), timeout=10) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        return error.code, None


def check(url, server_urls, token, children, server_processes):
    """The cluster end to end: every server's cache filled, a write through the proxy, then
    every server (asked directly) lists it first: no server serves its kept page from before
    the write. Then one server stops and reads through the proxy still answer."""
    failures = []
    for server in server_urls:
        status, _ = request(f"{server}/api/entries")
        if status != 200:
            failures.append(f"GET {server}/api/entries answered {status}")
    status, created = request(f"{url}/api/entries", "POST", token, {"title": "Checked", "body": "through the proxy"})
    if status != 201:
        failures.append(f"POST through the proxy answered {status}")
    else:
        for server in server_urls:
            status, page = request(f"{server}/api/entries")
            first = (page or {}).get("entries", [{}])[0].get("entry_id") if page else None
            if status != 200 or first != created["entry_id"]:
                failures.append(f"{server} listed entry {first} first (status {status}), not the new {created['entry_id']}: a stale read")
    children.stop(server_processes[0])
    statuses = [request(f"{url}/api/entries")[0] for _ in range(2 * len(server_urls))]
    if any(status != 200 for status in statuses):
        failures.append(f"with one server stopped, reads through the proxy answered {statuses}")
    for failure in failures:
        log(f"check failed: {failure}")
    if not failures:
        log(f"check passed: a write through the proxy was read back from all {len(server_urls)} servers; "
            f"with one stopped, {len(statuses)} reads through the proxy answered 200")
    return not failures


# MARK: - Main


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="folder with the release diary-server and diary")
    parser.add_argument("--servers", type=int, default=3, help="diary-servers behind the proxy (default 3)")
    parser.add_argument("--port", type=int, default=0, help="the proxy's port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--threads", type=int, help="each server's --threads (default: its own)")
    parser.add_argument("--database-connections", type=int, help="each server's --database-connections (default: its own)")
    parser.add_argument("--user", default="demo", help="the first user's name (default demo)")
    parser.add_argument("--check", action="store_true",
                        help="instead of waiting: check the cluster end to end (a write through the proxy is read back from "
                             "every server at once, reads survive a stopped server), stop it, exit 0 or 1")
    parser.add_argument("--entries", type=int, default=0,
                        help="seed this many generated entries first (users bench-1..3; the first one's token is printed)")
    arguments = parser.parse_args()
    if not 1 <= arguments.servers <= 64 or not 0 <= arguments.port <= 65535 or arguments.entries < 0:
        parser.error("--servers must be 1 to 64, --port 0 to 65535, --entries 0 or more")
    return arguments


def main():
    arguments = parse_arguments()
    folder = tempfile.mkdtemp(prefix="diary-cluster-")
    os.chmod(folder, 0o755)
    children = Children()
    postgres_folder = None

    def stop(signum, _frame):
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, stop)
    try:
        log("starting PostgreSQL")
        server_url, postgres_folder = start_postgres()
        check_connection_budget(server_url, arguments.servers,
                                server_connections(arguments.threads, arguments.database_connections))
        database = create_database(server_url, "diary")
        diary_server = os.path.join(arguments.bin, "diary-server")
        # The schema is migrated here, once, before the servers start (they could also race: the
        # migration holds an advisory lock).
        if arguments.entries:
            output = subprocess.run([diary_server, "seed", "--entries", str(arguments.entries), "--database", database],
                                    capture_output=True, text=True, timeout=1800, check=True).stdout
            user, token = output.split("\n", 1)[0].split()
        else:
            user = arguments.user
            token = subprocess.run([diary_server, "user", "add", user, "--database", database],
                                   capture_output=True, text=True, timeout=60, check=True).stdout.strip()
        port = arguments.port or free_port()
        url = f"http://{HOST}:{port}"
        ports, logs, processes = [], {}, []
        for number in range(1, arguments.servers + 1):
            command = server_command(arguments.bin, database, arguments.threads, arguments.database_connections, public_url=url)
            log_path = os.path.join(folder, f"diary-server-{number}.log")
            process, server_port = start_server(children, command, log_path)
            ports.append(server_port)
            processes.append(process)
            logs[process.pid] = log_path
        nginx = start_nginx(children, folder, proxy_config(folder, port, ports), port)
        logs[nginx.pid] = os.path.join(folder, "nginx-error.log")
        wait_for_answer(f"{url}/api/entries")
        if arguments.check:
            passed = check(url, [f"http://{HOST}:{p}" for p in ports], token, children, processes)
            raise SystemExit(0 if passed else 1)
        diary = os.path.join(arguments.bin, "diary")
        print(f"""
Diary on PostgreSQL: {arguments.servers} diary-servers ({', '.join(f'{HOST}:{p}' for p in ports)}) behind nginx.
  URL        {url}
  database   {database}
  user       {user}, token {token}
  logs       {folder} (removed on exit)

  curl -s -H 'Authorization: Bearer {token}' -H 'Content-Type: application/json' \\
       -d '{{"title":"Hello","body":"Written through the proxy."}}' {url}/api/entries
  curl -s {url}/api/entries
  DIARY_SERVER={url} DIARY_TOKEN={token} {diary} list

Ctrl-C stops everything and removes the temporary folders.""", flush=True)
        while True:
            exited = children.exited()
            if exited is not None:
                name = "nginx" if exited is nginx else "a diary-server"
                with open(logs[exited.pid], errors="replace") as file:
                    tail = file.read()[-2000:]
                raise SystemExit(f"cluster: {name} exited with {exited.returncode}; stopping everything. Its log:\n{tail}")
            time.sleep(0.5)
    except subprocess.CalledProcessError as error:
        raise SystemExit(f"cluster: {error.cmd[0]} {error.cmd[1]} failed: {(error.stderr or '').strip()}")
    finally:
        # Ctrl-C again must not leave half of it running.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        children.stop_all()
        if postgres_folder:
            stop_postgres(postgres_folder)
        shutil.rmtree(folder, ignore_errors=True)
        log("stopped")


if __name__ == "__main__":
    main()
