/* What ops.c and nsops.c share: the handle behind a FUSE file handle, and the namespace
 * operations nsops.c implements for ops.c's table. */
#ifndef FUSEOPS_H
#define FUSEOPS_H

#define FUSE_USE_VERSION 314
#include "powercut.h"

#include <dirent.h>
#include <fuse.h>

struct handle {
    int fd;
    int flags;        /* as the caller opened the file */
    struct pnode *p;  /* regular files */
    DIR *d;           /* directories, once read */
};

#define H(fi) ((struct handle *)(uintptr_t)(fi)->fh)

static inline const char *rel(const char *path)
{
    return path[1] ? path + 1 : ".";
}

int created(const char *path, int fd);
int pc_readlink(const char *path, char *buf, size_t size);
int pc_mknod(const char *path, mode_t mode, dev_t rdev);
int pc_mkdir(const char *path, mode_t mode);
int pc_symlink(const char *target, const char *path);
int pc_unlink(const char *path);
int pc_rmdir(const char *path);
int pc_rename(const char *from, const char *to, unsigned int flags);
int pc_link(const char *from, const char *to);
int pc_opendir(const char *path, struct fuse_file_info *fi);
int pc_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
               struct fuse_file_info *fi, enum fuse_readdir_flags flags);
int pc_releasedir(const char *path, struct fuse_file_info *fi);
int pc_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi);

#endif
