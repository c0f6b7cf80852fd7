"""The harness of the powercut-fs check: Failure, expect, Mount, file helpers and the check registry."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

BIN = None  # the powercut-fs binary, set by the entry point once it is built
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
