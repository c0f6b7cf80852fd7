"""The file and namespace checks of powercut-fs: durability rules, cut cycles, throughput, journal mode, remounts."""
import os
import random
import signal
import struct
import subprocess
import sys
import threading
import time
import zlib

from .harness import NOTES, check, durable_file, expect, fsync_dir, get, put


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
