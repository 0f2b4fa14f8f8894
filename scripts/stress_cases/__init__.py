"""The cases of scripts/stress.py, one module a subject:

- context: the run's settings, bounds and table, the servers and users made, the recording clients;
- durability: SIGKILL during writes, graceful stop, disk full, read-only file, busy database;
- load: readers and writers, slowloris;
- stall: uncached searches from 16 clients while a token's entry reads stay fast (issue 25);
- hostile: malformed, oversized and smuggled requests, search syntax and cost, import, SQL injection;
- tokens_and_privacy: tokens (refused, rotated, timed), private entries through the cache, secrets in answers and logs;
- fuzz: the fuzz target;
- postgres_traffic and postgres_faults: several servers on one PostgreSQL, and PostgreSQL killed,
  stopped, frozen, out of slots or cut off at COMMIT.

Starting servers and clusters, speaking HTTP and PostgreSQL's protocol: scripts/diarykit.
"""
