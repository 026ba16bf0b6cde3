/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "log.h"
#include "macros.h"
#include "spawn.h"
#include "strv.h"

/* A stderr (or uncaptured stdout) line longer than this is logged in pieces. */
#define LOG_LINE_MAX 4096

struct stream {
        sd_event_source *source;
        int fd;
        bool capture;     /* keep the bytes (stdout of PROGRAM) rather than log lines */
        const char *name; /* "out" / "err", for log lines */
        char *buf;
        size_t len, cap, max;
        bool truncated;
};

struct spawn_job {
        struct spawn_manager *manager;
        struct spawn_job *prev, *next; /* in the queue or the running list */

        char *cmd;
        char **argv;
        char **envp;
        char *cwd; /* opts.cwd, copied */
        spawn_fn fn;  /* a function child (spawn_start_fn): no argv, no exec */
        void *fn_arg;
        struct spawn_options opts;
        spawn_done_fn done;
        void *userdata;

        pid_t pid;
        sd_event_source *child_source;
        sd_event_source *timer_source;
        int exec_error_fd; /* read end: the child writes errno here when execve() fails */
        struct stream out, err;
        bool timed_out;
        bool killing; /* the timeout signal was sent; the timer now waits for SIGKILL time */
};

struct spawn_list {
        struct spawn_job *head, *tail;
        unsigned n;
};

struct spawn_manager {
        sd_event *event;
        char *libdir;
        unsigned children_max;
        struct spawn_list queue;
        struct spawn_list running;
};

static void list_append(struct spawn_list *l, struct spawn_job *j)
{
        j->prev = l->tail;
        j->next = NULL;
        if (l->tail)
                l->tail->next = j;
        else
                l->head = j;
        l->tail = j;
        l->n++;
}

static void list_unlink(struct spawn_list *l, struct spawn_job *j)
{
        if (j->prev)
                j->prev->next = j->next;
        else
                l->head = j->next;
        if (j->next)
                j->next->prev = j->prev;
        else
                l->tail = j->prev;
        j->prev = j->next = NULL;
        l->n--;
}

static int argv_push(char ***v, size_t *n, char *s)
{
        char **nv = realloc(*v, (*n + 2) * sizeof(char *));
        if (!nv)
                return -ENOMEM;
        nv[(*n)++] = s;
        nv[*n] = NULL;
        *v = nv;
        return 0;
}

