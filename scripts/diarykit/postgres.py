"""The throwaway PostgreSQL 15 cluster of scripts/postgres (loopback only, user `diary` trusted),
and what the scripts do to it: a new database, a setting read, a query through psql, and the
faults the stress cases cause (stopped, started with other settings, frozen)."""

import os
import re
import signal
import subprocess

from diarykit import ROOT

PG_BIN = "/usr/lib/postgresql/15/bin"
SCRIPT = os.path.join(ROOT, "scripts", "postgres")


def as_postgres(command):
    """PostgreSQL refuses to run as root: as root, its tools run as the package's `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else list(command)


class PostgresCluster:
    """A cluster made and started by scripts/postgres in a new temporary folder; `close` (or the
    end of a `with` block) stops it and removes the folder, once: later calls do nothing."""

    def __init__(self):
        # A session of its own, so that Ctrl-C in the terminal reaches the script only.
        result = subprocess.run([SCRIPT], capture_output=True, text=True, timeout=600, start_new_session=True)
        if result.returncode != 0:
            raise RuntimeError(f"scripts/postgres failed: {result.stderr.strip()[-2000:]}")
        values = dict(line.split("=", 1) for line in result.stdout.split())
        self.url, self.dir = values["DIARY_TEST_POSTGRES_URL"], values["DIARY_POSTGRES_DIR"]
        self.user, self.host, port = re.match(r"postgres://([^@]+)@([^:/]+):(\d+)/", self.url).groups()
        self.port = int(port)
        self.frozen = []
        self.closed = False

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

    def restart_with(self, **settings):
        """Sets each of `settings` (ALTER SYSTEM, kept in the cluster's postgresql.auto.conf) and
        restarts the server: some, such as shared_buffers, are read only when it starts."""
        for name, value in settings.items():
            self.sql(f"ALTER SYSTEM SET {name} = '{value}'")
        self.stop("fast")
        self.start()

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
        """SIGSTOP to the postmaster (so it starts no backend) and then to its children, as a
        network partition would look."""
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

    def setting(self, name):
        """A setting of the server (SHOW), as text."""
        return self.sql(f"SHOW {name}")[0][0]

    def create_database(self, name):
        """A new UTF-8 database with the C.UTF-8 locale (what search's case folding assumes); its URL."""
        result = subprocess.run(["createdb", "-h", self.host, "-p", str(self.port), "-U", self.user, "-E", "UTF8",
                                 "-T", "template0", "--locale", "C.UTF-8", name], capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"createdb failed: {result.stderr.strip()}")
        return f"postgres://{self.user}@{self.host}:{self.port}/{name}"

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def close(self):
        if self.closed:
            return
        self.closed = True
        self.thaw()
        subprocess.run([SCRIPT, "stop", self.dir], capture_output=True, timeout=180)
