// The floor under a receipt's cost: what this machine's kernel charges for the hand-offs
// and syncs a receipt needs when it crosses a pipeline of processes, with no other work
// done. A chain of processes joined by loopback TCP passes a message per receipt, each
// link one hand-off; the links named in SYNCS first write SYNC_BYTES to a file of their
// own and `fdatasync` it, as a stage's durable commit does. Paced at a rate,
// every message wakes every process; saturated (rate 0), they find messages waiting.
//
// Usage: floor HOPS RATE SECONDS [SYNCS] [SYNC_BYTES] [DIR]
//   HOPS processes after the driver; RATE messages a second (0: as fast as they go);
//   SYNCS a comma list of the links (1-based) that sync; SYNC_BYTES written per sync.
// Prints the chain's own CPU per message (its processes' runtime, exact) and the machine's by
// /proc/stat's busy ticks (sampled, and below saturation in step with the pacing: see
// docs/benchmarks.md), with the machine's context switches per message.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MESSAGE = 1024, FILE_SPAN = 8 << 20, MOST = 64 };

static void fail(const char *what) { perror(what); exit(1); }

static void full_write(int fd, const void *buf, size_t n) {
  for (const char *p = buf; n > 0;) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) fail("write");
    p += w; n -= (size_t)w;
  }
}

static int full_read(int fd, void *buf, size_t n) {
  for (char *p = buf; n > 0;) {
    ssize_t r = read(fd, p, n);
    if (r == 0) return 0;
    if (r < 0) fail("read");
    p += r; n -= (size_t)r;
  }
  return 1;
}

static int listener(int *port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (bind(fd, (void *)&a, sizeof a) || listen(fd, 1) || getsockname(fd, (void *)&a, &len)) fail("listen");
  *port = ntohs(a.sin_port);
  return fd;
}

static int connect_to(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (connect(fd, (void *)&a, sizeof a)) fail("connect");
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// Busy and total jiffies of the whole machine (steal apart: the host's, not ours), and its
// context switches so far.
static void machine(long long *busy, long long *total, long long *steal, long long *switches) {
  FILE *f = fopen("/proc/stat", "r");
  char line[512];
  long long v[10] = {0};
  *switches = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "cpu ", 4))
      sscanf(line + 4, "%lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
    if (!strncmp(line, "ctxt ", 5)) *switches = atoll(line + 5);
  }
  fclose(f);
  *total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
  *steal = v[7];
  *busy = *total - v[3] - v[4] - v[7];
}

// One link: reads each message from `in`, syncs if asked, passes it to `out` (-1: the last).
// Whatever else is already waiting goes with it, one sync for all, as a group commit.
static void link_run(int in, int out, int sync_fd, size_t sync_bytes) {
  char *msgs = malloc(MESSAGE * MOST);
  char *page = sync_fd >= 0 ? calloc(MOST, sync_bytes) : NULL;
  off_t at = 0;
  while (full_read(in, msgs, MESSAGE)) {
    int count = 1, waiting = 0;
    ioctl(in, FIONREAD, &waiting);
    for (; count < MOST && waiting >= MESSAGE; count++, waiting -= MESSAGE) full_read(in, msgs + count * MESSAGE, MESSAGE);
    if (sync_fd >= 0) {
      size_t bytes = sync_bytes * (size_t)count;
      if (at + (off_t)bytes > FILE_SPAN) at = 0;  // a WAL starts over after a checkpoint
      if (pwrite(sync_fd, page, bytes, at) != (ssize_t)bytes) fail("pwrite");
      at += (off_t)bytes;
      if (fdatasync(sync_fd)) fail("fdatasync");
    }
    if (out >= 0) full_write(out, msgs, (size_t)MESSAGE * count);
  }
  exit(0);
}

