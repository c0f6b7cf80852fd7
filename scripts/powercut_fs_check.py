#!/usr/bin/env python3
"""Checks powercut-fs (Tools/powercut-fs), the FUSE file system that drops every write not
fsynced when `powercut-fs cut` simulates a power cut: it builds it (scripts/powercut-fs.sh),
mounts it in a temporary directory and checks, each check on a fresh state directory:
the durability rules (file data as of its last fsync, directory entries as of the
directory's last fsync), SQLite in WAL mode across cuts, a unix socket on the mount, POSIX
locks, shared mmap, other users, many cut/mount cycles with a writer killed mid-way, random
operation sequences against a model of the rules (strict and --journal), and prints the
write throughput on the mount against the disk.

Run as root (it mounts): python3 scripts/powercut_fs_check.py [--only NAME]... [--keep]
Exits non-zero when a check fails; the last line is a one-line summary."""
import argparse
import fcntl
import mmap
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = None
CUT_LINE = re.compile(r"dropped unsynced_files=(\d+) unsynced_bytes=(\d+) lost_files=(\d+) "
                      r"lost_bytes=(\d+) undone_entries=(\d+)")


class Failure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failure(message)


class Mount:
    """One state directory and its mount point, under a temporary directory."""

    def __init__(self, base):
        self.base = tempfile.mkdtemp(prefix="pcfs-", dir=base)
        os.chmod(self.base, 0o755)
        self.state = os.path.join(self.base, "state")
        self.mnt = os.path.join(self.base, "mnt")
        self.mounted = False
        self.last_cut = None
        self.options = []

    def tool(self, *args):
        done = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise Failure(f"powercut-fs {' '.join(args)} exited {done.returncode}: "
                          f"{done.stdout.strip()} {done.stderr.strip()}")
        return done.stdout

    def mount(self):
        out = self.tool("mount", *self.options, self.state, self.mnt)
        expect("mounted" in out, f"mount printed {out!r}")
        self.mounted = True
        return out

    def cut(self):
        out = self.tool("cut", self.state)
        self.mounted = False
        found = CUT_LINE.search(out)
        expect(found, f"cut printed no summary: {out!r}")
        self.last_cut = dict(zip(("unsynced_files", "unsynced_bytes", "lost_files", "lost_bytes",
                                  "undone_entries"), map(int, found.groups())))
        return self.last_cut

    def cycle(self):
        """A cut, then a mount of what survived."""
        summary = self.cut()
        self.mount()
        return summary

    def unmount(self):
        out = self.tool("unmount", self.state, self.mnt)
        self.mounted = False
        return out

    def path(self, *names):
        return os.path.join(self.mnt, *names)

    def close(self, keep):
        if self.mounted:
            try:
                self.cut()
            except Exception:
                subprocess.run([BIN, "cut", self.state], capture_output=True)
        if not keep:
            shutil.rmtree(self.base, ignore_errors=True)


def fsync_dir(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def put(path, data, sync=False, dirsync=False, flags=0, datasync=False):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | flags, 0o644)
    try:
        os.write(fd, data)
        if sync:
            (os.fdatasync if datasync else os.fsync)(fd)
    finally:
        os.close(fd)
    if dirsync:
        fsync_dir(os.path.dirname(path))


def get(path):
    with open(path, "rb") as f:
        return f.read()


def durable_file(m, name, data):
    put(m.path(name), data, sync=True, dirsync=True)


def python(code, **kwargs):
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, **kwargs)


CHECKS = []
NOTES = []


def check(name):
    def register(fn):
        CHECKS.append((name, fn))
        return fn
    return register