static bool is_space(char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int spawn_split_command(const char *cmd, char ***ret)
{
        _cleanup_strv_free_ char **v = calloc(1, sizeof(char *));
        size_t n = 0;
        const char *p = cmd ? cmd : "";

        if (!v)
                return -ENOMEM;

        for (;;) {
                while (is_space(*p))
                        p++;
                if (!*p)
                        break;

                /* A word is never longer than the rest of the line. */
                char *w = malloc(strlen(p) + 1), *q = w;
                char quote = 0;
                if (!w)
                        return -ENOMEM;
                for (; *p; p++) {
                        if (quote) {
                                if (*p == quote)
                                        quote = 0;
                                else
                                        *q++ = *p;
                        } else if (*p == '\'' || *p == '"')
                                quote = *p;
                        else if (is_space(*p))
                                break;
                        else
                                *q++ = *p;
                }
                *q = 0;
                if (argv_push(&v, &n, w) < 0) {
                        free(w);
                        return -ENOMEM;
                }
        }
        *ret = TAKE_PTR(v);
        return 0;
}

int spawn_manager_new(sd_event *event, const char *libdir, unsigned children_max, struct spawn_manager **ret)
{
        struct spawn_manager *m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->libdir = strdup(libdir ? libdir : UDEVLIBDIR);
        if (!m->libdir) {
                free(m);
                return -ENOMEM;
        }
        m->event = sd_event_ref(event);
        m->children_max = children_max;
        *ret = m;
        return 0;
}

void spawn_manager_set_children_max(struct spawn_manager *m, unsigned children_max)
{
        m->children_max = children_max;
}

unsigned spawn_manager_running(const struct spawn_manager *m)
{
        return m->running.n;
}

unsigned spawn_manager_queued(const struct spawn_manager *m)
{
        return m->queue.n;
}

static void stream_close(struct stream *s)
{
        s->source = sd_event_source_disable_unref(s->source);
        if (s->fd >= 0)
                close(s->fd);
        s->fd = -1;
}

static struct spawn_job *job_free(struct spawn_job *j)
{
        if (!j)
                return NULL;
        /* Still unreaped: its group goes too (the source only kills and reaps the child). */
        if (j->child_source && j->pid > 0)
                (void)kill(-j->pid, SIGKILL);
        j->child_source = sd_event_source_disable_unref(j->child_source);
        j->timer_source = sd_event_source_disable_unref(j->timer_source);
        stream_close(&j->out);
        stream_close(&j->err);
        free(j->out.buf);
        free(j->err.buf);
        if (j->exec_error_fd >= 0)
                close(j->exec_error_fd);
        free(j->cmd);
        free(j->cwd);
        strv_free(j->argv);
        strv_free(j->envp);
        free(j);
        return NULL;
}

static void kill_job(struct spawn_job *j, int sig)
{
        if (j->pid <= 0)
                return; /* kill(-0) would hit our own group */
        /* The child leads its own process group (setsid), and its pid cannot be reused before
         * we reap it; the group id stays valid while any member lives. */
        if (kill(-j->pid, sig) < 0 && j->child_source)
                (void)sd_event_source_send_child_signal(j->child_source, sig, NULL, 0);
}

struct spawn_manager *spawn_manager_free(struct spawn_manager *m)
{
        struct spawn_job *j;

        if (!m)
                return NULL;
        while ((j = m->queue.head)) {
                list_unlink(&m->queue, j);
                job_free(j);
        }
        while ((j = m->running.head)) {
                list_unlink(&m->running, j);
                /* The child source owns the process: freeing it SIGKILLs and reaps it. */
                job_free(j);
        }
        sd_event_unref(m->event);
        free(m->libdir);
        free(m);
        return NULL;
}

/* Logs complete lines of a logged stream; with flush, also the incomplete rest. */
static void stream_log_lines(struct spawn_job *j, struct stream *s, bool flush)
{
        size_t start = 0;

        for (size_t i = 0; i < s->len; i++)
                if (s->buf[i] == '\n') {
                        log_debug("'%s'(%s) '%.*s'", j->cmd, s->name, (int)(i - start), s->buf + start);
                        start = i + 1;
                }
        if (start < s->len && (flush || s->len - start >= LOG_LINE_MAX)) {
                log_debug("'%s'(%s) '%.*s'", j->cmd, s->name, (int)(s->len - start), s->buf + start);
                start = s->len;
        }
        if (start > 0) {
                memmove(s->buf, s->buf + start, s->len - start);
                s->len -= start;
        }
}

/* Reads what is available. Returns 1 at EOF (or a read error), 0 when more may come. */
static int stream_read(struct spawn_job *j, struct stream *s)
{
        /* Captured output is kept up to its bound; logged output up to one line's worth,
         * which stream_log_lines() consumes after every read. */
        size_t limit = s->capture ? s->max : LOG_LINE_MAX;
        char scratch[4096];

        for (;;) {
                char *dst = scratch;
                size_t room = sizeof(scratch);

                if (s->len < limit && s->cap <= s->len + 1) {
                        /* Grow geometrically, never beyond the bound (+1 for the NUL). */
                        size_t cap = s->cap ? s->cap * 2 : 1024;
                        if (cap > limit + 1)
                                cap = limit + 1;
                        char *b = realloc(s->buf, cap);
                        if (b) {
                                s->buf = b;
                                s->cap = cap;
                        }
                }
                if (s->len < limit && s->cap > s->len + 1) {
                        dst = s->buf + s->len;
                        room = s->cap - 1 - s->len;
                }

                ssize_t n = read(s->fd, dst, room);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                return 0;
                        log_debug_errno(errno, "Failed to read std%s of '%s': %m", s->name, j->cmd);
                        return 1;
                }
                if (n == 0)
                        return 1;
                if (dst == scratch) {
                        /* Past the bound (or out of memory): dropped, and said once. */
                        if (!s->truncated)
                                log_warning("'%s' wrote more than %zu bytes to std%s; keeping the first ones", j->cmd,
                                            s->len, s->name);
                        s->truncated = true;
                        continue;
                }
                s->len += n;
                s->buf[s->len] = 0;
                if (!s->capture)
                        stream_log_lines(j, s, false);
        }
}

static int on_stream_io(sd_event_source *source, int fd, uint32_t revents, void *userdata)
{
        struct spawn_job *j = userdata;
        struct stream *s = fd == j->out.fd ? &j->out : &j->err;

        if (stream_read(j, s) > 0) {
                if (!s->capture)
                        stream_log_lines(j, s, true);
                /* EOF: stop watching; the buffer stays for the result. */
                stream_close(s);
        }
        return 0;
}

