"""HTTP to a server on HOST: a keep-alive client on http.client for well-formed requests, and
raw sockets for what a well-behaved client cannot send (malformed heads, smuggling, bodies cut
short, slow drips). Answers can be kept in a Transcript, to be searched for secrets later."""

import http.client
import json
import socket
import threading

from diarykit import HOST


class Transcript:
    """The answers read, as bytes (headers, then the body), from any thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.answers = []

    def add(self, data):
        with self.lock:
            self.answers.append(data)

    def text(self):
        with self.lock:
            return b"\n".join(self.answers).decode("utf-8", "replace")

    def __len__(self):
        with self.lock:
            return len(self.answers)


class Client:
    """One keep-alive connection; answers are (status, headers as a lower-case dict, body bytes),
    each added to `transcript` when there is one."""

    def __init__(self, port, token=None, timeout=15, transcript=None):
        self.port, self.token, self.timeout, self.transcript = port, token, timeout, transcript
        self.connection = None

    def request(self, method, path, body=None, token=None, headers=None):
        headers = dict(headers or {})
        token = token or self.token
        if token:
            headers.setdefault("Authorization", f"Bearer {token}")
        if isinstance(body, (dict, list)):
            body = json.dumps(body, ensure_ascii=False).encode()
            headers.setdefault("Content-Type", "application/json")
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as error:
                # A keep-alive connection the server closed while idle: retry once on a new one,
                # but only for reads, so that a write is never sent twice.
                self.close()
                if attempt or method not in ("GET", "HEAD"):
                    raise error
        answer = (response.status, {k.lower(): v for k, v in response.getheaders()}, data)
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        if self.transcript is not None:
            self.transcript.add(repr(answer[1]).encode() + data)
        return answer

    def json(self, method, path, body=None, **kwargs):
        """(status, the parsed body or None)."""
        status, headers, data = self.request(method, path, body, **kwargs)
        try:
            return status, json.loads(data) if data else None
        except ValueError:
            return status, None

    def close(self):
        if self.connection:
            self.connection.close()
            self.connection = None


def connect(port, source=HOST, timeout=10):
    """A raw TCP connection to `port`, from the loopback address `source`."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.bind((source, 0))
    sock.connect((HOST, port))
    return sock


def peer_closed(sock, timeout):
    """True when the peer closes (EOF or reset) within `timeout`; False if it stays open or sends more."""
    sock.settimeout(timeout)
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except (socket.timeout, BlockingIOError):
        return False


def read_answer(sock, close_wait, timeout=10, transcript=None):
    """One response off a raw socket, and whether the server then closed the connection within
    `close_wait` s: {status, headers (lower-case), body, closed}."""
    sock.settimeout(timeout)
    response = http.client.HTTPResponse(sock)
    response.begin()
    body = response.read()
    answer = {"status": response.status, "headers": {k.lower(): v for k, v in response.getheaders()},
              "body": body, "closed": peer_closed(sock, close_wait)}
    if transcript is not None:
        transcript.add(repr(answer["headers"]).encode() + body)
    return answer


def raw(port, data, close_wait, timeout=10, transcript=None):
    """Sends raw bytes on a new connection and reads one answer; None when the server closed without one."""
    with connect(port, timeout=timeout) as sock:
        try:
            sock.sendall(data)
            return read_answer(sock, close_wait, timeout, transcript)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, http.client.BadStatusLine):
            return None


def build(method, path, token=None, body=b"", content_type="application/json", headers=(), length=True):
    """The bytes of one request with Connection: close; `headers` are lines added as they are."""
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    if content_type and (body or method in ("POST", "PUT", "PATCH")):
        lines.append(f"Content-Type: {content_type}")
    if length and (body or method in ("POST", "PUT", "PATCH")):
        lines.append(f"Content-Length: {len(body)}")
    lines.extend(headers)
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head + (body if isinstance(body, bytes) else body.encode())


def is_problem(answer, status):
    """Whether a raw answer is an RFC 9457 problem+json document of `status`."""
    try:
        document = json.loads(answer["body"])
    except ValueError:
        return False
    return (answer["headers"].get("content-type", "").startswith("application/problem+json")
            and document.get("status") == status and "title" in document)