@check("1-unsynced-writes-dropped")
def unsynced_writes(m):
    f = m.path("f")
    durable_file(m, "f", b"A" * 5000)
    put(f, b"B" * 3000)  # rewritten, not synced
    m.cycle()
    expect(get(f) == b"A" * 5000, "an unsynced rewrite survived the cut")
    put(f, b"B" * 3000, sync=True)
    with open(f, "ab") as out:
        out.write(b"C" * 100)  # after the sync: must go
    m.cycle()
    expect(get(f) == b"B" * 3000, f"after sync + unsynced append: {len(get(f))} bytes")
    put(f, b"D" * 7000, sync=True, datasync=True)
    m.cycle()
    expect(get(f) == b"D" * 7000, "an fdatasync'ed write was lost")
    put(f, b"E" * 100, flags=os.O_DSYNC)  # O_DSYNC: durable on return, no fsync
    m.cycle()
    expect(get(f) == b"E" * 100, "an O_DSYNC write was lost")
    # Scattered unsynced writes in a synced 1 MiB file: only the dirty pages may change.
    body = bytearray(random.randbytes(1 << 20))
    put(f, bytes(body), sync=True)
    with open(f, "r+b") as out:
        for offset in random.sample(range(0, (1 << 20) - 100, 997), 20):
            out.seek(offset)
            out.write(b"x" * 100)
    summary = m.cycle()
    expect(get(f) == bytes(body), "unsynced scattered writes changed the synced file")
    expect(summary["unsynced_files"] == 1 and summary["unsynced_bytes"] > 0,
           f"cut summary did not count the unsynced file: {summary}")
    with open(f, "r+b") as out:
        out.seek(4096 * 10 + 5)
        out.write(b"y" * 10)
        body[4096 * 10 + 5:4096 * 10 + 15] = b"y" * 10
        out.flush()
        os.fsync(out.fileno())
    m.cycle()
    expect(get(f) == bytes(body), "a synced partial overwrite did not survive exactly")


@check("2-create-needs-directory-fsync")
def create_without_dirsync(m):
    put(m.path("new"), b"data", sync=True)  # file synced, directory not
    m.cycle()
    expect(not os.path.exists(m.path("new")), "a file whose directory was not fsynced survived")
    put(m.path("new"), b"data", sync=True, dirsync=True)
    m.cycle()
    expect(get(m.path("new")) == b"data", "a file synced with its directory was lost")


@check("3-directory-fsync-without-file-fsync")
def dirsync_without_filesync(m):
    put(m.path("empty"), b"never synced", dirsync=True)
    m.cycle()
    expect(os.path.exists(m.path("empty")), "the entry of a synced directory was lost")
    expect(get(m.path("empty")) == b"", f"unsynced data came back: {get(m.path('empty'))!r}")


@check("4-rename-unlink-mkdir-need-directory-fsync")
def namespace(m):
    durable_file(m, "a", b"A")
    durable_file(m, "b", b"B")
    os.rename(m.path("a"), m.path("c"))
    m.cycle()
    expect(get(m.path("a")) == b"A" and not os.path.exists(m.path("c")), "an unsynced rename was kept")
    os.rename(m.path("a"), m.path("b"))  # over an existing file
    m.cycle()
    expect(get(m.path("a")) == b"A" and get(m.path("b")) == b"B", "an unsynced rename over a file was kept")
    os.rename(m.path("a"), m.path("b"))
    fsync_dir(m.mnt)
    m.cycle()
    expect(not os.path.exists(m.path("a")) and get(m.path("b")) == b"A", "a synced rename over a file was undone")
    with open(m.path("b"), "ab") as out:
        out.write(b"unsynced")
    os.unlink(m.path("b"))
    m.cycle()
    expect(get(m.path("b")) == b"A", "an unsynced unlink was kept (or the file lost its durable content)")
    os.unlink(m.path("b"))
    fsync_dir(m.mnt)
    m.cycle()
    expect(not os.path.exists(m.path("b")), "a synced unlink was undone")
    # An unlinked durable file's inode number must not be reused for new files meanwhile.
    durable_file(m, "keep", b"K" * 10000)
    os.unlink(m.path("keep"))
    for i in range(50):
        put(m.path(f"n{i}"), b"N%d" % i, sync=True)
    m.cycle()
    expect(get(m.path("keep")) == b"K" * 10000, "an unlinked file came back with other content")
    os.mkdir(m.path("d"))
    m.cycle()
    expect(not os.path.exists(m.path("d")), "an unsynced mkdir was kept")
    os.mkdir(m.path("d"))
    fsync_dir(m.mnt)
    put(m.path("d", "inner"), b"I", sync=True, dirsync=True)
    m.cycle()
    expect(get(m.path("d", "inner")) == b"I", "a synced directory lost its synced file")
    os.unlink(m.path("d", "inner"))
    os.rmdir(m.path("d"))
    m.cycle()
    expect(get(m.path("d", "inner")) == b"I", "an unsynced rmdir was kept")
    os.mkdir(m.path("e"))
    fsync_dir(m.mnt)
    os.rename(m.path("d", "inner"), m.path("e", "moved"))
    fsync_dir(m.path("e"))
    fsync_dir(m.path("d"))
    m.cycle()
    expect(get(m.path("e", "moved")) == b"I" and not os.path.exists(m.path("d", "inner")),
           "a rename between two synced directories was not kept")


