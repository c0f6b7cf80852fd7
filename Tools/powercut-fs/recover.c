/* Recovery: rebuild the live tree from the durable store (after a cut, or a crash of the
 * daemon), so that the next mount shows exactly what the durable store holds.
 *
 * The new tree is built in STATE/recover.tmp/{live,durable} from STATE/durable alone: each
 * durable directory's entries are recreated, a regular file gets its durable content (empty
 * if it never had one), an inode named twice is hard-linked, a directory named twice (two
 * directories' states from different syncs) is made once. The new durable store keys each
 * file by its new st_ino and shares the old durable data by hard links. recover.tmp is then
 * renamed to recover.done (the commit point) and swapped in by finish_swap, which a later
 * mount repeats if it was interrupted. Owner, mode and mtime come from the live inode as it
 * was at the cut when it still existed, else from the durable entry. */
#include "powercut.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct trip {
    uint64_t dir; /* the key of the directory holding the entry */
    struct pc_dent e;
    int grave;
};
struct trips {
    struct trip *t;
    size_t n, cap;
};

/* uint64 -> uint64, open addressing; key 0 means empty (no inode is number 0). */
struct map {
    uint64_t *k, *v;
    size_t cap, n;
};

static uint64_t *map_get(struct map *m, uint64_t key)
{
    for (size_t i = key % (m->cap ? m->cap : 1); m->cap && m->k[i]; i = (i + 1) % m->cap)
        if (m->k[i] == key)
            return &m->v[i];
    return NULL;
}

static void map_put(struct map *m, uint64_t key, uint64_t val)
{
    if ((m->n + 1) * 2 > m->cap) {
        struct map g = {calloc(m->cap * 2 + 64, 8), calloc(m->cap * 2 + 64, 8), m->cap * 2 + 64, 0};
        if (!g.k || !g.v)
            abort();
        for (size_t i = 0; i < m->cap; i++)
            if (m->k[i])
                map_put(&g, m->k[i], m->v[i]);
        free(m->k);
        free(m->v);
        *m = g;
    }
    size_t i = key % m->cap;
    while (m->k[i] && m->k[i] != key)
        i = (i + 1) % m->cap;
    m->n += !m->k[i];
    m->k[i] = key;
    m->v[i] = val;
}

struct rb {
    int sfd, old_files, old_dirs, new_root, new_files, new_dirs;
    struct trips live, durable;
    struct map meta;    /* old key -> index in live: the inode as it was at the cut */
    struct map created; /* old key -> index in paths: where the rebuilt inode is */
    char **paths;
    size_t npaths;
    struct pc_summary *s;
};

static void add(struct trips *ts, uint64_t dir, const struct pc_dent *e, int grave)
{
    if (ts->n == ts->cap) {
        ts->cap = ts->cap ? ts->cap * 2 : 256;
        ts->t = realloc(ts->t, ts->cap * sizeof *ts->t);
        if (!ts->t)
            abort();
    }
    ts->t[ts->n++] = (struct trip){dir, *e, grave};
}

