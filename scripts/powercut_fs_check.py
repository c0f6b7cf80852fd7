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
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the powercut_fs package beside this file
from powercut_fs import CHECKS, NOTES, Failure, Mount, harness  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
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
    harness.BIN = built.stdout.strip().splitlines()[-1]  # what Mount runs
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
    # Only this run's mounts: a chaos run may hold volumes of its own meanwhile.
    with open("/proc/mounts") as mounts:
        leftover = [line.split()[1] for line in mounts if "powercut" in line and line.split()[1].startswith(base)]
    if leftover:
        failed.append("cleanup")
        print("FAIL cleanup: a powercut-fs mount is left:", ", ".join(leftover))
    notes = "; ".join(NOTES)
    print(f"powercut-fs check: {ran} checks, {ran - len(failed)} passed, {len(failed)} failed"
          f"{' (' + ', '.join(failed) + ')' if failed else ''}{'; ' + notes if notes else ''}")
    sys.exit(1 if failed or not ran else 0)


if __name__ == "__main__":
    main()