@check("5-truncate")
def truncate(m):
    durable_file(m, "t", b"T" * 10000)
    os.truncate(m.path("t"), 100)
    m.cycle()
    expect(get(m.path("t")) == b"T" * 10000, "an unsynced truncate was kept")
    with open(m.path("t"), "r+b") as f:
        f.truncate(100)
        os.fsync(f.fileno())
    m.cycle()
    expect(get(m.path("t")) == b"T" * 100, "a synced truncate was lost")
    with open(m.path("t"), "r+b") as f:  # shrink, regrow: the regrown part reads zeros
        f.truncate(10)
        f.truncate(5000)
        os.fsync(f.fileno())
    m.cycle()
    expect(get(m.path("t")) == b"T" * 10 + bytes(4990), "shrink + regrow + sync did not leave zeros")
    put(m.path("t"), b"O_TRUNC, unsynced")
    m.cycle()
    expect(get(m.path("t")) == b"T" * 10 + bytes(4990), "an unsynced O_TRUNC rewrite was kept")
    fd = os.open(m.path("t"), os.O_RDWR)
    os.posix_fallocate(fd, 0, 1 << 20)
    os.fsync(fd)
    os.close(fd)
    m.cycle()
    expect(os.path.getsize(m.path("t")) == 1 << 20, "a synced fallocate did not keep its size")


SQLITE_WRITER = r"""
import os, sqlite3, sys
path, mode, first, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
db = sqlite3.connect(path, isolation_level=None, timeout=30)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=" + mode)
db.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, body TEXT)")
fd = os.open(os.path.dirname(path), os.O_RDONLY); os.fsync(fd); os.close(fd)
for i in range(first, first + count):
    db.execute("BEGIN IMMEDIATE")
    db.execute("INSERT INTO t VALUES (?, ?)", (i, "x" * 300))
    db.execute("COMMIT")
print("done", flush=True)
if sys.argv[5] == "hang":
    sys.stdin.read()  # no clean close: killed while the database is open
"""


def sqlite_run(path, mode, first, count, hang):
    child = subprocess.Popen([sys.executable, "-c", SQLITE_WRITER, path, mode, str(first), str(count),
                              "hang" if hang else "exit"], stdout=subprocess.PIPE, stdin=subprocess.PIPE,
                             text=True)
    return child


def sqlite_state(path):
    db = sqlite3.connect(path)
    try:
        ok = db.execute("PRAGMA integrity_check").fetchone()[0]
        rows = db.execute("SELECT count(*) FROM t").fetchone()[0]
    finally:
        db.close()
    return ok, rows


@check("6-sqlite-wal")
def sqlite_wal(m):
    path = m.path("db.sqlite")
    n = 200
    child = sqlite_run(path, "FULL", 0, n, hang=True)
    expect(child.stdout.readline().strip() == "done", "the SQLite writer failed")
    child.kill()
    child.wait()
    m.cycle()
    ok, rows = sqlite_state(path)
    expect(ok == "ok", f"integrity_check after a cut: {ok}")
    expect(rows == n, f"synchronous=FULL: {rows} of {n} committed rows survived the cut")
    child = sqlite_run(path, "OFF", n, n, hang=True)
    expect(child.stdout.readline().strip() == "done", "the SQLite writer (synchronous=OFF) failed")
    child.kill()
    child.wait()
    m.cycle()
    ok, before = sqlite_state(path)
    expect(ok == "ok", f"integrity_check after a cut with synchronous=OFF: {ok}")
    expect(before >= n, f"synchronous=OFF lost rows committed with FULL before: {before}")
    NOTES.append(f"sqlite synchronous=OFF lost {2 * n - before} of {n} commits at the cut")
    # Two processes on one WAL database at once: fcntl locks and the shared -shm mapping.
    writers = [sqlite_run(path, "FULL", 1000 + 10000 * k, 300, hang=False) for k in range(2)]
    for w in writers:
        expect(w.stdout.readline().strip() == "done" and w.wait() == 0, "a concurrent SQLite writer failed")
    m.cycle()
    ok, rows = sqlite_state(path)
    expect(ok == "ok" and rows == before + 600, f"two concurrent writers, then a cut: integrity {ok}, "
                                                 f"{rows} rows, {before + 600} committed")


