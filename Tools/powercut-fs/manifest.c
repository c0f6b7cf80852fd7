/* Directory manifests: a directory's entries (name -> inode key, type, owner, mode, symlink
 * target) as the durable store keeps them, one file per directory in durable/dirs/<key>,
 * and the full copy of the live tree that starts a durable store. */
#include "powercut.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char magic[8] = "PCFSDIR1";

/* The fixed part of an entry on disk; name and target bytes follow it. */
struct disk_dent {
    uint64_t key, rdev, size;
    uint32_t mode, uid, gid, mtime_nsec;
    int64_t mtime_sec;
    uint32_t namelen, targetlen;
};

void manifest_free(struct pc_manifest *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->e[i].name);
        free(m->e[i].target);
    }
    free(m->e);
    m->e = NULL;
    m->n = 0;
}

/* Lists a live directory as it is now. Entries that vanish while we look are skipped: the
 * callers hold the namespace lock, so only a concurrent create/mkdir can race, and such an
 * entry counts as not yet synced either way. */
int manifest_scan(int dirfd, uint64_t key, struct pc_manifest *m)
{
    m->key = key;
    m->n = 0;
    m->e = NULL;
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -ENOMEM;
    }
    size_t cap = 0;
    struct dirent *de;
    int r = 0;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        struct stat st;
        if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (m->n == cap) {
            cap = cap ? cap * 2 : 16;
            struct pc_dent *e = realloc(m->e, cap * sizeof *e);
            if (!e) {
                r = -ENOMEM;
                break;
            }
            m->e = e;
        }
        struct pc_dent *e = &m->e[m->n];
        *e = (struct pc_dent){.key = st.st_ino, .rdev = st.st_rdev, .size = (uint64_t)st.st_size,
                              .mode = st.st_mode, .uid = st.st_uid, .gid = st.st_gid,
                              .mtime_sec = st.st_mtim.tv_sec, .mtime_nsec = (uint32_t)st.st_mtim.tv_nsec};
        e->name = strdup(de->d_name);
        if (S_ISLNK(st.st_mode)) {
            char target[4097];
            ssize_t n = readlinkat(fd, de->d_name, target, sizeof target - 1);
            target[n < 0 ? 0 : n] = 0;
            e->target = strdup(target);
        }
        m->n++;
    }
    closedir(d);
    if (r)
        manifest_free(m);
    return r;
}