static double cpu_ms(const struct rusage *u) {
  return (u->ru_utime.tv_sec + u->ru_stime.tv_sec) * 1e3 + (u->ru_utime.tv_usec + u->ru_stime.tv_usec) / 1e3;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: floor HOPS RATE SECONDS [SYNCS] [SYNC_BYTES] [DIR]\n");
    return 2;
  }
  int hops = atoi(argv[1]);
  double rate = atof(argv[2]), seconds = atof(argv[3]);
  const char *syncs = argc > 4 ? argv[4] : "";
  size_t sync_bytes = argc > 5 ? (size_t)atol(argv[5]) : 36 * 1024;
  const char *dir = argc > 6 ? argv[6] : ".";
  long messages = rate > 0 ? (long)(rate * seconds) : 20000;
  if (hops < 1 || hops > 64 || messages < 1 || sync_bytes < 1 || sync_bytes > FILE_SPAN / MOST) {
    fprintf(stderr, "floor: HOPS 1-64, RATE and SECONDS giving at least one message, SYNC_BYTES 1-%d\n", FILE_SPAN / MOST);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);  // a link that failed is reported by the write to it, not a silent end

  // The synced links' files, written once ahead as a reused WAL is (a sync then carries no
  // size change), before anything is measured.
  int sync_fd[65];
  char list[256];
  snprintf(list, sizeof list, ",%s,", syncs);
  char *zero = calloc(1, FILE_SPAN);
  for (int i = 1; i <= hops; i++) {
    char key[16], path[512];
    snprintf(key, sizeof key, ",%d,", i);
    sync_fd[i] = -1;
    if (!strstr(list, key)) continue;
    snprintf(path, sizeof path, "%s/floor-%d-%d.wal", dir, (int)getpid(), i);
    if ((sync_fd[i] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0) fail(path);
    unlink(path);
    full_write(sync_fd[i], zero, FILE_SPAN);
    if (fsync(sync_fd[i])) fail("fsync");
  }

  // Each link listens; the one before it (or the driver) connects.
  int in_port[65], listen_fd[65];
  for (int i = 1; i <= hops; i++) listen_fd[i] = listener(&in_port[i]);
  pid_t pids[65];
  for (int i = 1; i <= hops; i++) {
    if ((pids[i] = fork()) == 0) {
      int in = accept(listen_fd[i], NULL, NULL);
      int out = i < hops ? connect_to(in_port[i + 1]) : -1;
      link_run(in, out, sync_fd[i], sync_bytes);
    }
  }
  int first = connect_to(in_port[1]);
  sleep(1);  // every link connected and waiting

  long long busy0, total0, steal0, sw0, busy1, total1, steal1, sw1;
  struct rusage setup;
  getrusage(RUSAGE_SELF, &setup);
  char msg[MESSAGE] = {0};
  struct timespec start, due;
  clock_gettime(CLOCK_MONOTONIC, &start);
  machine(&busy0, &total0, &steal0, &sw0);
  for (long n = 0; n < messages; n++) {
    if (rate > 0) {
      double at = n / rate;
      due = start;
      due.tv_sec += (time_t)at;
      due.tv_nsec += (long)((at - (long)at) * 1e9);
      if (due.tv_nsec >= 1000000000) { due.tv_sec++; due.tv_nsec -= 1000000000; }
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL);
    }
    full_write(first, msg, MESSAGE);
  }
  close(first);
  for (int i = 1; i <= hops; i++) {
    int status = 0;
    waitpid(pids[i], &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "floor: link %d failed\n", i); return 1; }
  }
  machine(&busy1, &total1, &steal1, &sw1);
  struct timespec end;
  clock_gettime(CLOCK_MONOTONIC, &end);
  double elapsed = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
  double jiffy_ms = 1000.0 / sysconf(_SC_CLK_TCK);
  // The chain's own processes, counted exactly (the scheduler's runtime), not by the tick.
  struct rusage self, children;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  double own_ms = cpu_ms(&self) - cpu_ms(&setup) + cpu_ms(&children);
  printf("hops %d, syncs [%s] of %zu bytes, %ld messages in %.2f s (%.0f/s): "
         "the chain's processes %.3f ms CPU a message (their runtime); "
         "the machine %.3f by /proc/stat's ticks (sampled; %.3f stolen), %.1f context switches, %.0f %% busy\n",
         hops, syncs, sync_bytes, messages, elapsed, messages / elapsed,
         own_ms / messages, (busy1 - busy0) * jiffy_ms / messages, (steal1 - steal0) * jiffy_ms / messages, (double)(sw1 - sw0) / messages,
         100.0 * (busy1 - busy0) / (double)(total1 - total0));
  return 0;
}