@check("7-unix-socket-on-mount")
def unix_socket(m):
    path = m.path("commit.sock")
    server = python(f"""
import socket
s = socket.socket(socket.AF_UNIX); s.bind({path!r}); s.listen(1); print("ready", flush=True)
c, _ = s.accept(); c.sendall(b"pong:" + c.recv(100)); c.close()
""")
    expect(server.stdout.readline().strip() == "ready", "the server could not bind inside the mount")
    with socket.socket(socket.AF_UNIX) as c:
        c.settimeout(10)
        c.connect(path)
        c.sendall(b"ping")
        reply = c.recv(100)
    server.wait(10)
    expect(reply == b"pong:ping", f"socket reply {reply!r}")


RECORD = struct.Struct("<IQI")  # magic, sequence number, payload length; then payload, crc32
MAGIC = 0x5043524B

WRITER = r"""
import os, random, struct, sys, zlib
path = sys.argv[1]
R = struct.Struct("<IQI")
fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
data = os.pread(fd, 1 << 30, 0)
pos, seq = 0, 0
while pos + R.size <= len(data):
    magic, s, n = R.unpack_from(data, pos)
    end = pos + R.size + n + 4
    if magic != 0x5043524B or s != seq or end > len(data) or \
       struct.unpack_from("<I", data, end - 4)[0] != zlib.crc32(data[pos:end - 4]):
        break
    pos, seq = end, seq + 1
os.ftruncate(fd, pos); os.fsync(fd)
d = os.open(os.path.dirname(path), os.O_RDONLY); os.fsync(d); os.close(d)
print("start", seq, flush=True)
while True:
    for _ in range(random.randint(1, 5)):
        payload = os.urandom(random.randint(1, 2000))
        body = R.pack(0x5043524B, seq, len(payload)) + payload
        os.pwrite(fd, body + struct.pack("<I", zlib.crc32(body)), pos)
        pos += len(body) + 4
        seq += 1
    print("wrote", seq - 1, flush=True)
    if random.random() < 0.5:  # every other batch stays unsynced for a while
        os.fsync(fd)
        print("synced", seq - 1, flush=True)
"""


def read_records(data):
    """The valid records from the start, and whether something (a torn tail) follows them."""
    pos, seq = 0, 0
    while pos + RECORD.size <= len(data):
        magic, s, n = RECORD.unpack_from(data, pos)
        end = pos + RECORD.size + n + 4
        if magic != MAGIC or s != seq or end > len(data) or \
           struct.unpack_from("<I", data, end - 4)[0] != zlib.crc32(data[pos:end - 4]):
            break
        pos, seq = end, seq + 1
    return seq, pos < len(data)


@check("8-twenty-cuts-with-a-killed-writer")
def cut_cycles(m):
    path = m.path("log")
    synced_total, torn, dropped = -1, 0, 0
    for cycle in range(20):
        child = subprocess.Popen([sys.executable, "-c", WRITER, path], stdout=subprocess.PIPE, text=True)
        lines = []
        reader = threading.Thread(target=lambda: lines.extend(child.stdout), daemon=True)
        reader.start()
        time.sleep(random.uniform(0.05, 0.4))
        child.kill()
        child.wait()
        reader.join(5)
        complete = [l.split() for l in lines if l.endswith("\n") and len(l.split()) == 2]  # not cut short
        synced = max([int(n) for word, n in complete if word == "synced"], default=-1)
        wrote = max([int(n) for word, n in complete if word == "wrote"], default=-1)
        synced_total = max(synced_total, synced)
        m.cycle()
        count, has_tail = read_records(get(path))
        expect(count - 1 >= synced_total, f"cycle {cycle}: {count} records after the cut, "
                                          f"but record {synced_total} was fsynced")
        # Unsynced records must be gone: the file ends at the last fsync that returned, or at
        # the batch whose fsync was under way at the kill (printed "wrote", not yet "synced").
        expect(count - 1 in (synced_total, wrote), f"cycle {cycle}: the file ends at record {count - 1}; "
                                                   f"last fsynced {synced_total}, last written {wrote}")
        torn += has_tail
        dropped += max(wrote, synced_total) - (count - 1)
        synced_total = count - 1
    NOTES.append(f"cut cycles: {synced_total + 1} records kept, {dropped} unsynced dropped, {torn} torn tails")


