/* The durable namespace while mounted: every directory's durable entries (loaded from
 * durable/dirs at start, replaced by each fsyncdir), a count per inode key of the durable
 * entries naming it, and the grave.
 *
 * Keys are live st_ino numbers, which the disk reuses once an inode is freed. An inode the
 * live tree drops while a durable entry still names it (unlink, rmdir, rename over it, all
 * without a directory fsync yet) is therefore moved or linked into STATE/grave/<key>
 * instead of freed: its number cannot be reused while a cut could still bring it back. It
 * is freed when the last durable entry naming it goes (a later fsyncdir), or at the next
 * recovery. All namespace changes that drop or add links, and fsyncdir, run under one
 * mutex; data I/O never takes it. */
#include "powercut.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t ns = PTHREAD_MUTEX_INITIALIZER;

struct dnode {
    uint64_t key;
    int refs;              /* durable entries naming this inode */
    int in_grave;          /* grave/<key> holds it (a directory if grave_dir) */
    int grave_dir;
    struct pc_manifest *m; /* a directory's durable entries */
    struct dnode *next;
};

#define DBUCKETS 16384
static struct dnode *dtab[DBUCKETS];

static struct dnode *dn_find(uint64_t key, int create)
{
    struct dnode **pp = &dtab[key % DBUCKETS];
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->key == key)
            return *pp;
    if (!create)
        return NULL;
    struct dnode *d = calloc(1, sizeof *d);
    if (!d)
        abort();
    d->key = key;
    *pp = d;
    return d;
}

static void dn_maybe_free(struct dnode *d)
{
    if (!d || d->refs > 0 || d->in_grave || d->m)
        return;
    struct dnode **pp = &dtab[d->key % DBUCKETS];
    while (*pp != d)
        pp = &(*pp)->next;
    *pp = d->next;
    free(d);
}

static int refs_of(uint64_t key)
{
    struct dnode *d = dn_find(key, 0);
    return d ? d->refs : 0;
}

static void drop_refs(struct pc_manifest *m);

/* The inode `key` is gone for good: its durable data and manifest go too. */
static void forget(uint64_t key)
{
    char name[24];
    keyname(name, key);
    pn_kill(key);
    unlinkat(pc.files_fd, name, 0);
    struct dnode *d = dn_find(key, 0);
    if (d && d->m) {
        unlinkat(pc.dirs_fd, name, 0);
        struct pc_manifest *m = d->m;
        d->m = NULL;
        drop_refs(m);
        manifest_free(m);
        free(m);
    }
    dn_maybe_free(d);
}

/* Frees a grave inode no durable entry names any more. */
static void collect(struct dnode *d)
{
    if (!d || d->refs > 0)
        return;
    if (d->in_grave) {
        char name[24];
        keyname(name, d->key);
        unlinkat(pc.grave_fd, name, d->grave_dir ? AT_REMOVEDIR : 0);
        d->in_grave = 0;
        forget(d->key);
        return;
    }
    dn_maybe_free(d);
}

static void drop_refs(struct pc_manifest *m)
{
    for (size_t i = 0; i < m->n; i++) {
        struct dnode *c = dn_find(m->e[i].key, 0);
        if (c) {
            c->refs--;
            collect(c);
        }
    }
}

static void install(uint64_t key, struct pc_manifest *m)
{
    struct dnode *d = dn_find(key, 1);
    for (size_t i = 0; i < m->n; i++)
        dn_find(m->e[i].key, 1)->refs++;
    struct pc_manifest *old = d->m;
    d->m = m;
    if (old) {
        drop_refs(old);
        manifest_free(old);
        free(old);
    }
}

/* At start: every manifest of the durable store, and the counts they imply. */
int ds_load(void)
{
    int fd = openat(pc.dirs_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d)
        return -errno;
    struct dirent *de;
    int r = 0;
    while (!r && (de = readdir(d))) {
        char *end;
        uint64_t key = strtoull(de->d_name, &end, 10);
        if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end)
            continue; /* ".", "..", a temp file */
        struct pc_manifest *m = malloc(sizeof *m);
        r = m ? manifest_read(pc.dirs_fd, key, m) : -ENOMEM;
        if (!r)
            install(key, m);
    }
    closedir(d);
    return r;
}

