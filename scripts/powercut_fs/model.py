"""The model-based random checks of powercut-fs: random operations mirrored on a model of the durability rules."""
import os
import random

from .harness import Failure, Mount, check, fsync_dir, get


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
