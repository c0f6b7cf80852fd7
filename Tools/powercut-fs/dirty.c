/* Per-inode dirty tracking. Every write marks its 4 KiB pages in a bitmap kept per live inode
 * (st_ino); truncate, O_TRUNC and fallocate mark a size change. fsync copies just the dirty
 * pages and the size into durable/files/<ino>. Locks: a striped lock for the inode table, a
 * per-inode lock for the bitmap (held only to mark or to take the bitmap), a per-inode sync
 * lock so that two fsyncs of one inode do not overlap; no lock is held across data I/O
 * except the sync lock over the copy, which only other fsyncs of that inode wait on. */
#include "powercut.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pnode {
    uint64_t ino;
    struct pnode *next;
    int refs;                   /* open handles and callers in flight (under the table lock) */
    pthread_mutex_t lock;       /* guards the dirty state below */
    pthread_mutex_t sync_lock;  /* one sync at a time, and dfd */
    uint64_t *bits;             /* dirty pages */
    size_t nwords;
    uint64_t ndirty;            /* bits set */
    uint64_t trunc_low;         /* lowest size truncated to since the last sync, or UINT64_MAX */
    int changed;                /* anything to sync (pages or size) */
    int dead;                   /* the inode left the namespace for good: nothing to sync */
    int dfd;                    /* durable/files/<ino>, opened by the first sync */
};

#define NBUCKETS 4096
#define NLOCKS 64
static struct pnode *table[NBUCKETS];
static pthread_mutex_t table_locks[NLOCKS] = {[0 ... NLOCKS - 1] = PTHREAD_MUTEX_INITIALIZER};

static pthread_mutex_t *lock_of(uint64_t ino)
{
    return &table_locks[(ino % NBUCKETS) % NLOCKS];
}

enum { FILES, PAGES };
static void count(int which, int64_t delta)
{
    if (pc.stats && delta)
        __atomic_add_fetch(which == FILES ? &pc.stats->unsynced_files : &pc.stats->unsynced_pages,
                           (uint64_t)delta, __ATOMIC_RELAXED);
}

struct pnode *pn_get(uint64_t ino)
{
    pthread_mutex_t *l = lock_of(ino);
    pthread_mutex_lock(l);
    struct pnode *p = table[ino % NBUCKETS];
    while (p && p->ino != ino)
        p = p->next;
    if (!p && (p = calloc(1, sizeof *p))) {
        p->ino = ino;
        p->trunc_low = UINT64_MAX;
        p->dfd = -1;
        pthread_mutex_init(&p->lock, NULL);
        pthread_mutex_init(&p->sync_lock, NULL);
        p->next = table[ino % NBUCKETS];
        table[ino % NBUCKETS] = p;
    }
    if (p)
        p->refs++;
    pthread_mutex_unlock(l);
    return p;
}

/* The last reference gone: a clean (or dead) inode is forgotten; a dirty one keeps its
 * bitmap for a later open + fsync, but not its durable fd. */
void pn_put(struct pnode *p)
{
    if (!p)
        return;
    pthread_mutex_t *l = lock_of(p->ino);
    pthread_mutex_lock(l);
    if (--p->refs > 0) {
        pthread_mutex_unlock(l);
        return;
    }
    if (p->dfd >= 0)
        close(p->dfd);
    p->dfd = -1;
    pthread_mutex_lock(&p->lock);
    int keep = p->changed && !p->dead;
    pthread_mutex_unlock(&p->lock);
    if (!keep) {
        struct pnode **pp = &table[p->ino % NBUCKETS];
        while (*pp != p)
            pp = &(*pp)->next;
        *pp = p->next;
    }
    pthread_mutex_unlock(l);
    if (!keep) {
        free(p->bits);
        pthread_mutex_destroy(&p->lock);
        pthread_mutex_destroy(&p->sync_lock);
        free(p);
    }
}

/* Drops the dirty state (under p->lock) and takes it out of the counters. */
static void clear_locked(struct pnode *p)
{
    if (p->changed)
        count(FILES, -1);
    count(PAGES, -(int64_t)p->ndirty);
    free(p->bits);
    p->bits = NULL;
    p->nwords = 0;
    p->ndirty = 0;
    p->trunc_low = UINT64_MAX;
    p->changed = 0;
}

/* Ors pages into p's bitmap (under p->lock), growing it as needed. */
static void merge_locked(struct pnode *p, const uint64_t *bits, uint64_t firstword, size_t nwords)
{
    size_t need = (size_t)firstword + nwords;
    if (need > p->nwords) {
        size_t n = p->nwords * 2 > need ? p->nwords * 2 : need;
        uint64_t *grown = realloc(p->bits, n * sizeof *grown);
        if (!grown)
            abort(); /* out of memory: better to stop than to forget dirty pages */
        memset(grown + p->nwords, 0, (n - p->nwords) * sizeof *grown);
        p->bits = grown;
        p->nwords = n;
    }
    uint64_t added = 0;
    for (size_t i = 0; i < nwords; i++) {
        uint64_t *w = &p->bits[firstword + i];
        added += (uint64_t)__builtin_popcountll(bits[i] & ~*w);
        *w |= bits[i];
    }
    p->ndirty += added;
    count(PAGES, (int64_t)added);
    if (!p->changed) {
        p->changed = 1;
        count(FILES, 1);
    }
}

