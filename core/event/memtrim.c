/* SPDX-License-Identifier: MIT */
#include "memtrim.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "macros.h"

/* Requests of this size and more get mappings of their own (returned to the kernel on free);
 * the top of the heap is given back once this much of it is free. Fixed values also stop
 * glibc from raising the mmap threshold after the first large free, which would put later
 * large buffers on the heap for good. */
#define LARGE_REQUEST (64 * 1024)

int memtrim_configure(void)
{
        /* fastbins keep small free chunks apart from the free lists until a consolidation:
         * with none, a freed chunk merges with its neighbours at once */
        if (mallopt(M_MXFAST, 0) != 1 || mallopt(M_TRIM_THRESHOLD, LARGE_REQUEST) != 1 ||
            mallopt(M_MMAP_THRESHOLD, LARGE_REQUEST) != 1)
                return -EINVAL;
        return 0;
}

bool memtrim_tuned(void)
{
        const char *t = getenv("GLIBC_TUNABLES");
        return t && strstr(t, "glibc.malloc.tcache_count");
}

int memtrim_exec_tuned(char **argv)
{
        if (memtrim_tuned())
                return 0;
        const char *preload = getenv("LD_PRELOAD");
        if (preload && strstr(preload, "vgpreload"))
                return 0; /* valgrind: exec would run the program without it */

        const char *old = getenv("GLIBC_TUNABLES");
        _cleanup_free_ char *saved = old ? strdup(old) : NULL, *value = NULL;
        if ((old && !saved) || asprintf(&value, "%s%s%s", strempty(old), isempty(old) ? "" : ":", MEMTRIM_TUNABLE) < 0)
                return -ENOMEM;
        if (setenv("GLIBC_TUNABLES", value, 1) < 0)
                return negative_errno();
        /* Every library bound at start-up, before the start-up trim: one that is bound lazily
         * (libnl-3 is) looks each symbol up at its first call, through the symbol tables of
         * every library, and brings those tables back into memory after the trim dropped
         * them. Children do not inherit it: they get the event's environment. */
        bool bind_set = !getenv("LD_BIND_NOW");
        if (bind_set && setenv("LD_BIND_NOW", "1", 1) < 0)
                return negative_errno();
        execv("/proc/self/exe", argv);
        int r = negative_errno();
        if (saved)
                (void)setenv("GLIBC_TUNABLES", saved, 1);
        else
                (void)unsetenv("GLIBC_TUNABLES");
        if (bind_set)
                (void)unsetenv("LD_BIND_NOW");
        return r;
}

struct range {
        unsigned long start, end;
};

struct ranges {
        struct range *v;
        size_t n, cap;
};

static int ranges_add(struct ranges *r, unsigned long start, unsigned long end)
{
        if (r->n == r->cap) {
                size_t cap = r->cap ? r->cap * 2 : 64;
                struct range *v = reallocarray(r->v, cap, sizeof(*v));
                if (!v)
                        return -ENOMEM;
                r->v = v;
                r->cap = cap;
        }
        r->v[r->n++] = (struct range){start, end};
        return 0;
}

/* How much of the stack below the caller's frame stays: the frames of the calls that drop
 * the rest (madvise() itself) live there. */
#define STACK_KEEP (64 * 1024)

/* /proc/self/smaps read line by line with read() into a buffer that grows for a long line.
 * Not stdio and sscanf(): their code is not otherwise used after start-up, and the trim
 * would fault it in (a few hundred KiB with the kernel's fault-around) only to drop it again,
 * making itself the daemon's peak. */
struct line_reader {
        int fd;
        char *buf;
        size_t cap, start, end;
        bool eof;
};

/* 1 with the next line in *ret (NUL-terminated, no newline), 0 at the end, -errno. */
static int next_line(struct line_reader *lr, char **ret)
{
        for (;;) {
                char *nl = lr->end > lr->start ? memchr(lr->buf + lr->start, '\n', lr->end - lr->start) : NULL;
                if (nl || (lr->eof && lr->start < lr->end)) {
                        char *line = lr->buf + lr->start;
                        if (!nl)
                                nl = lr->buf + lr->end; /* the last line, without a newline */
                        *nl = '\0';
                        lr->start = (size_t)(nl - lr->buf) + 1;
                        if (lr->start > lr->end)
                                lr->start = lr->end;
                        *ret = line;
                        return 1;
                }
                if (lr->eof)
                        return 0;
                if (lr->start > 0) {
                        memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
                        lr->end -= lr->start;
                        lr->start = 0;
                }
                if (lr->end + 1 >= lr->cap) {
                        size_t cap = lr->cap ? lr->cap * 2 : 4096;
                        char *b = realloc(lr->buf, cap);
                        if (!b)
                                return -ENOMEM;
                        lr->buf = b;
                        lr->cap = cap;
                }
                ssize_t n = read(lr->fd, lr->buf + lr->end, lr->cap - lr->end - 1); /* room for a NUL */
                if (n < 0 && errno != EINTR)
                        return negative_errno();
                if (n == 0)
                        lr->eof = true;
                else if (n > 0)
                        lr->end += (size_t)n;
        }
}

