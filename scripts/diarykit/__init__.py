"""What scripts/stress.py, bench.py and cluster.py share (standard library only).

- processes: polling a condition with a deadline, free ports, child processes stopped in order,
  a process's memory;
- server: `diary-server serve` started on a free port and waited for (its ready line);
- postgres: the throwaway PostgreSQL cluster of scripts/postgres, controlled (stop, start,
  freeze, psql, a new database);
- pgwire: PostgreSQL's wire protocol, as much as holding slots and cutting a COMMIT needs;
- nginx: the proxy configuration scripts/cluster runs and scripts/bench measures, and nginx
  started on it;
- http_client: HTTP with http.client (keep-alive), and on raw sockets for the requests a
  well-behaved client cannot send.

Only loopback traffic: everything listens and connects on HOST.
"""

import os

HOST = "127.0.0.1"
# The repository's root: scripts/postgres lives under it.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
