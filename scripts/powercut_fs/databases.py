"""The powercut-fs checks for what databases need: SQLite in WAL mode, unix sockets, POSIX features, other users."""
import fcntl
import mmap
import os
import random
import socket
import sqlite3
import subprocess
import sys
import threading
import zlib

from .harness import NOTES, Failure, check, expect, fsync_dir, get, put, python


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
