/* Small helpers: copying file ranges, removing trees, tiny state files, locks. */
#include "powercut.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

struct pc_ctx pc = {.live_fd = -1, .files_fd = -1, .dirs_fd = -1, .grave_fd = -1};

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("powercut-fs: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* snprintf that refuses to truncate (a cut path would name the wrong file). */
void fmt(char *buf, size_t size, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(buf, size, format, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size)
        die("a path or message is too long: %.80s...", buf);
}

void keyname(char *buf, uint64_t key)
{
    snprintf(buf, 24, "%" PRIu64, key);
}

/* Copies [off, off+len) between two files at the same offsets. copy_file_range keeps the
 * data in the kernel; the pread/pwrite loop is the fallback where it is refused. */
int copy_range(int from, int to, off_t off, off_t len)
{
    off_t in = off, out = off, end = off + len;
    while (in < end) {
        ssize_t n = copy_file_range(from, &in, to, &out, (size_t)(end - in), 0);
        if (n == 0)
            return 0; /* the source got shorter meanwhile */
        if (n > 0)
            continue;
        if (errno == EINTR)
            continue;
        if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
            return -errno;
        enum { size = 1 << 20 };
        char *buf = malloc(size);
        if (!buf)
            return -ENOMEM;
        int r = 0;
        while (in < end && !r) {
            size_t want = (size_t)(end - in) < size ? (size_t)(end - in) : size;
            ssize_t got = pread(from, buf, want, in);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                r = got < 0 ? -errno : 0;
                break;
            }
            for (ssize_t done = 0; done < got && !r;) {
                ssize_t w = pwrite(to, buf + done, (size_t)(got - done), in + done);
                if (w < 0 && errno != EINTR)
                    r = -errno;
                if (w > 0)
                    done += w;
            }
            in += got;
        }
        free(buf);
        return r;
    }
    return 0;
}

/* Makes `to` a copy of `from`, keeping holes (SEEK_DATA/SEEK_HOLE): a sparse file stays sparse. */
int copy_all(int from, int to)
{
    struct stat st;
    if (fstat(from, &st) < 0 || ftruncate(to, 0) < 0 || ftruncate(to, st.st_size) < 0)
        return -errno;
    off_t pos = 0;
    while (pos < st.st_size) {
        off_t data = lseek(from, pos, SEEK_DATA);
        if (data < 0)
            return errno == ENXIO ? 0 : -errno;
        off_t hole = lseek(from, data, SEEK_HOLE);
        if (hole < 0)
            hole = st.st_size;
        int r = copy_range(from, to, data, hole - data);
        if (r < 0)
            return r;
        pos = hole;
    }
    return 0;
}

/* rm -rf of dirfd/name; a missing name is not an error. */
int remove_tree(int parent, const char *name)
{
    struct stat st;
    if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : -errno;
    if (!S_ISDIR(st.st_mode))
        return unlinkat(parent, name, 0) < 0 && errno != ENOENT ? -errno : 0;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -ENOMEM;
    }
    struct dirent *de;
    int r = 0;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && !r)
            r = remove_tree(dirfd(d), de->d_name);
    }
    closedir(d);
    if (!r && unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        r = -errno;
    return r;
}

/* mkdir -p */
int make_dirs(const char *path, mode_t mode)
{
    char buf[4096];
    fmt(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    return mkdir(buf, mode) < 0 && errno != EEXIST ? -errno : 0;
}

/* A state file of a line or two, written whole (temp + rename) so readers never see half. */
int write_small(int dirfd, const char *name, const char *text)
{
    char tmp[256];
    fmt(tmp, sizeof tmp, ".%s.tmp", name);
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    size_t len = strlen(text);
    int ok = write(fd, text, len) == (ssize_t)len;
    close(fd);
    if (!ok || renameat(dirfd, tmp, dirfd, name) < 0)
        return -EIO;
    return 0;
}

int read_small(int dirfd, const char *name, char *buf, size_t size)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0)
        return -errno;
    buf[n] = 0;
    return (int)n;
}

/* flock on a file: returns the fd holding the lock, -EWOULDBLOCK when wait is 0 and someone
 * else holds it. The lock dies with the process, which is how a killed daemon is noticed. */
int lock_file(const char *path, int wait)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
        if (errno == EINTR)
            continue;
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

/* Opens the live tree and the durable store's directories of a state directory. */
int pc_open_dirs(const char *state, int with_grave)
{
    char path[4096];
    struct {
        int *fd;
        const char *name;
    } dirs[] = {{&pc.live_fd, "live"}, {&pc.files_fd, "durable/files"},
                {&pc.dirs_fd, "durable/dirs"}, {&pc.grave_fd, "grave"}};
    for (int i = 0; i < (with_grave ? 4 : 3); i++) {
        fmt(path, sizeof path, "%s/%s", state, dirs[i].name);
        *dirs[i].fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (*dirs[i].fd < 0)
            return -errno;
    }
    return 0;
}

void pc_close_dirs(void)
{
    int *fds[] = {&pc.live_fd, &pc.files_fd, &pc.dirs_fd, &pc.grave_fd};
    for (int i = 0; i < 4; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
}

/* Processes that still have a file, a working directory or a root on the mount (same
 * st_dev): a cut is a power cut only if they are dead, or they write into the next mount.
 * Warns about up to five, returns how many there are. */
int report_users(const char *mnt)
{
    struct stat m, st;
    DIR *proc = stat(mnt, &m) == 0 ? opendir("/proc") : NULL;
    struct dirent *de;
    int n = 0;
    while (proc && (de = readdir(proc))) {
        char path[64], comm[64] = "?";
        int pid = atoi(de->d_name), uses = 0;
        if (pid <= 0 || pid == getpid())
            continue;
        const char *links[] = {"cwd", "root"};
        for (int i = 0; i < 2 && !uses; i++) {
            fmt(path, sizeof path, "/proc/%d/%s", pid, links[i]);
            uses = stat(path, &st) == 0 && st.st_dev == m.st_dev;
        }
        fmt(path, sizeof path, "/proc/%d/fd", pid);
        DIR *fds = uses ? NULL : opendir(path);
        struct dirent *fd;
        while (fds && !uses && (fd = readdir(fds))) {
            fmt(path, sizeof path, "/proc/%d/fd/%s", pid, fd->d_name);
            uses = fd->d_name[0] != '.' && stat(path, &st) == 0 && st.st_dev == m.st_dev;
        }
        if (fds)
            closedir(fds);
        if (uses && ++n <= 5) {
            int cfd = open((fmt(path, sizeof path, "/proc/%d/comm", pid), path), O_RDONLY | O_CLOEXEC);
            ssize_t len = cfd >= 0 ? read(cfd, comm, sizeof comm - 1) : -1;
            comm[len > 0 ? len - 1 : 1] = 0;
            if (cfd >= 0)
                close(cfd);
            fprintf(stderr, "powercut-fs: warning: pid %d (%s) still uses %s: kill every user "
                            "before a cut, or it may write into the next mount\n", pid, comm, mnt);
        }
    }
    if (proc)
        closedir(proc);
    return n;
}
