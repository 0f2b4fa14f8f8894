#!/usr/bin/env python3
"""Several diary-servers on one PostgreSQL database behind nginx, on one machine (standard library only).

Run through scripts/cluster, which installs what is missing and builds the release binaries.
Starts a throwaway PostgreSQL cluster (scripts/postgres), makes the database and a first user,
starts --servers diary-servers on free ports of 127.0.0.1 and nginx in front of them on one port,
prints the URL, the user's token and an example, and waits: Ctrl-C or SIGTERM stops everything
and removes every temporary folder. The pieces live in scripts/diarykit, which scripts/bench
uses too (the nginx configuration above all), so that the benchmark measures the layout this
script runs.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in scripts/ from the imports below
from diarykit import HOST  # noqa: E402  scripts/diarykit: what stress.py, bench.py and this share
from diarykit.http_client import Client  # noqa: E402
from diarykit.nginx import proxy_config, start_nginx  # noqa: E402
from diarykit.postgres import PostgresCluster  # noqa: E402
from diarykit.processes import Children, free_port, wait_until  # noqa: E402
from diarykit.server import pool_size, serve_command, serve_flags, start_serving  # noqa: E402

# Connections PostgreSQL keeps for itself and for an administrator (superuser_reserved_connections
# is 3), and for `diary-server user` or psql while the servers run.
RESERVED_CONNECTIONS = 10


def log(message):
    print(f"cluster: {message}", file=sys.stderr, flush=True)


def wait_for_answer(port, timeout=15):
    """Waits until GET /api/entries answers 200 on `port` (through the proxy: every hop works), with a deadline."""
    last = [None]

    def answered():
        try:
            last[0] = request(port, timeout=2)[0]
        except OSError as error:
            last[0] = error
        return last[0] == 200
    if wait_until(answered, timeout, 0.05) is None:
        raise SystemExit(f"cluster: http://{HOST}:{port}/api/entries did not answer 200 within {timeout} s (last: {last[0]})")


def check_connection_budget(postgres, servers, connections_per_server):
    """PostgreSQL's max_connections must cover every server's pool, and a reserve."""
    limit = int(postgres.setting("max_connections"))
    needed = servers * connections_per_server + RESERVED_CONNECTIONS
    if needed > limit:
        raise SystemExit(f"cluster: {servers} servers x {connections_per_server} connections + {RESERVED_CONNECTIONS} reserved "
                         f"= {needed} > PostgreSQL's max_connections {limit}")


# MARK: - Checking


def request(port, method="GET", token=None, body=None, path="/api/entries", timeout=10):
    """(status, parsed JSON body or None) of one request, on a connection of its own."""
    client = Client(port, token, timeout=timeout)
    try:
        return client.json(method, path, body)
    finally:
        client.close()


def check(port, server_ports, token, children, server_processes):
    """The cluster end to end: every server's cache filled, a write through the proxy, then
    every server (asked directly) lists it first: no server serves its kept page from before
    the write. Then one server stops and reads through the proxy still answer."""
    failures = []
    for server in server_ports:
        status, _ = request(server)
        if status != 200:
            failures.append(f"GET http://{HOST}:{server}/api/entries answered {status}")
    status, created = request(port, "POST", token, {"title": "Checked", "body": "through the proxy"})
    if status != 201:
        failures.append(f"POST through the proxy answered {status}")
    else:
        for server in server_ports:
            status, page = request(server)
            first = (page or {}).get("entries", [{}])[0].get("entry_id") if page else None
            if status != 200 or first != created["entry_id"]:
                failures.append(f"http://{HOST}:{server} listed entry {first} first (status {status}), "
                                f"not the new {created['entry_id']}: a stale read")
    children.stop(server_processes[0])
    statuses = [request(port)[0] for _ in range(2 * len(server_ports))]
    if any(status != 200 for status in statuses):
        failures.append(f"with one server stopped, reads through the proxy answered {statuses}")
    for failure in failures:
        log(f"check failed: {failure}")
    if not failures:
        log(f"check passed: a write through the proxy was read back from all {len(server_ports)} servers; "
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


def first_user(arguments, database):
    """Migrates the schema, once, before the servers start (they could also race: the migration
    holds an advisory lock), and makes the first user, or seeds --entries: (name, token)."""
    diary_server = os.path.join(arguments.bin, "diary-server")
    if arguments.entries:
        output = subprocess.run([diary_server, "seed", "--entries", str(arguments.entries), "--database", database],
                                capture_output=True, text=True, timeout=1800, check=True).stdout
        user, token = output.split("\n", 1)[0].split()
        return user, token
    token = subprocess.run([diary_server, "user", "add", arguments.user, "--database", database],
                           capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    return arguments.user, token


def start_servers(arguments, children, folder, database, url):
    """--servers diary-servers on free ports, each with the proxy's URL: (processes, ports, logs by pid)."""
    flags = serve_flags(arguments.threads, arguments.database_connections, public_url=url, behind_proxy=True)
    processes, ports, logs = [], [], {}
    for number in range(1, arguments.servers + 1):
        log_path = os.path.join(folder, f"diary-server-{number}.log")
        process, port = start_serving(serve_command(arguments.bin, database, flags, host=HOST), log_path, 30,
                                      launch=children.start)
        processes.append(process)
        ports.append(port)
        logs[process.pid] = log_path
    return processes, ports, logs


def print_welcome(arguments, url, ports, database, user, token, folder):
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


def watch(children, nginx, logs):
    """Until a child exits (then fails with its log's tail) or a signal stops the script."""
    while True:
        exited = children.exited()
        if exited is not None:
            name = "nginx" if exited is nginx else "a diary-server"
            with open(logs[exited.pid], errors="replace") as file:
                tail = file.read()[-2000:]
            raise SystemExit(f"cluster: {name} exited with {exited.returncode}; stopping everything. Its log:\n{tail}")
        time.sleep(0.5)


def main():
    arguments = parse_arguments()
    folder = tempfile.mkdtemp(prefix="diary-cluster-")
    os.chmod(folder, 0o755)
    children = Children()
    postgres = None

    def stop(signum, _frame):
        raise SystemExit(128 + signum)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, stop)
    try:
        log("starting PostgreSQL")
        postgres = PostgresCluster()
        check_connection_budget(postgres, arguments.servers, pool_size(arguments.threads, arguments.database_connections))
        database = postgres.create_database("diary")
        user, token = first_user(arguments, database)
        port = arguments.port or free_port()
        url = f"http://{HOST}:{port}"
        processes, ports, logs = start_servers(arguments, children, folder, database, url)
        nginx = start_nginx(children, folder, proxy_config(folder, port, ports), port)
        logs[nginx.pid] = os.path.join(folder, "nginx-error.log")
        wait_for_answer(port)
        if arguments.check:
            raise SystemExit(0 if check(port, ports, token, children, processes) else 1)
        print_welcome(arguments, url, ports, database, user, token, folder)
        watch(children, nginx, logs)
    except subprocess.CalledProcessError as error:
        raise SystemExit(f"cluster: {error.cmd[0]} {error.cmd[1]} failed: {(error.stderr or '').strip()}")
    except RuntimeError as error:  # PostgreSQL, a server or nginx did not start
        raise SystemExit(f"cluster: {error}")
    finally:
        # Ctrl-C again must not leave half of it running.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        children.stop_all()
        if postgres:
            postgres.close()
        shutil.rmtree(folder, ignore_errors=True)
        log("stopped")


if __name__ == "__main__":
    main()
