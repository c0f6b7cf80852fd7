/* The FUSE operations: a passthrough to STATE/live (path-relative *at() calls on the live
 * root's fd, pread/pwrite on a live fd per open handle) that tells dirty.c about every data
 * change and durable.c about every namespace change. Locks (fcntl, flock) are not
 * implemented on purpose: the kernel then keeps them itself, per mount, which serves every
 * process on the mount. */
#include "fuseops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* The flags for the live fd: O_APPEND is dropped because the kernel already turned it into
 * an offset, O_SYNC/O_DSYNC/O_DIRECT because durability is ours to model (and the real disk
 * need not sync), and a write-only open reads too, so that fsync can copy from it. */
static int live_flags(int flags)
{
    flags &= ~(O_CREAT | O_EXCL | O_APPEND | O_SYNC | O_DSYNC | O_DIRECT | O_NOCTTY);
    if ((flags & O_ACCMODE) == O_WRONLY)
        flags = (flags & ~O_ACCMODE) | O_RDWR;
    return flags | O_CLOEXEC;
}

static int attach(int fd, struct fuse_file_info *fi, int truncated)
{
    struct stat st;
    struct handle *h = calloc(1, sizeof *h);
    if (!h || fstat(fd, &st) < 0) {
        int e = h ? errno : ENOMEM;
        free(h);
        close(fd);
        return -e;
    }
    h->fd = fd;
    h->flags = fi->flags;
    h->p = S_ISREG(st.st_mode) ? pn_get(st.st_ino) : NULL;
    if (truncated)
        pn_truncated(h->p, 0);
    fi->fh = (uintptr_t)h;
    fi->keep_cache = 1; /* only this mount changes the live tree, and a cut ends the mount */
    return 0;
}

static int pc_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    int r = fi ? fstat(H(fi)->fd, st) : fstatat(pc.live_fd, rel(path), st, AT_SYMLINK_NOFOLLOW);
    return r < 0 ? -errno : 0;
}

static int pc_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    int r = fi ? fchmod(H(fi)->fd, mode) : fchmodat(pc.live_fd, rel(path), mode, 0);
    return r < 0 ? -errno : 0;
}

static int pc_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    int r = fi ? fchown(H(fi)->fd, uid, gid)
               : fchownat(pc.live_fd, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW);
    return r < 0 ? -errno : 0;
}

static int pc_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    if (fi) {
        if (ftruncate(H(fi)->fd, size) < 0)
            return -errno;
        pn_truncated(H(fi)->p, (uint64_t)size);
        return 0;
    }
    struct stat st;
    int fd = openat(pc.live_fd, rel(path), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int r = ftruncate(fd, size) < 0 || fstat(fd, &st) < 0 ? -errno : 0;
    if (!r) {
        struct pnode *p = pn_get(st.st_ino);
        pn_truncated(p, (uint64_t)size);
        pn_put(p);
    }
    close(fd);
    return r;
}

static int pc_open(const char *path, struct fuse_file_info *fi)
{
    int fd = openat(pc.live_fd, rel(path), live_flags(fi->flags));
    if (fd < 0)
        return -errno;
    return attach(fd, fi, fi->flags & O_TRUNC);
}

static int pc_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    int fd = openat(pc.live_fd, rel(path), live_flags(fi->flags) | O_CREAT | O_EXCL, mode);
    if (fd < 0 && errno == EEXIST && !(fi->flags & O_EXCL))
        return pc_open(path, fi); /* another process created it first */
    if (fd < 0)
        return -errno;
    int r = created(path, fd);
    if (r < 0) {
        close(fd);
        unlinkat(pc.live_fd, rel(path), 0);
        return r;
    }
    return attach(fd, fi, 0);
}

static int pc_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    size_t got = 0;
    while (got < size) {
        ssize_t n = pread(H(fi)->fd, buf + got, size - got, off + (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return got ? (int)got : -errno;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (int)got;
}

static int pc_write(const char *path, const char *buf, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)path;
    struct handle *h = H(fi);
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(h->fd, buf + done, size - done, off + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            if (!done)
                return -errno;
            break;
        }
        done += (size_t)n;
    }
    /* Marked after the data is in the live file: a concurrent fsync either copies it or
     * leaves it marked for the next one. */
    pn_mark(h->p, (uint64_t)off, done);
    if (h->flags & O_DSYNC) { /* O_SYNC includes O_DSYNC: durable on return */
        int r = pn_sync(h->p, h->fd);
        if (!r)
            r = ds_commit();
        if (r < 0)
            return r;
    }
    return (int)done;
}

static int pc_statfs(const char *path, struct statvfs *st)
{
    (void)path;
    return fstatvfs(pc.live_fd, st) < 0 ? -errno : 0;
}

static int pc_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    struct handle *h = H(fi);
    close(h->fd);
    pn_put(h->p);
    free(h);
    return 0;
}

static int pc_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path, (void)datasync; /* fdatasync: the size is data here, so the same copy */
    int r = pn_sync(H(fi)->p, H(fi)->fd);
    return r ? r : ds_commit();
}

static int pc_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    int r = fi ? futimens(H(fi)->fd, tv) : utimensat(pc.live_fd, rel(path), tv, AT_SYMLINK_NOFOLLOW);
    return r < 0 ? -errno : 0;
}

static int pc_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
    (void)path;
    if (fallocate(H(fi)->fd, mode, off, len) < 0)
        return -errno;
    pn_mark(H(fi)->p, (uint64_t)off, (uint64_t)len); /* zeros or holes: data all the same */
    return 0;
}

/* Cache choices: attributes and entries may be cached (only this mount changes the live
 * tree); page-cache data is kept across opens (keep_cache) and never invalidated behind the
 * kernel's back; no writeback cache, so every write reaches the daemon before write()
 * returns and a cut cannot be outrun by dirty kernel pages; no direct_io, so shared mmap
 * works (SQLite's -shm). A cut always ends the mount, and the cache with it. */
static void *pc_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
    cfg->use_ino = 1;
    cfg->readdir_ino = 1;
    cfg->hard_remove = 1; /* unlink for real; open handles keep working through their fd */
    cfg->nullpath_ok = 1;
    cfg->kernel_cache = 1;
    cfg->auto_cache = 0;
    cfg->direct_io = 0;
    cfg->entry_timeout = cfg->attr_timeout = cfg->negative_timeout = 1.0;
    conn->max_write = 1 << 20;
    conn->max_readahead = 1 << 20;
    conn->max_background = 64;
    conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
    return NULL;
}

const struct fuse_operations pc_ops = {
    .init = pc_init,
    .getattr = pc_getattr,
    .readlink = pc_readlink,
    .mknod = pc_mknod,
    .mkdir = pc_mkdir,
    .symlink = pc_symlink,
    .unlink = pc_unlink,
    .rmdir = pc_rmdir,
    .rename = pc_rename,
    .link = pc_link,
    .chmod = pc_chmod,
    .chown = pc_chown,
    .truncate = pc_truncate,
    .open = pc_open,
    .create = pc_create,
    .read = pc_read,
    .write = pc_write,
    .statfs = pc_statfs,
    .release = pc_release,
    .fsync = pc_fsync,
    .opendir = pc_opendir,
    .readdir = pc_readdir,
    .releasedir = pc_releasedir,
    .fsyncdir = pc_fsyncdir,
    .utimens = pc_utimens,
    .fallocate = pc_fallocate,
};
