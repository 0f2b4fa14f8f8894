"""Uploads while readers read (issue 21): eight 12-megapixel images uploaded at once, twice,
while sixteen readers read an entry that shows an image; every upload kept, no read failing,
and the server's peak RSS (VmHWM) within the bound of 300 MiB."""

import json
import struct
import zlib

from diarykit.processes import status_kib
from stress_cases.context import add_user, Client, kib, new_database, post_entry, row, Server, start_threads, join_threads

PEAK_RSS_KIB = 300 * 1024


def png_chunk(kind, data):
    """One PNG chunk: length, type, data, CRC."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(width, height, seed, extra=b""):
    """A width × height RGB PNG made with zlib alone (the battery uses the standard library only):
    a first row of steps, then rows that repeat it (PNG's Up filter with nothing to add), so that
    a decoder reads every pixel of it while the file stays small on the wire. `extra`: chunks
    put before the pixels (tEXt, iCCP)."""
    first = bytes((x * 5 + seed) % 256 for x in range(width * 3))
    rows = b"\x00" + first + (b"\x02" + bytes(width * 3)) * (height - 1)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + extra + png_chunk(b"IDAT", zlib.compress(rows, 6))
            + png_chunk(b"IEND", b""))


def case_uploads():
    database = new_database("uploads")
    token = add_user(database, "photographer")
    server = Server(database).start()
    owner = Client(server.port, token)
    shown = png(64, 48, 1)
    status, _, body = owner.request("POST", "/api/media", shown, headers={"Content-Type": "image/png"})
    url = json.loads(body)["url"] if status == 201 else "/media/none"
    _, entry = post_entry(owner, "with a picture", f"![shown]({url})")
    owner.close()
    image = png(4000, 3000, 7)
    uploads, reads, failures = [], [], []
    done = []

    def upload(index):
        client = Client(server.port, token, timeout=120, record=False)
        for _ in range(2):
            try:
                uploads.append(client.request("POST", "/api/media", image, headers={"Content-Type": "image/png"})[0])
            except OSError as error:
                failures.append(f"upload: {error}")
        client.close()
        done.append(index)

    def read(index):
        client = Client(server.port, None, record=False)
        while len(done) < 8:
            for path in (f"/entries/{entry.get('entry_id', 0)}", url):
                try:
                    reads.append(client.request("GET", path)[0])
                except OSError as error:
                    failures.append(f"read: {error}")
        client.close()

    threads = start_threads(upload, 8) + start_threads(read, 16)
    join_threads(threads, 600)
    peak = status_kib(server.pid, "VmHWM") or 0
    code = server.stop()
    kept = uploads.count(201)
    passed = kept == 16 and reads and all(s == 200 for s in reads) and not failures and peak <= PEAK_RSS_KIB and code == 0
    row("uploads while readers read", f"16 of 16 uploads of 12 MP kept, every read 200, peak RSS ≤ {kib(PEAK_RSS_KIB)}",
        f"{kept} kept, {len(reads)} reads ({sum(1 for s in reads if s != 200)} not 200), {len(failures)} errors, "
        f"peak RSS {kib(peak)}, exit {code}", passed)