/* fsyncdir: the directory's entries as they are now become its durable entries. */
static int sync_dir_locked(int dirfd)
{
    struct stat st;
    if (fstat(dirfd, &st) < 0)
        return -errno;
    struct pc_manifest *m = malloc(sizeof *m);
    if (!m)
        return -ENOMEM;
    int r = manifest_scan(dirfd, st.st_ino, m);
    if (!r)
        r = manifest_write(pc.dirs_fd, m);
    if (!r)
        install(st.st_ino, m);
    else
        free(m);
    return r;
}

int ds_sync_dir(int dirfd)
{
    pthread_mutex_lock(&ns);
    int r = sync_dir_locked(dirfd);
    pthread_mutex_unlock(&ns);
    return r;
}

/* Journal mode (mount --journal): the directories changed since the last fsync of anything,
 * each held open (so a rename of it does not lose it), all synced by the next fsync. */
static struct {
    uint64_t key;
    int fd;
} *touched;
static size_t ntouched, touched_cap;

static void touch_locked(const char *rel)
{
    if (!pc.journal)
        return;
    char parent[4096];
    const char *slash = strrchr(rel, '/');
    fmt(parent, sizeof parent, "%.*s", slash ? (int)(slash - rel) : 1, slash ? rel : ".");
    struct stat st;
    int fd = openat(pc.live_fd, parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    for (size_t i = 0; i < ntouched; i++)
        if (touched[i].key == st.st_ino) {
            close(fd);
            return;
        }
    if (ntouched == touched_cap) {
        touched_cap = touched_cap ? touched_cap * 2 : 16;
        touched = realloc(touched, touched_cap * sizeof *touched);
        if (!touched)
            abort();
    }
    touched[ntouched].key = st.st_ino;
    touched[ntouched++].fd = fd;
}

void ds_touch(const char *rel)
{
    pthread_mutex_lock(&ns);
    touch_locked(rel);
    pthread_mutex_unlock(&ns);
}

/* Journal mode: an fsync commits every namespace change made before it, as a journaling
 * file system's commit does. Directories removed meanwhile have nothing left to commit. */
int ds_commit(void)
{
    if (!pc.journal)
        return 0;
    int r = 0;
    pthread_mutex_lock(&ns);
    for (size_t i = 0; i < ntouched; i++) {
        struct stat st;
        if (!r && fstat(touched[i].fd, &st) == 0 && st.st_nlink > 0)
            r = sync_dir_locked(touched[i].fd);
        close(touched[i].fd);
    }
    ntouched = 0;
    pthread_mutex_unlock(&ns);
    return r;
}

/* A new inode (create, mkdir, mknod, symlink) got `key`: whatever the store had under that
 * number belongs to a freed inode nothing durable names, and must not leak into this one. */
void ds_new_inode(uint64_t key)
{
    pthread_mutex_lock(&ns);
    struct dnode *d = dn_find(key, 0);
    if (d && (d->refs > 0 || d->in_grave))
        fprintf(stderr, "powercut-fs: new inode %llu is still named by the durable store\n",
                (unsigned long long)key);
    else
        forget(key);
    pn_reset(key);
    pthread_mutex_unlock(&ns);
}

static int bury(const char *rel, uint64_t key, int isdir, int by_link)
{
    char name[24];
    keyname(name, key);
    int r = by_link ? linkat(pc.live_fd, rel, pc.grave_fd, name, 0)
                    : renameat(pc.live_fd, rel, pc.grave_fd, name);
    if (r < 0)
        return -errno;
    struct dnode *d = dn_find(key, 1);
    d->in_grave = 1;
    d->grave_dir = isdir;
    return 0;
}

static void unbury(const char *rel, uint64_t key, int by_link)
{
    char name[24];
    keyname(name, key);
    if (by_link)
        unlinkat(pc.grave_fd, name, 0);
    else
        renameat(pc.grave_fd, name, pc.live_fd, rel);
    struct dnode *d = dn_find(key, 0);
    if (d) {
        d->in_grave = 0;
        dn_maybe_free(d);
    }
}

static int is_empty_dir(const char *rel)
{
    int fd = openat(pc.live_fd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    struct dirent *de;
    int empty = 1;
    while (empty && (de = readdir(d)))
        empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
    closedir(d);
    return empty;
}

int ds_unlink(const char *rel)
{
    struct stat st;
    int r = 0;
    pthread_mutex_lock(&ns);
    if (fstatat(pc.live_fd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
        r = -errno;
    else if (S_ISDIR(st.st_mode))
        r = -EISDIR;
    else if (st.st_nlink == 1 && refs_of(st.st_ino) > 0)
        r = bury(rel, st.st_ino, 0, 0);
    else if (unlinkat(pc.live_fd, rel, 0) < 0)
        r = -errno;
    else if (st.st_nlink == 1)
        forget(st.st_ino);
    if (!r)
        touch_locked(rel);
    pthread_mutex_unlock(&ns);
    return r;
}

int ds_rmdir(const char *rel)
{
    struct stat st;
    int r = 0;
    pthread_mutex_lock(&ns);
    if (fstatat(pc.live_fd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
        r = -errno;
    else if (!S_ISDIR(st.st_mode))
        r = -ENOTDIR;
    else if (refs_of(st.st_ino) > 0)
        r = is_empty_dir(rel) ? bury(rel, st.st_ino, 1, 0) : -ENOTEMPTY;
    else if (unlinkat(pc.live_fd, rel, AT_REMOVEDIR) < 0)
        r = -errno;
    else
        forget(st.st_ino);
    if (!r)
        touch_locked(rel);
    pthread_mutex_unlock(&ns);
    return r;
}

/* rename. Over an existing file that a durable entry names, the target is first hard-linked
 * into the grave, so the rename itself stays one atomic renameat2 on the live tree. Over an
 * empty directory the durable store names, the directory is moved to the grave first (two
 * steps: the one non-atomic case; databases do not rename over directories). */
int ds_rename(const char *from, const char *to, unsigned int flags)
{
    struct stat src, dst;
    int r = 0;
    pthread_mutex_lock(&ns);
    if ((flags & RENAME_EXCHANGE) || fstatat(pc.live_fd, to, &dst, AT_SYMLINK_NOFOLLOW) < 0) {
        r = renameat2(pc.live_fd, from, pc.live_fd, to, flags) < 0 ? -errno : 0;
    } else if (fstatat(pc.live_fd, from, &src, AT_SYMLINK_NOFOLLOW) < 0) {
        r = -errno;
    } else if (src.st_ino == dst.st_ino) {
        r = renameat2(pc.live_fd, from, pc.live_fd, to, flags) < 0 ? -errno : 0;
    } else if (flags & RENAME_NOREPLACE) {
        r = -EEXIST;
    } else if (S_ISDIR(src.st_mode) != S_ISDIR(dst.st_mode)) {
        r = S_ISDIR(dst.st_mode) ? -EISDIR : -ENOTDIR;
    } else {
        int isdir = S_ISDIR(dst.st_mode), dies = isdir || dst.st_nlink == 1;
        int keep = dies && refs_of(dst.st_ino) > 0 && (!isdir || is_empty_dir(to));
        if (keep)
            r = bury(to, dst.st_ino, isdir, !isdir);
        if (!r && renameat2(pc.live_fd, from, pc.live_fd, to, flags) < 0) {
            r = -errno;
            if (keep)
                unbury(to, dst.st_ino, !isdir);
        } else if (!r && dies && !keep) {
            forget(dst.st_ino);
        }
    }
    if (!r) {
        touch_locked(from);
        touch_locked(to);
    }
    pthread_mutex_unlock(&ns);
    return r;
}

int ds_link(const char *from, const char *to)
{
    pthread_mutex_lock(&ns);
    int r = linkat(pc.live_fd, from, pc.live_fd, to, 0) < 0 ? -errno : 0;
    if (!r)
        touch_locked(to);
    pthread_mutex_unlock(&ns);
    return r;
}
