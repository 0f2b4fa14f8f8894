"""PostgreSQL's wire protocol (version 3), as much as the stress cases need: a login that holds
one of the server's connection slots, a simple query on it, and the framing a proxy reads
message by message."""

import socket
import struct

from diarykit import HOST


def read_exactly(sock, size):
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("PostgreSQL closed the connection")
        data += chunk
    return data


def read_message(sock):
    """One typed message: (type byte, payload). Every message but the client's first has a type."""
    kind = read_exactly(sock, 1)
    length = struct.unpack("!i", read_exactly(sock, 4))[0]
    return kind, read_exactly(sock, length - 4)


def message(kind, payload):
    """The bytes of one typed message."""
    return kind + struct.pack("!i", len(payload) + 4) + payload


def sqlstate(payload):
    """The SQLSTATE of an ErrorResponse's payload."""
    for field in payload.split(b"\0"):
        if field[:1] == b"C":
            return field[1:].decode()
    return "?"


def login(port):
    """A logged-in, idle connection (as `diary`, trusted on loopback) that holds one of the
    server's slots until closed; or (None, SQLSTATE) when the server refused it."""
    sock = socket.create_connection((HOST, port), timeout=10)
    body = struct.pack("!i", 196608) + b"user\0diary\0database\0postgres\0application_name\0stress-hold\0\0"
    sock.sendall(struct.pack("!i", len(body) + 4) + body)
    while True:
        kind, payload = read_message(sock)
        if kind == b"E":
            sock.close()
            return None, sqlstate(payload)
        if kind == b"R" and struct.unpack("!i", payload[:4])[0] != 0:
            sock.close()
            raise RuntimeError("the cluster asked for a password")
        if kind == b"Z":
            return sock, None


def query(sock, sql):
    """The first column of every row of a simple query on a held connection."""
    sock.sendall(message(b"Q", sql.encode() + b"\0"))
    values, error = [], None
    while True:
        kind, payload = read_message(sock)
        if kind == b"D" and struct.unpack("!h", payload[:2])[0] > 0:
            size = struct.unpack("!i", payload[2:6])[0]
            values.append(payload[6:6 + size].decode() if size >= 0 else None)
        elif kind == b"E":
            error = sqlstate(payload)
        elif kind == b"Z":
            if error:
                raise RuntimeError(f"query failed: SQLSTATE {error}")
            return values