static void job_finish(struct spawn_job *j, const siginfo_t *si);

static void manager_pump(struct spawn_manager *m);

static int on_child(sd_event_source *source, const siginfo_t *si, void *userdata)
{
        struct spawn_job *j = userdata;
        job_finish(j, si);
        return 0;
}

static int on_timer(sd_event_source *source, uint64_t usec, void *userdata)
{
        struct spawn_job *j = userdata;
        int sig = j->opts.timeout_signal;

        if (!j->killing && sig != SIGKILL) {
                log_error("'%s' (pid %d) ran past its %" PRIu64 " ms limit, sending it signal %d",
                          j->cmd, (int)j->pid, j->opts.timeout_usec / 1000, sig);
                j->timed_out = true;
                j->killing = true;
                kill_job(j, sig);
                if (sd_event_source_set_time_relative(source, j->opts.kill_grace_usec) >= 0 &&
                    sd_event_source_set_enabled(source, SD_EVENT_ONESHOT) >= 0)
                        return 0;
                /* Cannot wait for the grace period: kill right away rather than never. */
        } else if (!j->killing)
                log_error("'%s' (pid %d) ran past its %" PRIu64 " ms limit, killing it", j->cmd,
                          (int)j->pid, j->opts.timeout_usec / 1000);
        else
                log_error("'%s' (pid %d) ignored signal %d for %" PRIu64 " ms, killing it",
                          j->cmd, (int)j->pid, sig, j->opts.kill_grace_usec / 1000);
        j->timed_out = true;
        j->killing = true;
        kill_job(j, SIGKILL);
        return 0;
}

/* Everything the child needs, prepared before fork(): after it only async-signal-safe calls. */
struct child_fds {
        int in, out, err, exec_error;
        int max_fd;
};

/* First steps of every child: default signal dispositions and an empty mask (the daemon's
 * sd-event blocks the signals it handles), its own session, and death with the daemon. */
static void child_detach(pid_t parent)
{
        struct sigaction sa = {.sa_handler = SIG_DFL};
        sigset_t none;

        for (int sig = 1; sig < _NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void)sigaction(sig, &sa, NULL);
        sigemptyset(&none);
        (void)sigprocmask(SIG_SETMASK, &none, NULL);
        (void)setsid();
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
                _exit(127); /* the daemon already died: nobody wants the result */
}

_Noreturn static void child_exec(struct spawn_job *j, const struct child_fds *fds, pid_t parent)
{
        int in, out, err, xerr, e, report = fds->exec_error;

        child_detach(parent);

        /* Move the fds above 3 first, so dup2() cannot clobber one with another. */
        in = fcntl(fds->in, F_DUPFD, 4);
        out = fcntl(fds->out, F_DUPFD, 4);
        err = fcntl(fds->err, F_DUPFD, 4);
        xerr = fcntl(fds->exec_error, F_DUPFD, 4);
        if (in < 0 || out < 0 || err < 0 || xerr < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
            dup2(err, 2) < 0 || dup2(xerr, 3) < 0 || fcntl(3, F_SETFD, FD_CLOEXEC) < 0) {
                e = errno;
                goto fail;
        }
        report = 3;
        if (close_range(4, ~0U, 0) < 0)
                for (int fd = 4; fd <= fds->max_fd; fd++)
                        (void)close(fd);
        if (j->cwd && chdir(j->cwd) < 0) {
                e = errno;
                goto fail;
        }

        execve(j->argv[0], j->argv, j->envp);
        e = errno;
fail:
        (void)!write(report, &e, sizeof(e));
        _exit(127);
}

/* A function child: the daemon's memory as it was at fork(), fd 0 from /dev/null, 1 and 2 the
 * daemon's (its log goes where the daemon's does). Only the daemon's own code runs here, so its
 * descriptors (all close-on-exec) need not be closed. */
_Noreturn static void child_call(struct spawn_job *j, int devnull, pid_t parent)
{
        child_detach(parent);
        if (dup2(devnull, 0) < 0)
                _exit(127);
        int r = j->fn(j->fn_arg);
        _exit(r >= 0 ? 0 : -r < 126 ? -r : 125);
}

static int open_devnull(void)
{
        int fd = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
        return fd >= 0 ? fd : -errno;
}

