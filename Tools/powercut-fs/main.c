/* powercut-fs: the command line. mount (recover if needed, daemonise, return once the mount
 * answers), cut (simulated power cut), unmount (clean), status. See README.md. */
#include "powercut.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define FUSE_SUPER_MAGIC 0x65735546

char run_path[4200];

/* STATE/run/<name>; one buffer per thread, valid until the next call. */
const char *run(const char *name)
{
    static __thread char buf[4200];
    fmt(buf, sizeof buf, "%s/%s", run_path, name);
    return buf;
}

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* The daemon holds run/daemon.lock for its whole life: whether it is alive is whether the
 * lock is free, which cannot be fooled by a reused pid. Returns its pid, or 0. */
static pid_t daemon_pid(void)
{
    int fd = lock_file(run("daemon.lock"), 0);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    char buf[32];
    int dfd = open(run_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    pid_t pid = dfd >= 0 && read_small(dfd, "pid", buf, sizeof buf) > 0 ? (pid_t)atoi(buf) : -1;
    if (dfd >= 0)
        close(dfd);
    return pid;
}

static int wait_daemon_gone(int seconds)
{
    for (int i = 0; i < seconds * 100; i++) {
        if (!daemon_pid())
            return 0;
        usleep(10000);
    }
    return -1;
}

static void print_summary(const char *what, const struct pc_summary *s)
{
    printf("powercut-fs: %s: dropped unsynced_files=%" PRIu64 " unsynced_bytes=%" PRIu64
           " lost_files=%" PRIu64 " lost_bytes=%" PRIu64 " undone_entries=%" PRIu64
           "; kept files=%" PRIu64 " dirs=%" PRIu64 "\n",
           what, s->unsynced_files, s->unsynced_bytes, s->lost_files, s->lost_bytes,
           s->undone_entries, s->files, s->dirs);
    fflush(stdout);
}

static void read_stats(struct pc_summary *s)
{
    struct pc_stats st;
    int fd = open(run("stats"), O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && read(fd, &st, sizeof st) == sizeof st && st.magic == PC_STATS_MAGIC) {
        s->unsynced_files = st.unsynced_files;
        s->unsynced_bytes = st.unsynced_pages << PC_PAGE_SHIFT;
    }
    if (fd >= 0)
        close(fd);
}

/* Detaches what is left of this state directory's mount at mnt (a dead daemon's mount
 * answers ENOTCONN), and nothing else: /proc/self/mountinfo must show our source there. */
static void detach(const char *mnt, const char *state)
{
    char line[12288], want_mnt[8192], want_src[8192];
    int found = 1;
    /* mountinfo escapes blanks and backslashes as \ooo; the state path has none (prepare) */
    size_t j = 0;
    for (const char *p = mnt; *p && j < sizeof want_mnt - 5; p++)
        j += strchr(" \t\n\\", *p) ? (size_t)sprintf(want_mnt + j, "\\%03o", *p) : (want_mnt[j] = *p, 1);
    want_mnt[j] = 0;
    fmt(want_src, sizeof want_src, "powercut-fs:%s", state);
    while (found) {
        found = 0;
        FILE *f = fopen("/proc/self/mountinfo", "r");
        while (f && fgets(line, sizeof line, f)) {
            char point[8192], type[256], src[8192];
            char *dash = strstr(line, " - ");
            if (!dash || sscanf(line, "%*s %*s %*s %*s %8191s", point) != 1 ||
                sscanf(dash + 3, "%255s %8191s", type, src) != 2)
                continue;
            if (!strcmp(point, want_mnt) && !strcmp(type, "fuse.powercut-fs") && !strcmp(src, want_src))
                found = 1;
        }
        if (f)
            fclose(f);
        if (found && umount2(mnt, MNT_DETACH) < 0) {
            fprintf(stderr, "powercut-fs: detaching %s: %s\n", mnt, strerror(errno));
            return;
        }
    }
}

static int recorded_mountpoint(char *buf, size_t size)
{
    int dfd = open(run_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int n = dfd >= 0 ? read_small(dfd, "mountpoint", buf, size) : -1;
    if (dfd >= 0)
        close(dfd);
    return n > 0 ? 0 : -1;
}

/* Rebuilds the live tree from the durable store after a cut or an unclean stop. */
static void recover_now(const char *state, struct pc_summary *s, const char *what)
{
    int r = recover(state, s);
    if (r == -ENOENT)
        fprintf(stderr, "powercut-fs: %s: no durable store; the live tree stays as it is\n", state);
    else if (r < 0)
        die("recovering %s: %s", state, strerror(-r));
    unlink(run("mounted"));
    unlink(run("stats"));
    unlink(run("pid"));
    if (r == 0)
        print_summary(what, s);
}

static void prepare(const char *arg, char *state)
{
    if (make_dirs(arg, 0755) < 0)
        die("cannot make %s: %s", arg, strerror(errno));
    if (!realpath(arg, state))
        die("%s: %s", arg, strerror(errno));
    fmt(run_path, sizeof run_path, "%s/run", state);
    if (mkdir(run_path, 0755) < 0 && errno != EEXIST)
        die("cannot make %s: %s", run_path, strerror(errno));
    if (strpbrk(state, ", \t\n\\"))
        die("%s: the state directory's path must not hold commas, blanks or backslashes "
            "(it is part of the mount's options)", state);
}

static int cmd_mount(const char *state_arg, const char *mnt_arg, int foreground)
{
    char state[4096], mnt[4096], dir[4200];
    prepare(state_arg, state);
    int cli = lock_file(run("lock"), 1);
    pid_t pid = daemon_pid();
    if (pid)
        die("%s is mounted already (daemon pid %d)", state, (int)pid);
    if (finish_swap(state) < 0)
        die("%s: cannot finish an interrupted recovery", state);
    fmt(dir, sizeof dir, "%s/live", state);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        die("cannot make %s: %s", dir, strerror(errno));
    char old[4096];
    if (recorded_mountpoint(old, sizeof old) == 0)
        detach(old, state);
    if (make_dirs(mnt_arg, 0755) < 0 && errno != ENOTCONN)
        die("cannot make %s: %s", mnt_arg, strerror(errno));
    if (!realpath(mnt_arg, mnt)) {
        if (errno != ENOTCONN)
            die("%s: %s", mnt_arg, strerror(errno));
        detach(mnt_arg, state);
        if (!realpath(mnt_arg, mnt))
            die("%s: %s", mnt_arg, strerror(errno));
    }
    struct pc_summary s = {0};
    if (exists(run("mounted"))) {
        read_stats(&s);
        recover_now(state, &s, "recovered after an unclean stop");
    }
    fmt(dir, sizeof dir, "%s/durable", state);
    if (!exists(dir)) {
        uint64_t files, dirs, bytes;
        int sfd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int r = sfd < 0 ? -errno : remove_tree(sfd, "grave"); /* a fresh store names nothing there */
        if (!r && mkdirat(sfd, "grave", 0700) < 0)
            r = -errno;
        if (sfd >= 0)
            close(sfd);
        if (!r)
            r = store_init(state, &files, &dirs, &bytes);
        if (r < 0)
            die("making the durable store of %s: %s", state, strerror(-r));
        printf("powercut-fs: durable store initialised from %s/live: files=%" PRIu64 " dirs=%" PRIu64
               " bytes=%" PRIu64 "\n", state, files, dirs, bytes);
        fflush(stdout);
    }
    int pipefd[2];
    if (pipe(pipefd) < 0)
        die("pipe: %s", strerror(errno));
    pid = foreground ? 0 : fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        close(cli); /* the child must not inherit the command's lock */
        close(pipefd[0]);
        if (!foreground)
            setsid();
        else
            printf("powercut-fs: serving %s/live on %s in the foreground\n", state, mnt), fflush(stdout);
        serve(state, mnt, foreground ? -1 : pipefd[1], foreground);
    }
    close(pipefd[1]);
    char msg[256] = {0};
    if (read(pipefd[0], msg, sizeof msg - 1) <= 0 || strcmp(msg, "ok"))
        die("mount of %s on %s failed: %s", state, mnt, msg[0] ? msg : "the daemon died");
    /* Usable means answering: statfs waits for the kernel's INIT to be served. */
    struct statfs fs;
    if (statfs(mnt, &fs) < 0 || fs.f_type != FUSE_SUPER_MAGIC)
        die("%s does not answer as a FUSE mount after mounting", mnt);
    printf("powercut-fs: mounted %s/live on %s (pid %d, %s)\n", state, mnt, (int)pid,
           pc.journal ? "journal: an fsync commits all directory changes" : "strict");
    return 0;
}

static int cmd_cut(const char *state_arg)
{
    char state[4096], mnt[4096];
    if (!realpath(state_arg, state))
        die("%s: %s", state_arg, strerror(errno));
    fmt(run_path, sizeof run_path, "%s/run", state);
    lock_file(run("lock"), 1);
    struct pc_summary s = {0};
    pid_t pid = daemon_pid();
    int have_mnt = recorded_mountpoint(mnt, sizeof mnt) == 0;
    if (pid > 0 && have_mnt)
        report_users(mnt);
    if (pid > 0)
        kill(pid, SIGKILL); /* the power goes: nothing the daemon holds in memory survives */
    if (pid && wait_daemon_gone(30) < 0)
        die("the daemon (pid %d) did not die within 30 s", (int)pid);
    read_stats(&s);
    if (have_mnt)
        detach(mnt, state);
    if (!exists(run("mounted"))) {
        printf("powercut-fs: cut %s: not mounted; nothing to drop\n", state);
        return 0;
    }
    char what[4200];
    fmt(what, sizeof what, "cut %s", state);
    recover_now(state, &s, what);
    return 0;
}

static int cmd_unmount(const char *state_arg, const char *mnt_arg)
{
    char state[4096], mnt[4096];
    if (!realpath(state_arg, state))
        die("%s: %s", state_arg, strerror(errno));
    fmt(run_path, sizeof run_path, "%s/run", state);
    lock_file(run("lock"), 1);
    if (mnt_arg)
        fmt(mnt, sizeof mnt, "%s", mnt_arg);
    else if (recorded_mountpoint(mnt, sizeof mnt) < 0)
        die("%s: no mount point recorded; name it", state);
    if (!daemon_pid()) {
        detach(mnt, state);
        if (exists(run("mounted")))
            die("%s: the daemon is not running (it died); the next mount recovers from the durable store", state);
        printf("powercut-fs: %s is not mounted\n", state);
        return 0;
    }
    if (umount2(mnt, 0) < 0)
        die("unmounting %s: %s%s", mnt, strerror(errno),
            errno == EBUSY ? " (stop the processes that use it, or cut)" : "");
    if (wait_daemon_gone(120) < 0)
        die("the daemon did not exit within 120 s after the unmount");
    if (exists(run("mounted")))
        die("the daemon did not finish cleanly (see %s); the next mount recovers", run("log"));
    printf("powercut-fs: unmounted %s: clean shutdown, all data kept in %s/live\n", mnt, state);
    return 0;
}

static int cmd_status(const char *state_arg)
{
    char state[4096], mnt[4096] = "?";
    if (!realpath(state_arg, state))
        die("%s: %s", state_arg, strerror(errno));
    fmt(run_path, sizeof run_path, "%s/run", state);
    pid_t pid = daemon_pid();
    struct pc_summary s = {0};
    recorded_mountpoint(mnt, sizeof mnt);
    read_stats(&s);
    if (pid)
        printf("powercut-fs: %s: mounted on %s (pid %d): unsynced_files=%" PRIu64 " unsynced_bytes=%" PRIu64 "\n",
               state, mnt, (int)pid, s.unsynced_files, s.unsynced_bytes);
    else
        printf("powercut-fs: %s: not mounted%s\n", state,
               exists(run("mounted")) ? "; the last run did not stop cleanly (the next mount recovers)" : "");
    return 0;
}

static void usage(void)
{
    fputs("usage: powercut-fs mount [-f] [--journal] STATE_DIR MOUNTPOINT\n"
          "       powercut-fs cut STATE_DIR\n"
          "       powercut-fs unmount STATE_DIR [MOUNTPOINT]\n"
          "       powercut-fs status STATE_DIR\n", stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    int fg = 0, i = 2;
    if (argc < 3)
        usage();
    const char *cmd = argv[1];
    for (; i < argc && argv[i][0] == '-' && !strcmp(cmd, "mount"); i++) {
        if (!strcmp(argv[i], "-f"))
            fg = 1;
        else if (!strcmp(argv[i], "--journal"))
            pc.journal = 1;
        else
            usage();
    }
    int n = argc - i;
    char **a = argv + i;
    if (!strcmp(cmd, "mount") && n == 2)
        return cmd_mount(a[0], a[1], fg);
    if (!strcmp(cmd, "cut") && n == 1)
        return cmd_cut(a[0]);
    if (!strcmp(cmd, "unmount") && (n == 1 || n == 2))
        return cmd_unmount(a[0], n == 2 ? a[1] : NULL);
    if (!strcmp(cmd, "status") && n == 1)
        return cmd_status(a[0]);
    usage();
}
