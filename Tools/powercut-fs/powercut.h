/* powercut-fs: a FUSE passthrough file system that keeps, beside its live tree, a durable
 * store of exactly what would survive a power cut (strict POSIX: file data as of its last
 * fsync, directory entries as of the directory's last fsync), and can roll the live tree
 * back to it. See README.md for the design and the command-line interface. */
#ifndef POWERCUT_H
#define POWERCUT_H

#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define PC_PAGE_SHIFT 12 /* dirty tracking granularity: 4 KiB pages */
#define PC_STATS_MAGIC 0x70637374617473ULL

/* The daemon's counters, in the shared file run/stats: `cut` reads them after it killed the
 * daemon, `status` while it runs. Updated with atomic adds, no lock. */
struct pc_stats {
    uint64_t magic;
    uint64_t unsynced_files; /* inodes with data or size changes since their last fsync */
    uint64_t unsynced_pages; /* 4 KiB pages written since their inode's last fsync */
};

/* Where things are: STATE/live (the live tree), STATE/durable/{root,files,dirs},
 * STATE/grave (inodes the live tree dropped that the durable store still names), STATE/run. */
struct pc_ctx {
    char *state;
    int live_fd, files_fd, dirs_fd, grave_fd;
    struct pc_stats *stats;
    int journal; /* mount --journal: namespace changes are durable at the next fsync */
};
extern struct pc_ctx pc;

/* One directory entry as the durable store records it (and as a scan of a live directory
 * returns it). key is the live st_ino of the entry's inode at the time it was recorded. */
struct pc_dent {
    uint64_t key, rdev, size;
    uint32_t mode, uid, gid;
    int64_t mtime_sec;
    uint32_t mtime_nsec;
    char *name, *target; /* target: a symlink's, else NULL */
};
struct pc_manifest {
    uint64_t key;
    size_t n;
    struct pc_dent *e;
};

/* util.c */
void keyname(char *buf, uint64_t key);
void fmt(char *buf, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));
int copy_range(int from, int to, off_t off, off_t len);
int copy_all(int from, int to);
int remove_tree(int dirfd, const char *name);
int make_dirs(const char *path, mode_t mode);
int write_small(int dirfd, const char *name, const char *text);
int read_small(int dirfd, const char *name, char *buf, size_t size);
int lock_file(const char *path, int wait);
int pc_open_dirs(const char *state, int with_grave);
int report_users(const char *mnt);
void pc_close_dirs(void);
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* manifest.c: directory listings, on disk and in memory */
int manifest_scan(int dirfd, uint64_t key, struct pc_manifest *m);
int manifest_write(int dirs_fd, const struct pc_manifest *m);
int manifest_read(int dirs_fd, uint64_t key, struct pc_manifest *m);
void manifest_free(struct pc_manifest *m);
int store_init(const char *state, uint64_t *files, uint64_t *dirs, uint64_t *bytes);

/* dirty.c: per-inode dirty tracking and fsync into the durable store */
struct pnode;
struct pnode *pn_get(uint64_t ino);
void pn_put(struct pnode *p);
void pn_mark(struct pnode *p, uint64_t off, uint64_t len);
void pn_truncated(struct pnode *p, uint64_t size);
int pn_sync(struct pnode *p, int fd);
void pn_kill(uint64_t ino);
void pn_reset(uint64_t ino);

/* durable.c: the durable namespace (directory manifests, reference counts, the grave) */
int ds_load(void);
int ds_sync_dir(int dirfd);
void ds_new_inode(uint64_t key);
int ds_unlink(const char *rel);
int ds_rmdir(const char *rel);
int ds_rename(const char *from, const char *to, unsigned int flags);
int ds_link(const char *from, const char *to);
void ds_touch(const char *rel);
int ds_commit(void);

/* recover.c: rebuild the live tree from the durable store */
struct pc_summary {
    uint64_t unsynced_files, unsynced_bytes; /* the daemon's counters at the cut */
    uint64_t lost_files, lost_bytes;         /* live files whose inode does not come back */
    uint64_t undone_entries;                 /* entries created/renamed/removed since sync */
    uint64_t files, dirs;                    /* what the rebuilt tree holds */
};
int recover(const char *state, struct pc_summary *s);
int finish_swap(const char *state);

/* main.c, serve.c: the command line and the daemon */
extern char run_path[];
const char *run(const char *name);
void serve(const char *state, const char *mnt, int ready, int foreground) __attribute__((noreturn));

/* ops.c: the FUSE operations */
struct fuse_operations;
extern const struct fuse_operations pc_ops;

#endif