static int make_pipe(int fds[2])
{
        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;
        if (fcntl(fds[0], F_SETFL, O_NONBLOCK) < 0) {
                int r = -errno;
                close(fds[0]);
                close(fds[1]);
                return r;
        }
        return 0;
}

static int stream_watch(struct spawn_job *j, struct stream *s)
{
        return sd_event_add_io(j->manager->event, &s->source, s->fd, EPOLLIN, on_stream_io, j);
}

/* The event sources of a forked child (j->pid): its exit, its pipes, its timeout. */
static int job_watch(struct spawn_job *j)
{
        struct spawn_manager *m = j->manager;
        int r;

        /* From here the child exists: failures below must still end in its reaping, which the
         * child source guarantees once added; without it, kill and reap synchronously. */
        r = sd_event_add_child(m->event, &j->child_source, j->pid, WEXITED, on_child, j);
        if (r < 0) {
                (void)kill(-j->pid, SIGKILL);
                (void)waitpid(j->pid, NULL, 0); /* SIGKILLed: returns at once */
                return r;
        }
        (void)sd_event_source_set_child_process_own(j->child_source, true);
        /* Drain output before handling the exit. */
        (void)sd_event_source_set_priority(j->child_source, SD_EVENT_PRIORITY_NORMAL + 1);

        if (j->out.fd >= 0 && (r = stream_watch(j, &j->out)) < 0)
                return r;
        if (j->err.fd >= 0 && (r = stream_watch(j, &j->err)) < 0)
                return r;
        if (j->opts.timeout_usec > 0) {
                r = sd_event_add_time_relative(m->event, &j->timer_source, CLOCK_MONOTONIC,
                                               j->opts.timeout_usec, 0, on_timer, j);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int job_launch_fn(struct spawn_job *j, int devnull)
{
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0)
                child_call(j, devnull, parent);
        j->pid = pid;
        log_debug("'%s' running in child %d", j->cmd, (int)pid);
        return job_watch(j);
}

/* Forks and execs the job's child and sets up its event sources; -errno on failure. */
static int job_launch(struct spawn_job *j)
{
        int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, x_pipe[2] = {-1, -1};
        _cleanup_close_ int devnull = -1;
        bool log_output = log_get_max_level() >= LOG_DEBUG;
        struct rlimit rl;
        int r;

        devnull = open_devnull();
        if (devnull < 0)
                return devnull;
        if (j->fn)
                return job_launch_fn(j, devnull);
        if (j->opts.capture_stdout || log_output) {
                r = make_pipe(out_pipe);
                if (r < 0)
                        goto fail;
        }
        if (log_output) {
                r = make_pipe(err_pipe);
                if (r < 0)
                        goto fail;
        }
        r = make_pipe(x_pipe);
        if (r < 0)
                goto fail;

        struct child_fds fds = {
                .in = devnull,
                .out = out_pipe[1] >= 0 ? out_pipe[1] : devnull,
                .err = err_pipe[1] >= 0 ? err_pipe[1] : devnull,
                .exec_error = x_pipe[1],
                .max_fd = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
                                          rl.rlim_cur < 65536
                                  ? (int)rl.rlim_cur
                                  : 65536,
        };
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0) {
                r = -errno;
                goto fail;
        }
        if (pid == 0)
                child_exec(j, &fds, parent);

        j->pid = pid;
        log_debug("'%s' running as pid %d", j->cmd, (int)pid);

        /* The child's ends are its own now. */
        if (out_pipe[1] >= 0)
                close(out_pipe[1]);
        if (err_pipe[1] >= 0)
                close(err_pipe[1]);
        close(x_pipe[1]);
        j->out.fd = out_pipe[0];
        j->err.fd = err_pipe[0];
        j->exec_error_fd = x_pipe[0];

        return job_watch(j);

fail:
        for (int i = 0; i < 2; i++) {
                if (out_pipe[i] >= 0)
                        close(out_pipe[i]);
                if (err_pipe[i] >= 0)
                        close(err_pipe[i]);
                if (x_pipe[i] >= 0)
                        close(x_pipe[i]);
        }
        return r;
}

