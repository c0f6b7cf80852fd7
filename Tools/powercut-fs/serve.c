/* The daemon: mounts the file system, reports to the `mount` command that started it,
 * and serves FUSE requests with a pool of threads until the kernel ends the session. */
#define FUSE_USE_VERSION 314
#include "powercut.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* The daemon: mounts, tells the parent, serves until the kernel ends the session. */
/* Tells the `mount` command how it went (ready < 0: in the foreground, nobody waits). */
static void report(int ready, const char *msg)
{
    if (ready >= 0 && write(ready, msg, strlen(msg)) < 0)
        perror("powercut-fs: reporting to the mount command");
    if (ready >= 0)
        close(ready);
    else if (strcmp(msg, "ok"))
        fprintf(stderr, "powercut-fs: %s\n", msg);
}

void serve(const char *state, const char *mnt, int ready, int foreground)
{
    char opts[4400], msg[256] = "ok";
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    umask(0); /* the kernel applied the caller's umask already */
    signal(SIGPIPE, SIG_IGN);
    int lock = lock_file(run("daemon.lock"), 0);
    int sfd = open(run("stats"), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (lock < 0 || sfd < 0 || ftruncate(sfd, 4096) < 0)
        fmt(msg, sizeof msg, "cannot take run/daemon.lock or make run/stats");
    else if ((pc.stats = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0)) == MAP_FAILED)
        fmt(msg, sizeof msg, "mmap run/stats: %s", strerror(errno));
    else if (pc_open_dirs(state, 1) < 0 || ds_load() < 0)
        fmt(msg, sizeof msg, "cannot open the live tree or load the durable store");
    if (strcmp(msg, "ok")) {
        report(ready, msg);
        exit(1);
    }
    pc.stats->magic = PC_STATS_MAGIC;
    char pid[32];
    fmt(pid, sizeof pid, "%d\n", (int)getpid());
    int rfd = open(run_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    write_small(rfd, "pid", pid);
    fmt(opts, sizeof opts, "allow_other,default_permissions,fsname=powercut-fs:%s,subtype=powercut-fs", state);
    struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
    fuse_opt_add_arg(&args, "powercut-fs");
    fuse_opt_add_arg(&args, "-o");
    fuse_opt_add_arg(&args, opts);
    struct fuse *f = fuse_new(&args, &pc_ops, sizeof pc_ops, NULL);
    /* Marked before the mount exists: from here on, a stop without a clean unmount means
     * the live tree may hold unsynced changes, and the next mount recovers. */
    write_small(rfd, "mounted", "1\n");
    if (!f || fuse_mount(f, mnt) != 0) {
        unlink(run("mounted"));
        fmt(msg, sizeof msg, "fuse could not mount it (see run/log)");
        report(ready, msg);
        exit(1);
    }
    write_small(rfd, "mountpoint", mnt);
    if (!foreground) {
        int null = open("/dev/null", O_RDWR), log = open(run("log"), O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(null, 0), dup2(log, 1), dup2(log, 2);
        close(null), close(log);
        if (chdir("/")) {}
    }
    report(ready, msg);
    struct fuse_loop_config *cfg = fuse_loop_cfg_create();
    fuse_loop_cfg_set_max_threads(cfg, 64);
    fuse_loop_cfg_set_idle_threads(cfg, 16);
    int r = fuse_loop_mt(f, cfg);
    fuse_unmount(f);
    fuse_destroy(f);
    /* The session ended because the mount was unmounted (a SIGKILL never gets here): every
     * write reached us, so the live tree is the truth and the durable store can go. */
    int state_fd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (r == 0 && remove_tree(state_fd, "durable") == 0 && remove_tree(state_fd, "grave") == 0) {
        unlink(run("mounted"));
        unlink(run("stats"));
    }
    unlink(run("pid"));
    exit(r == 0 ? 0 : 1);
}
