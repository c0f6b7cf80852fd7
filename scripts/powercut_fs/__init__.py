"""The powercut-fs check as a package: importing it registers every check in CHECKS, in the order they run."""
from . import databases, files, model  # noqa: F401 (registers their checks)
from .harness import CHECKS, NOTES, Failure, Mount

ORDER = (
    "1-unsynced-writes-dropped",
    "2-create-needs-directory-fsync",
    "3-directory-fsync-without-file-fsync",
    "4-rename-unlink-mkdir-need-directory-fsync",
    "5-truncate",
    "6-sqlite-wal",
    "7-unix-socket-on-mount",
    "8-twenty-cuts-with-a-killed-writer",
    "9-throughput",
    "model-random-operations-strict",
    "model-random-operations-journal",
    "posix-what-databases-need",
    "other-users-allow-other-default-permissions",
    "journal-mode-an-fsync-commits-directory-changes",
    "clean-unmount-keeps-everything",
    "daemon-crash-recovers-at-next-mount",
)
assert sorted(name for name, _ in CHECKS) == sorted(ORDER), "ORDER must name every registered check once"
CHECKS.sort(key=lambda entry: ORDER.index(entry[0]))

__all__ = ["CHECKS", "NOTES", "Failure", "Mount", "ORDER"]