static void job_report(struct spawn_job *j, const siginfo_t *si, int error)
{
        struct spawn_result res = {
                .cmd = j->cmd,
                .pid = j->pid,
                .error = error,
                .exit_status = -1,
                .timed_out = j->timed_out,
                .output = j->out.capture && j->out.buf ? j->out.buf : "",
                .output_len = j->out.capture ? j->out.len : 0,
                .truncated = j->out.truncated,
        };

        if (si && !error) {
                if (si->si_code == CLD_EXITED)
                        res.exit_status = si->si_status;
                else if (si->si_code == CLD_KILLED || si->si_code == CLD_DUMPED)
                        res.signal = si->si_status;
        }

        if (error)
                log_debug_errno(error, "Failed to run '%s': %m", j->cmd);
        else if (res.signal)
                log_debug("'%s' (pid %d) was killed by signal %d", j->cmd, (int)j->pid, res.signal);
        else
                log_debug("'%s' (pid %d) exited with %d", j->cmd, (int)j->pid, res.exit_status);

        if (j->done)
                j->done(&res, j->userdata);
}

static void job_finish(struct spawn_job *j, const siginfo_t *si)
{
        struct spawn_manager *m = j->manager;
        int error = 0;

        /* Whatever is still in the pipes; a grandchild holding them open is not waited for. */
        if (j->out.fd >= 0)
                (void)stream_read(j, &j->out);
        if (j->err.fd >= 0)
                (void)stream_read(j, &j->err);
        if (!j->out.capture && j->out.len)
                stream_log_lines(j, &j->out, true);
        if (j->err.len)
                stream_log_lines(j, &j->err, true);

        if (j->exec_error_fd >= 0) {
                int e;
                if (read(j->exec_error_fd, &e, sizeof(e)) == sizeof(e) && e > 0)
                        error = -e;
        }

        list_unlink(&m->running, j);
        j->child_source = sd_event_source_disable_unref(j->child_source); /* reaped already */
        /* Room for the next one first, so a start from the callback queues behind older ones. */
        manager_pump(m);
        job_report(j, si, error);
        job_free(j);
}

static void manager_pump(struct spawn_manager *m)
{
        struct spawn_job *j;

        while ((j = m->queue.head) && (m->children_max == 0 || m->running.n < m->children_max)) {
                list_unlink(&m->queue, j);
                list_append(&m->running, j);
                int r = job_launch(j);
                if (r < 0) {
                        list_unlink(&m->running, j);
                        log_error_errno(r, "Failed to start '%s': %m", j->cmd);
                        job_report(j, NULL, r);
                        job_free(j);
                }
        }
}

/* A relative program name as udev looks it up: in devman's own library directory first, then
 * where distributions keep udev's helpers (ata_id, scsi_id, cdrom_id, ...). When none has it,
 * the name in libdir (so the error names devman's directory). */
static char *resolve_program(const char *libdir, const char *name)
{
        const char *const dirs[] = {libdir, "/usr/lib/udev", "/lib/udev"};
        char *first = NULL;
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                char *abs;
                if (asprintf(&abs, "%s/%s", dirs[i], name) < 0) {
                        free(first);
                        return NULL;
                }
                if (access(abs, X_OK) == 0) {
                        free(first);
                        return abs;
                }
                if (!first)
                        first = abs;
                else
                        free(abs);
        }
        return first;
}

/* A job with its options and callback, not yet started; NULL on ENOMEM. */
static struct spawn_job *job_new(struct spawn_manager *m, const char *cmd, const struct spawn_options *opts,
                                 spawn_done_fn done, void *userdata)
{
        struct spawn_job *j = calloc(1, sizeof(*j));
        if (!j)
                return NULL;
        j->manager = m;
        j->out.fd = j->err.fd = j->exec_error_fd = -1;
        j->out.name = "out";
        j->err.name = "err";
        j->done = done;
        j->userdata = userdata;
        if (opts)
                j->opts = *opts;
        if (j->opts.timeout_signal <= 0)
                j->opts.timeout_signal = SIGKILL;
        if (j->opts.kill_grace_usec == 0)
                j->opts.kill_grace_usec = SPAWN_KILL_GRACE_DEFAULT_USEC;
        if (j->opts.output_max == 0)
                j->opts.output_max = SPAWN_OUTPUT_MAX_DEFAULT;
        j->out.capture = j->opts.capture_stdout;
        j->out.max = j->opts.output_max;
        j->err.max = LOG_LINE_MAX;
        j->opts.cwd = NULL; /* the caller's string may go: spawn_start() copies it */
        j->cmd = strdup(cmd ? cmd : "");
        return j->cmd ? j : job_free(j);
}

/* Starts j now when nobody is waiting and there is room, else queues it (FIFO). On failure
 * j is freed. */