/* Writes durable/dirs/<key> whole: a temp file renamed over the old one. */
int manifest_write(int dirs_fd, const struct pc_manifest *m)
{
    size_t len = sizeof magic + 16;
    for (size_t i = 0; i < m->n; i++)
        len += sizeof(struct disk_dent) + strlen(m->e[i].name) +
               (m->e[i].target ? strlen(m->e[i].target) : 0);
    char *buf = malloc(len), *p = buf;
    if (!buf)
        return -ENOMEM;
    uint64_t head[2] = {m->key, m->n};
    memcpy(p, magic, sizeof magic);
    memcpy(p + sizeof magic, head, 16);
    p += sizeof magic + 16;
    for (size_t i = 0; i < m->n; i++) {
        const struct pc_dent *e = &m->e[i];
        struct disk_dent dd = {e->key, e->rdev, e->size, e->mode, e->uid, e->gid, e->mtime_nsec,
                               e->mtime_sec, (uint32_t)strlen(e->name),
                               e->target ? (uint32_t)strlen(e->target) : 0};
        memcpy(p, &dd, sizeof dd);
        p += sizeof dd;
        memcpy(p, e->name, dd.namelen);
        p += dd.namelen;
        if (dd.targetlen)
            memcpy(p, e->target, dd.targetlen);
        p += dd.targetlen;
    }
    char name[24], tmp[32];
    keyname(name, m->key);
    fmt(tmp, sizeof tmp, "%s.tmp", name);
    int r = 0, fd = openat(dirs_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
        r = -EIO;
    if (fd >= 0)
        close(fd);
    if (!r && renameat(dirs_fd, tmp, dirs_fd, name) < 0)
        r = -errno;
    free(buf);
    return r;
}

/* Reads durable/dirs/<key>; a directory that has none (made, never synced) is empty. */
int manifest_read(int dirs_fd, uint64_t key, struct pc_manifest *m)
{
    char name[24];
    keyname(name, key);
    m->key = key;
    m->n = 0;
    m->e = NULL;
    int fd = openat(dirs_fd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -errno;
    struct stat st;
    char *buf = fstat(fd, &st) == 0 ? malloc((size_t)st.st_size + 1) : NULL;
    int r = buf && read(fd, buf, (size_t)st.st_size) == st.st_size ? 0 : -EIO;
    close(fd);
    uint64_t head[2];
    if (!r && (st.st_size < (off_t)sizeof magic + 16 || memcmp(buf, magic, sizeof magic)))
        r = -EIO;
    if (!r) {
        memcpy(head, buf + sizeof magic, 16);
        m->e = calloc(head[1] ? head[1] : 1, sizeof *m->e);
        r = m->e ? 0 : -ENOMEM;
    }
    const char *p = buf + sizeof magic + 16, *end = buf + st.st_size;
    for (uint64_t i = 0; !r && i < head[1]; i++) {
        struct disk_dent dd;
        if (end - p < (ptrdiff_t)sizeof dd) {
            r = -EIO;
            break;
        }
        memcpy(&dd, p, sizeof dd);
        p += sizeof dd;
        if ((size_t)(end - p) < (size_t)dd.namelen + dd.targetlen) {
            r = -EIO;
            break;
        }
        struct pc_dent *e = &m->e[m->n++];
        *e = (struct pc_dent){.key = dd.key, .rdev = dd.rdev, .size = dd.size, .mode = dd.mode,
                              .uid = dd.uid, .gid = dd.gid, .mtime_sec = dd.mtime_sec,
                              .mtime_nsec = dd.mtime_nsec};
        e->name = strndup(p, dd.namelen);
        p += dd.namelen;
        if (S_ISLNK(dd.mode))
            e->target = strndup(p, dd.targetlen);
        p += dd.targetlen;
    }
    free(buf);
    if (r)
        manifest_free(m);
    return r;
}

struct init_count {
    uint64_t files, dirs, bytes;
};

/* Copies one live directory into the durable store under construction, recursively. */
static int init_dir(int dirfd, int files_fd, int dirs_fd, struct init_count *c)
{
    struct stat st;
    struct pc_manifest m;
    if (fstat(dirfd, &st) < 0)
        return -errno;
    int r = manifest_scan(dirfd, st.st_ino, &m);
    if (!r)
        r = manifest_write(dirs_fd, &m);
    c->dirs++;
    for (size_t i = 0; !r && i < m.n; i++) {
        struct pc_dent *e = &m.e[i];
        char name[24];
        keyname(name, e->key);
        if (S_ISREG(e->mode)) {
            /* O_EXCL: a hard-linked inode met a second time is already copied. */
            int to = openat(files_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            if (to < 0 && errno == EEXIST)
                continue;
            int from = openat(dirfd, e->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
            r = to < 0 || from < 0 ? -errno : copy_all(from, to);
            c->files++;
            c->bytes += e->size;
            if (to >= 0)
                close(to);
            if (from >= 0)
                close(from);
        } else if (S_ISDIR(e->mode)) {
            int sub = openat(dirfd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            r = sub < 0 ? -errno : init_dir(sub, files_fd, dirs_fd, c);
            if (sub >= 0)
                close(sub);
        }
    }
    manifest_free(&m);
    return r;
}

/* A new durable store: everything in the live tree counts as durable (a fresh mount of a
 * tree that was there before). Built in durable.tmp, then renamed into place. */
int store_init(const char *state, uint64_t *files, uint64_t *dirs, uint64_t *bytes)
{
    int sfd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (sfd < 0)
        return -errno;
    struct init_count c = {0, 0, 0};
    int r = remove_tree(sfd, "durable.tmp");
    if (!r && (mkdirat(sfd, "durable.tmp", 0700) < 0 || mkdirat(sfd, "durable.tmp/files", 0700) < 0 ||
               mkdirat(sfd, "durable.tmp/dirs", 0700) < 0))
        r = -errno;
    int live = openat(sfd, "live", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int files_fd = openat(sfd, "durable.tmp/files", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int dirs_fd = openat(sfd, "durable.tmp/dirs", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!r && (live < 0 || files_fd < 0 || dirs_fd < 0))
        r = -errno;
    if (!r)
        r = init_dir(live, files_fd, dirs_fd, &c);
    struct stat st;
    char root[32];
    if (!r && fstat(live, &st) < 0)
        r = -errno;
    if (!r) {
        keyname(root, st.st_ino);
        int tmp = openat(sfd, "durable.tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        r = tmp < 0 ? -errno : write_small(tmp, "root", root);
        if (tmp >= 0)
            close(tmp);
    }
    if (!r && renameat(sfd, "durable.tmp", sfd, "durable") < 0)
        r = -errno;
    int fds[] = {live, files_fd, dirs_fd, sfd};
    for (int i = 0; i < 4; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    *files = c.files;
    *dirs = c.dirs;
    *bytes = c.bytes;
    return r;
}