/* A number in base 16 or 10 at *p, which moves past it; false when there is none or it does
 * not fit 64 bits. */
static bool take_number(const char **p, unsigned base, uint64_t *ret)
{
        uint64_t v = 0;
        const char *s = *p;
        for (;; s++) {
                unsigned d;
                if (*s >= '0' && *s <= '9')
                        d = (unsigned)(*s - '0');
                else if (base == 16 && *s >= 'a' && *s <= 'f')
                        d = (unsigned)(*s - 'a' + 10);
                else
                        break;
                if (v > (UINT64_MAX - d) / base)
                        return false;
                v = v * base + d;
        }
        if (s == *p)
                return false;
        *p = s;
        *ret = v;
        return true;
}

bool memtrim_parse_mapping(const char *line, unsigned long *start, unsigned long *end, char perms[static 5],
                           uint64_t *inode, const char **path)
{
        const char *p = line;
        uint64_t s, e, ignored;
        if (!take_number(&p, 16, &s) || *p++ != '-' || !take_number(&p, 16, &e) || *p++ != ' ')
                return false;
        /* An address no pointer of this program can hold is no mapping of its own: a 32-bit
         * program under qemu-user reads the 64-bit emulator's smaps, whose truncated addresses
         * would name the program's own memory. */
        if ((unsigned long)s != s || (unsigned long)e != e)
                return false;
        for (int i = 0; i < 4; i++) {
                if (!*p)
                        return false;
                perms[i] = *p++;
        }
        perms[4] = '\0';
        if (*p++ != ' ' || !take_number(&p, 16, &ignored) || *p++ != ' ' || !take_number(&p, 16, &ignored) ||
            *p++ != ':' || !take_number(&p, 16, &ignored) || *p++ != ' ' || !take_number(&p, 10, inode))
                return false;
        while (*p == ' ')
                p++;
        *start = (unsigned long)s;
        *end = (unsigned long)e;
        *path = p;
        return true;
}

/* Collects the mappings whose pages can be dropped: file-backed and not writable, and either
 * shared or private without a private copy of any page (relocated RELRO data is read-only
 * too, but its pages differ from the file and must stay); and the part of the stack deeper
 * than STACK_KEEP below stack_now, which no live frame uses (a deep call during a storm would
 * otherwise keep its pages resident for good). */
static int collect(struct ranges *out, unsigned long stack_now)
{
        struct line_reader lr = {.fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC)};
        unsigned long start = 0, end = 0;
        bool pending = false, shared = false;
        char *line;
        int r;

        if (lr.fd < 0)
                return negative_errno();
        while ((r = next_line(&lr, &line)) > 0) {
                unsigned long s, e;
                uint64_t inode, kb;
                char perms[5];
                const char *path, *v;
                if (memtrim_parse_mapping(line, &s, &e, perms, &inode, &path)) {
                        if (startswith(path, "[stack]") && stack_now >= s && stack_now < e &&
                            stack_now - s > STACK_KEEP) {
                                unsigned long limit = (stack_now - STACK_KEEP) & ~4095UL;
                                if (limit > s && (r = ranges_add(out, s, limit)) < 0)
                                        break;
                        }
                        pending = inode != 0 && perms[1] != 'w' && !strstr(path, "[v");
                        shared = perms[3] == 's';
                        start = s;
                        end = e;
                        continue;
                }
                /* "Anonymous:" closes the fields we need for the current mapping */
                if (pending && (v = startswith(line, "Anonymous:"))) {
                        pending = false;
                        while (*v == ' ')
                                v++;
                        if (take_number(&v, 10, &kb) && (shared || kb == 0) && (r = ranges_add(out, start, end)) < 0)
                                break;
                }
        }
        close(lr.fd);
        free(lr.buf);
        return r < 0 ? r : 0;
}

int memtrim_idle(void)
{
        struct ranges r = {0};
        int n = 0;

        int k = collect(&r, (unsigned long)__builtin_frame_address(0));
        malloc_trim(0); /* after collect(): its buffers are free again */
        /* No library call between the drops but madvise() itself: code that runs after its
         * mapping was dropped faults it back in (and the kernel maps a whole fault-around
         * window, 64 KiB, each time). */
        for (size_t i = 0; k >= 0 && i < r.n; i++)
                if (madvise((void *)r.v[i].start, r.v[i].end - r.v[i].start, MADV_DONTNEED) == 0)
                        n++;
        free(r.v);
        return k < 0 ? k : n;
}