static int job_submit(struct spawn_job *j)
{
        struct spawn_manager *m = j->manager;
        if (m->queue.n == 0 && (m->children_max == 0 || m->running.n < m->children_max)) {
                list_append(&m->running, j);
                int r = job_launch(j);
                if (r < 0) {
                        list_unlink(&m->running, j);
                        job_free(j);
                        return r;
                }
                return 0;
        }
        list_append(&m->queue, j);
        log_debug("'%s' waits for a free slot (%u running, %u waiting)", j->cmd, m->running.n, m->queue.n);
        return 0;
}

int spawn_start(struct spawn_manager *m, const char *cmd, char **envp, const struct spawn_options *opts,
                spawn_done_fn done, void *userdata)
{
        struct spawn_job *j = job_new(m, cmd, opts, done, userdata);
        int r;

        if (!j)
                return -ENOMEM;
        if (j->opts.shell) {
                char *const sh[] = {"/bin/sh", "-c", j->cmd, NULL};
                r = strv_copy(sh, &j->argv);
        } else
                r = spawn_split_command(j->cmd, &j->argv);
        if (r < 0)
                goto fail;
        if (!j->argv[0] || !j->argv[0][0]) {
                r = -EINVAL;
                goto fail;
        }
        if (j->argv[0][0] != '/') {
                char *abs = resolve_program(m->libdir, j->argv[0]);
                if (!abs) {
                        r = -ENOMEM;
                        goto fail;
                }
                free(j->argv[0]);
                j->argv[0] = abs;
        }
        r = strv_copy(envp, &j->envp);
        if (r < 0)
                goto fail;
        if (opts && opts->cwd && !(j->cwd = strdup(opts->cwd))) {
                r = -ENOMEM;
                goto fail;
        }
        return job_submit(j);

fail:
        job_free(j);
        return r;
}

int spawn_start_fn(struct spawn_manager *m, const char *name, spawn_fn fn, void *arg,
                   const struct spawn_options *opts, spawn_done_fn done, void *userdata)
{
        if (!fn)
                return -EINVAL;
        struct spawn_job *j = job_new(m, name, opts, done, userdata);
        if (!j)
                return -ENOMEM;
        j->out.capture = false; /* the child writes to the daemon's own stdout and stderr */
        j->fn = fn;
        j->fn_arg = arg;
        return job_submit(j);
}

struct sync_state {
        struct spawn_sync_result *result;
        bool done;
        int oom;
};

static void on_sync_done(const struct spawn_result *r, void *userdata)
{
        struct sync_state *st = userdata;

        *st->result = (struct spawn_sync_result){
                .error = r->error,
                .exit_status = r->exit_status,
                .signal = r->signal,
                .timed_out = r->timed_out,
                .output_len = r->output_len,
                .truncated = r->truncated,
        };
        st->result->output = malloc(r->output_len + 1);
        if (st->result->output)
                memcpy(st->result->output, r->output, r->output_len + 1);
        else
                st->oom = -ENOMEM;
        st->done = true;
}

int spawn_status(int error, bool timed_out, int signal, int exit_status)
{
        return error < 0 ? error : timed_out ? -ETIMEDOUT : signal ? 128 + signal : exit_status;
}

int spawn_run_sync(const char *libdir, const char *cmd, char **envp, const struct spawn_options *opts,
                   struct spawn_sync_result *ret)
{
        struct spawn_manager *m = NULL;
        struct sync_state st = {.result = ret};
        sd_event *e = NULL;
        sigset_t chld, saved;
        int r;

        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        if (sigprocmask(SIG_BLOCK, &chld, &saved) < 0)
                return -errno;

        r = sd_event_new(&e);
        if (r < 0)
                goto out;
        r = spawn_manager_new(e, libdir, 0, &m);
        if (r < 0)
                goto out;
        r = spawn_start(m, cmd, envp, opts, on_sync_done, &st);
        while (r >= 0 && !st.done)
                r = sd_event_run(e, UINT64_MAX);
        if (r >= 0)
                r = st.oom;

out:
        /* Freeing the manager kills and reaps a child still running after a loop failure. */
        spawn_manager_free(m);
        sd_event_unref(e);
        (void)sigprocmask(SIG_SETMASK, &saved, NULL);
        if (r < 0 && st.done) {
                free(ret->output);
                ret->output = NULL;
        }
        return r < 0 ? r : 0;
}