/* The live tree as the cut left it (names are kept: the triples own them). */
static int walk_live(struct rb *b, int dirfd, uint64_t key, int grave)
{
    struct pc_manifest m;
    int r = manifest_scan(dirfd, key, &m);
    for (size_t i = 0; !r && i < m.n; i++) {
        struct pc_dent *e = &m.e[i];
        map_put(&b->meta, e->key, b->live.n);
        add(&b->live, key, e, grave);
        if (S_ISDIR(e->mode) && !grave) {
            int sub = openat(dirfd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            r = sub < 0 ? -errno : walk_live(b, sub, e->key, 0);
            if (sub >= 0)
                close(sub);
        }
    }
    free(m.e); /* not the names: b->live has them */
    return r;
}

static int set_meta(int dirfd, const char *name, const struct pc_dent *e)
{
    struct timespec t[2] = {{e->mtime_sec, e->mtime_nsec}, {e->mtime_sec, e->mtime_nsec}};
    if (fchownat(dirfd, name, e->uid, e->gid, AT_SYMLINK_NOFOLLOW) < 0 ||
        (!S_ISLNK(e->mode) && fchmodat(dirfd, name, e->mode & 07777, 0) < 0) ||
        utimensat(dirfd, name, t, AT_SYMLINK_NOFOLLOW) < 0)
        return -errno;
    return 0;
}

static int rebuild_dir(struct rb *b, uint64_t key, int newfd, const char *path, int depth);

static int rebuild_entry(struct rb *b, const struct pc_dent *d, int newfd, const char *path,
                         int depth)
{
    uint64_t *at = map_get(&b->meta, d->key);
    struct pc_dent e = at ? b->live.t[*at].e : *d; /* owner/mode/mtime: live if still there */
    e.mode = (d->mode & S_IFMT) | (e.mode & 07777);
    char sub[8192], name[24];
    fmt(sub, sizeof sub, "%s%s%s", path, *path ? "/" : "", d->name);
    keyname(name, d->key);
    uint64_t *made = S_ISDIR(d->mode) ? NULL : map_get(&b->created, d->key);
    if (made)
        return linkat(b->new_root, b->paths[*made], newfd, d->name, 0) < 0 ? -errno : 0;
    int r = 0;
    if (S_ISREG(d->mode)) {
        int to = openat(newfd, d->name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        int from = openat(b->old_files, name, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (to < 0 || (from < 0 && errno != ENOENT))
            r = -errno;
        else if (from >= 0)
            r = copy_all(from, to);
        if (!r && fstat(to, &st) < 0)
            r = -errno;
        if (!r && from >= 0) {
            char newname[24];
            keyname(newname, st.st_ino);
            if (linkat(b->old_files, name, b->new_files, newname, 0) < 0)
                r = -errno;
        }
        if (to >= 0)
            close(to);
        if (from >= 0)
            close(from);
        b->s->files++;
    } else if (S_ISDIR(d->mode)) {
        if (map_get(&b->created, d->key) || depth > 4000)
            return 0; /* named by two durable directories: it can live in one */
        map_put(&b->created, d->key, (uint64_t)-1);
        if (mkdirat(newfd, d->name, 0700) < 0)
            return -errno;
        int fd = openat(newfd, d->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        r = fd < 0 ? -errno : rebuild_dir(b, d->key, fd, sub, depth + 1);
        if (fd >= 0)
            close(fd);
        b->s->dirs++;
    } else if (S_ISLNK(d->mode)) {
        r = symlinkat(d->target ? d->target : "", newfd, d->name) < 0 ? -errno : 0;
    } else {
        r = mknodat(newfd, d->name, d->mode & (S_IFMT | 07777), d->rdev) < 0 ? -errno : 0;
    }
    if (!r)
        r = set_meta(newfd, d->name, &e);
    if (!r && !S_ISDIR(d->mode)) {
        b->paths = realloc(b->paths, (b->npaths + 1) * sizeof *b->paths);
        b->paths[b->npaths] = strdup(sub);
        map_put(&b->created, d->key, b->npaths++);
    }
    return r;
}

static int rebuild_dir(struct rb *b, uint64_t key, int newfd, const char *path, int depth)
{
    struct pc_manifest m, now;
    struct stat st;
    int r = manifest_read(b->old_dirs, key, &m);
    for (size_t i = 0; !r && i < m.n; i++) {
        add(&b->durable, key, &m.e[i], 0);
        b->durable.t[b->durable.n - 1].e.name = strdup(m.e[i].name); /* m's go below */
        b->durable.t[b->durable.n - 1].e.target = NULL;
        r = rebuild_entry(b, &m.e[i], newfd, path, depth);
    }
    manifest_free(&m);
    /* The new manifest is the rebuilt directory as it now is: new keys, fresh metadata. */
    if (!r && fstat(newfd, &st) < 0)
        r = -errno;
    if (!r)
        r = manifest_scan(newfd, st.st_ino, &now);
    if (!r) {
        r = manifest_write(b->new_dirs, &now);
        manifest_free(&now);
    }
    return r;
}

static int trip_cmp(const void *x, const void *y)
{
    const struct trip *a = x, *b = y;
    if (a->grave != b->grave)
        return a->grave - b->grave;
    if (a->dir != b->dir)
        return a->dir < b->dir ? -1 : 1;
    int c = strcmp(a->e.name, b->e.name);
    return c ? c : (a->e.key < b->e.key ? -1 : a->e.key > b->e.key);
}

/* What the cut undid: entries that differ between the live tree and the durable tree, and
 * live files whose inode the durable tree does not have at all. */
static void summarise(struct rb *b)
{
    struct trips *l = &b->live, *d = &b->durable;
    struct map durable_keys = {0}, counted = {0};
    size_t nl = 0;
    for (size_t i = 0; i < l->n; i++)
        nl += !l->t[i].grave; /* the grave is not part of the tree: sorted after it */
    qsort(l->t, l->n, sizeof *l->t, trip_cmp);
    qsort(d->t, d->n, sizeof *d->t, trip_cmp);
    for (size_t i = 0; i < d->n; i++)
        map_put(&durable_keys, d->t[i].e.key, 1);
    for (size_t i = 0, j = 0; i < nl || j < d->n;) {
        int c = i == nl ? 1 : j == d->n ? -1 : trip_cmp(&l->t[i], &d->t[j]);
        b->s->undone_entries += c != 0;
        i += c <= 0;
        j += c >= 0;
    }
    for (size_t i = 0; i < nl; i++) {
        struct pc_dent *e = &l->t[i].e;
        if (S_ISREG(e->mode) && !map_get(&durable_keys, e->key) && !map_get(&counted, e->key)) {
            map_put(&counted, e->key, 1);
            b->s->lost_files++;
            b->s->lost_bytes += e->size;
        }
    }
    free(durable_keys.k), free(durable_keys.v), free(counted.k), free(counted.v);
}

static int open_in(int dirfd, const char *name)
{
    return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int recover(const char *state, struct pc_summary *s)
{
    struct rb b = {.s = s, .sfd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    char root[32] = "0";
    int r = b.sfd < 0 ? -errno : finish_swap(state);
    if (!r && read_small(b.sfd, "durable/root", root, sizeof root) < 0)
        r = -ENOENT; /* no durable store: nothing to go back to */
    uint64_t root_key = strtoull(root, NULL, 10);
    int old_live = open_in(b.sfd, "live"), grave = open_in(b.sfd, "grave");
    b.old_files = open_in(b.sfd, "durable/files");
    b.old_dirs = open_in(b.sfd, "durable/dirs");
    if (!r && (old_live < 0 || b.old_files < 0 || b.old_dirs < 0))
        r = -errno;
    if (!r)
        r = walk_live(&b, old_live, root_key, 0);
    if (!r && grave >= 0)
        r = walk_live(&b, grave, 0, 1);
    if (!r)
        r = remove_tree(b.sfd, "recover.tmp");
    const char *made[] = {"recover.tmp", "recover.tmp/live", "recover.tmp/durable",
                          "recover.tmp/durable/files", "recover.tmp/durable/dirs"};
    for (int i = 0; !r && i < 5; i++)
        if (mkdirat(b.sfd, made[i], 0700) < 0)
            r = -errno;
    b.new_root = open_in(b.sfd, "recover.tmp/live");
    b.new_files = open_in(b.sfd, "recover.tmp/durable/files");
    b.new_dirs = open_in(b.sfd, "recover.tmp/durable/dirs");
    if (!r && (b.new_root < 0 || b.new_files < 0 || b.new_dirs < 0))
        r = -errno;
    struct stat st;
    if (!r && (fstat(old_live, &st) < 0 || fchown(b.new_root, st.st_uid, st.st_gid) < 0 ||
               fchmod(b.new_root, st.st_mode & 07777) < 0)) /* the root keeps owner and mode */
        r = -errno;
    if (!r)
        r = rebuild_dir(&b, root_key, b.new_root, "", 0);
    if (!r && fstat(b.new_root, &st) < 0)
        r = -errno;
    if (!r) {
        int dur = open_in(b.sfd, "recover.tmp/durable");
        keyname(root, st.st_ino);
        r = dur < 0 ? -errno : write_small(dur, "root", root);
        if (dur >= 0)
            close(dur);
    }
    if (!r)
        summarise(&b);
    if (!r && renameat(b.sfd, "recover.tmp", b.sfd, "recover.done") < 0)
        r = -errno;
    if (!r)
        r = finish_swap(state);
    int fds[] = {old_live, grave, b.old_files, b.old_dirs, b.new_root, b.new_files, b.new_dirs, b.sfd};
    for (int i = 0; i < 8; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    for (size_t i = 0; i < b.live.n; i++)
        free(b.live.t[i].e.name), free(b.live.t[i].e.target);
    for (size_t i = 0; i < b.durable.n; i++)
        free(b.durable.t[i].e.name);
    for (size_t i = 0; i < b.npaths; i++)
        free(b.paths[i]);
    free(b.live.t), free(b.durable.t), free(b.paths);
    free(b.meta.k), free(b.meta.v), free(b.created.k), free(b.created.v);
    return r;
}

/* Puts a committed rebuild (recover.done) in place of live and durable, and empties the
 * grave. Each step is repeatable, so an interrupted swap is finished by the next call. */
int finish_swap(const char *state)
{
    int sfd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sfd < 0)
        return -errno;
    int r = 0;
    if (faccessat(sfd, "recover.done", F_OK, 0) == 0) {
        if (mkdirat(sfd, "trash", 0700) < 0 && errno != EEXIST)
            r = -errno;
        const char *parts[] = {"live", "durable", "grave"};
        for (int i = 0; !r && i < 3; i++) {
            char from[64], old[64];
            fmt(from, sizeof from, "recover.done/%s", parts[i]);
            fmt(old, sizeof old, "trash/%s", parts[i]);
            if (i < 2 && faccessat(sfd, from, F_OK, 0) < 0)
                continue; /* this part was swapped in already */
            if (faccessat(sfd, parts[i], F_OK, 0) == 0) {
                r = remove_tree(sfd, old);
                if (!r && renameat(sfd, parts[i], sfd, old) < 0)
                    r = -errno;
            }
            if (!r && i < 2 && renameat(sfd, from, sfd, parts[i]) < 0)
                r = -errno;
        }
        if (!r && unlinkat(sfd, "recover.done", AT_REMOVEDIR) < 0)
            r = -errno;
    }
    if (!r)
        r = remove_tree(sfd, "trash");
    if (!r && mkdirat(sfd, "grave", 0700) < 0 && errno != EEXIST)
        r = -errno;
    close(sfd);
    return r;
}