def throughput(path):
    block, total, every = os.urandom(8192), 200 << 20, 1 << 20
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    start = time.monotonic()
    for i in range(total // len(block)):
        os.write(fd, block)
        if (i + 1) * len(block) % every == 0:
            os.fsync(fd)
    os.close(fd)
    seconds = time.monotonic() - start
    os.unlink(path)
    return total / seconds / 1e6


@check("9-throughput")
def write_throughput(m):
    mounted = throughput(m.path("big"))
    direct = throughput(os.path.join(m.base, "big-on-disk"))
    NOTES.append(f"throughput (200 MB, 8 KiB writes, fsync per MB): mount {mounted:.0f} MB/s, disk {direct:.0f} MB/s")
    print(f"    mount {mounted:.1f} MB/s, disk {direct:.1f} MB/s")


class Node:
    """The model of one inode: a file's live and durable data, a directory's live and durable entries."""

    def __init__(self, kind):
        self.kind = kind
        self.data = self.durable = b""
        self.entries, self.durable_entries = {}, {}


def model_random_operations(m, journal, seed, rounds=12, steps=150):
    """Random namespace and data operations on the mount, mirrored on a model of the promised
    semantics; after each cut the mount must hold exactly what the model says is durable."""
    rng = random.Random(seed)
    if journal:
        m.unmount()
        m.options = ["--journal"]
        m.mount()
    root, counter = Node("d"), iter(range(10 ** 9))

    def walk(node=None, path=""):
        node = node or root
        for name, child in node.entries.items():
            yield os.path.join(path, name), node, name, child
            if child.kind == "d":
                yield from walk(child, os.path.join(path, name))

    def commit_all():  # journal mode: an fsync commits every directory
        if journal:
            for d in [root] + [c for _, _, _, c in walk() if c.kind == "d"]:
                d.durable_entries = dict(d.entries)

    def patch(node, offset, data):
        body = node.data.ljust(offset, b"\0")
        node.data = body[:offset] + data + body[offset + len(data):]

    def step():
        nodes = list(walk())
        files = [(p, n) for p, _, _, n in nodes if n.kind == "f"]
        dirs = [("", root)] + [(p, n) for p, _, _, n in nodes if n.kind == "d"]
        kind = rng.choices(["create", "write", "dsync", "truncate", "fsync", "fsyncdir", "rename",
                            "unlink", "mkdir", "rmdir", "link"], [8, 14, 2, 3, 8, 6, 6, 4, 3, 2, 1])[0]
        if kind in ("create", "mkdir"):
            path, d = rng.choice(dirs)
            name = f"{kind[0]}{next(counter)}"
            if kind == "create":
                os.close(os.open(m.path(path, name), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            else:
                os.mkdir(m.path(path, name))
            d.entries[name] = Node("f" if kind == "create" else "d")
        elif kind in ("write", "dsync", "truncate", "fsync") and files:
            path, f = rng.choice(files)
            fd = os.open(m.path(path), os.O_RDWR | (os.O_DSYNC if kind == "dsync" else 0))
            if kind in ("write", "dsync"):
                offset, data = rng.randint(0, len(f.data) + 50), rng.randbytes(rng.randint(1, 12000))
                os.pwrite(fd, data, offset)
                patch(f, offset, data)
            elif kind == "truncate":
                size = rng.randint(0, len(f.data) + 100)
                os.ftruncate(fd, size)
                f.data = f.data[:size].ljust(size, b"\0")
            if kind in ("dsync", "fsync"):
                if kind == "fsync":
                    (os.fsync if rng.random() < 0.5 else os.fdatasync)(fd)
                f.durable = f.data
                commit_all()
            os.close(fd)
        elif kind == "fsyncdir":
            path, d = rng.choice(dirs)
            fsync_dir(m.path(path) if path else m.mnt)
            d.durable_entries = dict(d.entries)
            commit_all()
        elif kind in ("rename", "unlink", "link") and nodes:
            path, parent, name, node = rng.choice(nodes)
            if kind == "unlink":
                if node.kind == "f":
                    os.unlink(m.path(path))
                    del parent.entries[name]
                return
            # directories move only within their directory: a directory named by two durable
            # directories would come back in just one of them, which the model does not guess
            to_path, to_dir = (os.path.dirname(path), parent) if node.kind == "d" else rng.choice(dirs)
            over = [n for n, c in to_dir.entries.items() if c.kind == "f" and c is not node]
            to_name = rng.choice(over) if node.kind == "f" and over and rng.random() < 0.4 else f"r{next(counter)}"
            if kind == "link":
                if node.kind == "f" and to_name not in to_dir.entries:
                    os.link(m.path(path), m.path(to_path, to_name))
                    to_dir.entries[to_name] = node
                return
            os.rename(m.path(path), m.path(to_path, to_name))
            del parent.entries[name]
            to_dir.entries[to_name] = node
        elif kind == "rmdir":
            empty = [(p, n) for p, _, _, n in nodes if n.kind == "d" and not n.entries]
            if empty:
                path, d = rng.choice(empty)
                os.rmdir(m.path(path))
                parent = root if not os.path.dirname(path) else next(
                    n for p, _, _, n in nodes if p == os.path.dirname(path))
                del parent.entries[os.path.basename(path)]

    def durable_tree(node, path, out, seen):
        for name, child in node.durable_entries.items():
            out[os.path.join(path, name)] = child.durable if child.kind == "f" else "dir"
            if child.kind == "d" and id(child) not in seen:
                seen.add(id(child))
                durable_tree(child, os.path.join(path, name), out, seen)
        return out

    def actual_tree():
        out = {}
        for top, dirnames, filenames in os.walk(m.mnt):
            rel = os.path.relpath(top, m.mnt)
            for d in dirnames:
                out[os.path.normpath(os.path.join(rel, d))] = "dir"
            for f in filenames:
                out[os.path.normpath(os.path.join(rel, f))] = get(os.path.join(top, f))
        return out

    def rebuild(node, memo):
        if id(node) not in memo:
            new = memo[id(node)] = Node(node.kind)
            new.data = new.durable = node.durable
            new.entries = {n: rebuild(c, memo) for n, c in node.durable_entries.items()}
            new.durable_entries = dict(new.entries)
        return memo[id(node)]

    for r in range(rounds):
        for _ in range(steps):
            step()
        if rng.random() < 0.15:
            m.unmount()  # clean: everything becomes durable
            m.mount()
            for d in [root] + [c for _, _, _, c in walk()]:
                d.durable, d.durable_entries = d.data, dict(d.entries)
            continue
        expected = durable_tree(root, "", {}, set())
        m.cycle()
        actual = actual_tree()
        if actual != expected:
            wrong = sorted(set(actual) ^ set(expected)) + sorted(
                p for p in set(actual) & set(expected) if actual[p] != expected[p])
            detail = ", ".join(f"{p}: {'missing' if p not in actual else 'unexpected' if p not in expected else 'content differs'}"
                               for p in wrong[:6])
            raise Failure(f"seed {seed}, round {r}: {len(wrong)} paths differ from the model: {detail}")
        root = rebuild(root, {})
    return rounds


def model_seeds(m, journal, seeds):
    """Each seed on a fresh state directory beside m's."""
    for seed in seeds:
        fresh = Mount(os.path.dirname(m.base))
        try:
            fresh.mount()
            model_random_operations(fresh, journal, seed)
        finally:
            fresh.close(False)


@check("model-random-operations-strict")
def model_strict(m):
    model_seeds(m, False, (1, 2, 3))


@check("model-random-operations-journal")
def model_journal(m):
    model_seeds(m, True, (11, 12))


@check("posix-what-databases-need")
def posix(m):
    put(m.path("x"), b"x")
    try:
        os.open(m.path("x"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        raise Failure("O_EXCL created over an existing file")
    except FileExistsError:
        pass
    os.symlink("x", m.path("link"))
    os.link(m.path("x"), m.path("hard"))
    put(m.path("x"), b"hard-linked", sync=True, dirsync=True)
    m.cycle()
    expect(os.readlink(m.path("link")) == "x", "a synced symlink was lost")
    expect(get(m.path("hard")) == b"hard-linked" and os.stat(m.path("hard")).st_ino == os.stat(m.path("x")).st_ino,
           "a synced hard link did not come back as one inode")
    st = os.statvfs(m.mnt)
    expect(st.f_blocks > 0 and st.f_bsize > 0, "statfs answers nothing")
    # fcntl and flock locks between processes on the mount
    probe = lambda kind: subprocess.run([sys.executable, "-c", f"""
import fcntl, sys
f = open({m.path("x")!r}, "r+")
try:
    {"fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)" if kind == "posix" else "fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)"}
except OSError:
    sys.exit(3)
"""]).returncode
    with open(m.path("x"), "r+") as f:
        fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        expect(probe("posix") == 3, "a second process got an fcntl lock held by another")
        fcntl.lockf(f, fcntl.LOCK_UN)
        expect(probe("posix") == 0, "an fcntl lock was not released")
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        expect(probe("flock") == 3, "a second process got a flock held by another")
    # shared writable mmap seen across processes (SQLite's -shm)
    put(m.path("shm"), bytes(65536))
    with open(m.path("shm"), "r+b") as f:
        mem = mmap.mmap(f.fileno(), 65536, mmap.MAP_SHARED)
        child = subprocess.run([sys.executable, "-c", f"""
import mmap
f = open({m.path("shm")!r}, "r+b"); mem = mmap.mmap(f.fileno(), 65536, mmap.MAP_SHARED)
mem[100:105] = b"hello"; mem[60000:60005] = b"world"
"""])
        expect(child.returncode == 0 and mem[100:105] == b"hello" and mem[60000:60005] == b"world",
               "a shared mapping did not see another process's stores")
        mem.close()
    # a large sparse file: 1 MiB at 5 GiB
    chunk = random.randbytes(1 << 20)
    with open(m.path("large"), "wb") as f:
        f.seek(5 << 30)
        f.write(chunk)
        os.fsync(f.fileno())
    fsync_dir(m.mnt)
    m.cycle()
    with open(m.path("large"), "rb") as f:
        f.seek(5 << 30)
        expect(f.read() == chunk and os.path.getsize(m.path("large")) == (5 << 30) + (1 << 20),
               "a large file lost its synced data")
        f.seek(3 << 30)
        expect(f.read(4096) == bytes(4096), "a hole of a large file is not zero")
    os.unlink(m.path("large"))
    # many threads writing their own files at once
    def writer(k, sums):
        data = random.randbytes(random.randint(1, 4) << 20)
        with open(m.path(f"thread{k}"), "wb") as f:
            for at in range(0, len(data), 65536):
                f.write(data[at:at + 65536])
            f.flush()
            os.fsync(f.fileno())
        sums[k] = zlib.crc32(data)
    sums = {}
    threads = [threading.Thread(target=writer, args=(k, sums)) for k in range(16)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    fsync_dir(m.mnt)
    m.cycle()
    for k, crc in sums.items():
        expect(zlib.crc32(get(m.path(f"thread{k}"))) == crc, f"thread {k}'s synced file differs after the cut")


@check("other-users-allow-other-default-permissions")
def other_users(m):
    os.mkdir(m.path("pg"), 0o700)
    os.chown(m.path("pg"), pwd_uid("postgres"), grp_gid("postgres"))
    fsync_dir(m.mnt)
    as_postgres = dict(user="postgres", group="postgres")
    # Debian's python3: the one running this may live where postgres cannot read (pyenv).
    made = subprocess.run(["/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable, "-c", f"""
import os
fd = os.open({m.path("pg", "own")!r}, os.O_CREAT | os.O_WRONLY, 0o600); os.write(fd, b"pg"); os.fsync(fd)
d = os.open({m.path("pg")!r}, os.O_RDONLY); os.fsync(d)
try:
    open({m.path("root-only")!r}, "w")
except PermissionError:
    raise SystemExit(0)
raise SystemExit(4)
"""], **as_postgres)
    expect(made.returncode == 0, f"as postgres: exit {made.returncode} (4: wrote into a root-only directory)")
    m.cycle()
    st = os.stat(m.path("pg", "own"))
    expect(st.st_uid == pwd_uid("postgres") and st.st_mode & 0o777 == 0o600 and get(m.path("pg", "own")) == b"pg",
           f"postgres's file after the cut: uid {st.st_uid}, mode {oct(st.st_mode)}")


def pwd_uid(name):
    import pwd
    return pwd.getpwnam(name).pw_uid


def grp_gid(name):
    import grp
    return grp.getgrnam(name).gr_gid


@check("journal-mode-an-fsync-commits-directory-changes")
def journal_mode(m):
    m.unmount()
    m.options = ["--journal"]
    out = m.mount()
    expect("journal" in out, f"mount --journal printed {out!r}")
    durable_file(m, "a", b"A")
    put(m.path("new"), b"synced file, directory never synced", sync=True)
    os.rename(m.path("a"), m.path("renamed"))
    put(m.path("other"), b"unsynced data, created before an fsync")
    put(m.path("trigger"), b"t", sync=True)  # commits every directory change before it
    with open(m.path("renamed"), "ab") as f:
        f.write(b"unsynced")
    os.mkdir(m.path("after"))  # after the last fsync: undone
    m.cycle()
    expect(get(m.path("new")) == b"synced file, directory never synced", "journal: an fsynced new file was lost")
    expect(get(m.path("renamed")) == b"A" and not os.path.exists(m.path("a")), "journal: a committed rename was undone")
    expect(get(m.path("other")) == b"", "journal: another file's unsynced data survived")
    expect(not os.path.exists(m.path("after")), "journal: a mkdir after the last fsync survived")


@check("clean-unmount-keeps-everything")
def clean_unmount(m):
    put(m.path("unsynced"), b"kept by a clean unmount")
    m.unmount()
    m.mount()
    expect(get(m.path("unsynced")) == b"kept by a clean unmount", "a clean unmount lost unsynced data")
    m.cycle()
    expect(get(m.path("unsynced")) == b"kept by a clean unmount", "the state after a clean remount is not durable")


@check("daemon-crash-recovers-at-next-mount")
def daemon_crash(m):
    durable_file(m, "f", b"durable")
    put(m.path("f"), b"unsynced")
    pid = int(open(os.path.join(m.state, "run", "pid")).read())
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    out = m.mount()
    expect("recovered after an unclean stop" in out, f"the mount did not recover: {out!r}")
    expect(get(m.path("f")) == b"durable", "after a daemon crash the unsynced write survived")


def main():
    global BIN
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", action="append", default=[], help="run the checks whose name holds this")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directories")
    arguments = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("powercut-fs check: run as root (it mounts a FUSE file system)")
    built = subprocess.run([os.path.join(REPO, "scripts", "powercut-fs.sh"), "build"],
                           capture_output=True, text=True)
    if built.returncode != 0:
        sys.exit(f"powercut-fs check: the build failed:\n{built.stdout}{built.stderr}")
    BIN = built.stdout.strip().splitlines()[-1]
    base = tempfile.mkdtemp(prefix="powercut-fs-check-")
    os.chmod(base, 0o755)  # postgres must reach its directory on the mount
    failed, ran = [], 0
    for name, fn in CHECKS:
        if arguments.only and not any(o in name for o in arguments.only):
            continue
        ran += 1
        m = Mount(base)
        start = time.monotonic()
        try:
            m.mount()
            fn(m)
            print(f"ok   {name} ({time.monotonic() - start:.1f} s)", flush=True)
        except Exception as e:
            failed.append(name)
            detail = str(e) if isinstance(e, Failure) else traceback.format_exc()
            print(f"FAIL {name}: {detail}", flush=True)
        finally:
            m.close(arguments.keep)
    if not arguments.keep:
        shutil.rmtree(base, ignore_errors=True)
    leftover = subprocess.run(["sh", "-c", "grep -c powercut /proc/mounts"], capture_output=True, text=True)
    if leftover.stdout.strip() not in ("", "0"):
        failed.append("cleanup")
        print("FAIL cleanup: a powercut-fs mount is left:", leftover.stdout.strip())
    notes = "; ".join(NOTES)
    print(f"powercut-fs check: {ran} checks, {ran - len(failed)} passed, {len(failed)} failed"
          f"{' (' + ', '.join(failed) + ')' if failed else ''}{'; ' + notes if notes else ''}")
    sys.exit(1 if failed or not ran else 0)


if __name__ == "__main__":
    main()
