/* The FUSE namespace operations: creating nodes (owned by the caller), unlink, rmdir,
 * rename and link (durable.c decides what the grave must keep), and directories: listing
 * and fsyncdir, which makes a directory's entries durable. */
#include "fuseops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A new node belongs to the caller (the daemon runs as root); on a setgid directory the
 * disk already gave it the directory's group, which stays. */
static int own(int dirfd, const char *name, int fd)
{
    struct fuse_context *c = fuse_get_context();
    struct stat st;
    if ((fd >= 0 ? fstat(fd, &st) : fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) < 0)
        return -errno;
    gid_t gid = st.st_gid != getegid() ? st.st_gid : c->gid;
    if (c->uid != st.st_uid || gid != st.st_gid) {
        int r = fd >= 0 ? fchown(fd, c->uid, gid)
                        : fchownat(dirfd, name, c->uid, gid, AT_SYMLINK_NOFOLLOW);
        /* chown clears set-id bits even for root: put them back. */
        if (!r && (st.st_mode & (S_ISUID | S_ISGID)) && !S_ISDIR(st.st_mode))
            r = fd >= 0 ? fchmod(fd, st.st_mode & 07777) : fchmodat(dirfd, name, st.st_mode & 07777, 0);
        if (r < 0)
            return -errno;
    }
    ds_new_inode(st.st_ino);
    return 0;
}

/* A new node: owned by the caller, and (journal mode) its directory has changed. */
int created(const char *path, int fd)
{
    int r = own(pc.live_fd, rel(path), fd);
    if (!r)
        ds_touch(rel(path));
    return r;
}

/* The rest pass through to the live tree; unlink, rmdir, rename and link go through
 * durable.c, which keeps in the grave what the durable store still names. */
int pc_readlink(const char *path, char *buf, size_t size)
{
    ssize_t n = readlinkat(pc.live_fd, rel(path), buf, size - 1);
    if (n < 0)
        return -errno;
    buf[n] = 0;
    return 0;
}

int pc_mknod(const char *path, mode_t mode, dev_t rdev)
{
    if (mknodat(pc.live_fd, rel(path), mode, rdev) < 0)
        return -errno;
    return created(path, -1);
}

int pc_mkdir(const char *path, mode_t mode)
{
    if (mkdirat(pc.live_fd, rel(path), mode) < 0)
        return -errno;
    return created(path, -1);
}

int pc_symlink(const char *target, const char *path)
{
    if (symlinkat(target, pc.live_fd, rel(path)) < 0)
        return -errno;
    return created(path, -1);
}

int pc_unlink(const char *path)
{
    return ds_unlink(rel(path));
}

int pc_rmdir(const char *path)
{
    return ds_rmdir(rel(path));
}

int pc_rename(const char *from, const char *to, unsigned int flags)
{
    return ds_rename(rel(from), rel(to), flags);
}

int pc_link(const char *from, const char *to)
{
    return ds_link(rel(from), rel(to));
}

int pc_opendir(const char *path, struct fuse_file_info *fi)
{
    int fd = openat(pc.live_fd, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct handle *h = calloc(1, sizeof *h);
    if (!h) {
        close(fd);
        return -ENOMEM;
    }
    h->fd = fd;
    fi->fh = (uintptr_t)h;
    return 0;
}

/* All entries at once (offset 0): the library buffers them and serves the kernel's reads. */
int pc_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
               struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    (void)path, (void)off, (void)flags;
    struct handle *h = H(fi);
    if (!h->d) {
        int fd = openat(h->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || !(h->d = fdopendir(fd))) {
            if (fd >= 0)
                close(fd);
            return -errno;
        }
    } else {
        rewinddir(h->d);
    }
    struct dirent *de;
    while ((de = readdir(h->d))) {
        struct stat st = {.st_ino = de->d_ino, .st_mode = DTTOIF(de->d_type)};
        if (fill(buf, de->d_name, &st, 0, 0))
            break;
    }
    return 0;
}

int pc_releasedir(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    struct handle *h = H(fi);
    if (h->d)
        closedir(h->d);
    close(h->fd);
    free(h);
    return 0;
}

int pc_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path, (void)datasync;
    int r = ds_sync_dir(H(fi)->fd);
    return r ? r : ds_commit();
}