void pn_mark(struct pnode *p, uint64_t off, uint64_t len)
{
    if (!p || !len)
        return;
    uint64_t first = off >> PC_PAGE_SHIFT, last = (off + len - 1) >> PC_PAGE_SHIFT;
    uint64_t w0 = first >> 6, w1 = last >> 6;
    uint64_t small[4], *bits = w1 - w0 < 4 ? small : malloc((w1 - w0 + 1) * sizeof *bits);
    if (!bits)
        abort();
    for (uint64_t w = w0; w <= w1; w++) {
        uint64_t lo = w == w0 ? first & 63 : 0, hi = w == w1 ? last & 63 : 63;
        bits[w - w0] = (hi == 63 ? ~0ULL : (1ULL << (hi + 1)) - 1) & ~((1ULL << lo) - 1);
    }
    pthread_mutex_lock(&p->lock);
    if (!p->dead)
        merge_locked(p, bits, w0, (size_t)(w1 - w0 + 1));
    pthread_mutex_unlock(&p->lock);
    if (bits != small)
        free(bits);
}

void pn_truncated(struct pnode *p, uint64_t size)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    if (!p->dead) {
        if (size < p->trunc_low)
            p->trunc_low = size;
        if (!p->changed) {
            p->changed = 1;
            count(FILES, 1);
        }
    }
    pthread_mutex_unlock(&p->lock);
}

/* Brings durable/files/<ino> up to the live file: first down to the lowest size it was
 * truncated to (so that a shrink + regrow leaves zeros, as live has), then to the live size,
 * then the dirty pages below that size. */
static int copy_out(struct pnode *p, int fd, const uint64_t *bits, size_t nwords, uint64_t low)
{
    struct stat st, dst;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (p->dfd < 0) {
        char name[24];
        keyname(name, p->ino);
        p->dfd = openat(pc.files_fd, name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (p->dfd < 0)
            return -errno;
    }
    if (fstat(p->dfd, &dst) < 0)
        return -errno;
    uint64_t size = (uint64_t)st.st_size, dsize = (uint64_t)dst.st_size;
    if (low < dsize) {
        if (ftruncate(p->dfd, (off_t)low) < 0)
            return -errno;
        dsize = low;
    }
    if (size != dsize && ftruncate(p->dfd, (off_t)size) < 0)
        return -errno;
    size_t npages = nwords * 64, i = 0;
    while (i < npages) {
        if (!(i & 63) && !bits[i >> 6]) {
            i += 64;
            continue;
        }
        if (!((bits[i >> 6] >> (i & 63)) & 1)) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < npages && ((bits[j >> 6] >> (j & 63)) & 1))
            j++;
        uint64_t from = (uint64_t)i << PC_PAGE_SHIFT, to = (uint64_t)j << PC_PAGE_SHIFT;
        if (to > size)
            to = size;
        if (from < to) {
            int r = copy_range(fd, p->dfd, (off_t)from, (off_t)(to - from));
            if (r < 0)
                return r;
        }
        i = j;
    }
    return 0;
}

/* fsync/fdatasync (and O_SYNC/O_DSYNC writes): the bitmap is swapped out under the lock, so
 * writes go on during the copy and mark a fresh bitmap. fd is any open fd of the inode. */
int pn_sync(struct pnode *p, int fd)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->sync_lock);
    pthread_mutex_lock(&p->lock);
    if (!p->changed || p->dead) {
        pthread_mutex_unlock(&p->lock);
        pthread_mutex_unlock(&p->sync_lock);
        return 0;
    }
    uint64_t *bits = p->bits, ndirty = p->ndirty, low = p->trunc_low;
    size_t nwords = p->nwords;
    p->bits = NULL;
    p->nwords = 0;
    p->ndirty = 0;
    p->trunc_low = UINT64_MAX;
    p->changed = 0;
    pthread_mutex_unlock(&p->lock);
    count(FILES, -1);
    count(PAGES, -(int64_t)ndirty);

    int r = copy_out(p, fd, bits, nwords, low);
    if (r < 0) {
        /* Not durable after all: put the pages back so that a retry copies them. */
        pthread_mutex_lock(&p->lock);
        if (!p->dead) {
            merge_locked(p, bits, 0, nwords);
            if (low < p->trunc_low)
                p->trunc_low = low;
        }
        pthread_mutex_unlock(&p->lock);
    }
    free(bits);
    pthread_mutex_unlock(&p->sync_lock);
    return r;
}

/* The inode left the namespace (dead = 1: unlinked for good; its durable data is being
 * deleted) or its number was just given to a new inode (dead = 0): no old state may leak. */
void pn_kill(uint64_t ino)
{
    struct pnode *p = pn_get(ino);
    if (!p)
        return;
    pthread_mutex_lock(&p->sync_lock);
    pthread_mutex_lock(&p->lock);
    clear_locked(p);
    p->dead = 1;
    pthread_mutex_unlock(&p->lock);
    if (p->dfd >= 0)
        close(p->dfd);
    p->dfd = -1;
    pthread_mutex_unlock(&p->sync_lock);
    pn_put(p);
}

void pn_reset(uint64_t ino)
{
    pn_kill(ino);
    struct pnode *p = pn_get(ino);
    if (p) {
        pthread_mutex_lock(&p->lock);
        p->dead = 0;
        pthread_mutex_unlock(&p->lock);
        pn_put(p);
    }
}
