/* bench-c: the C consumers of the benchmark (built by scripts/bench.sh). Prints one JSON line.
 *
 *   bench-c callbacks SERVER N   one turn of N deltas, counted in the notification callback
 *   bench-c poll SERVER N        the same through codex_client_next_event (poll mode)
 *   bench-c rtt SERVER N         N sequential thread/name/set calls: median and p99 (µs)
 *   bench-c scale-poll|scale-callbacks SERVER N CLIENTS
 *                                CLIENTS clients (each its own bench server) streaming one turn
 *                                of N deltas each, all at once (poll: one program thread per
 *                                client pulling events; callbacks: counted in the callback);
 *                                the library's threads after connecting, aggregate events/s,
 *                                peak RSS and the RSS once the streams ended
 */
#define _POSIX_C_SOURCE 200809L
#include "codexclient.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long proc_status(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t len = strlen(key);
    long v = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, len) == 0 && line[len] == ':') v = strtol(line + len + 1, NULL, 10);
    }
    fclose(f);
    return v;
}

static long peak_rss_kb(void) { return proc_status("VmHWM"); }

static void die(const char *what, int st) {
    fprintf(stderr, "%s: %s (%s)\n", what, codex_status_name(st), codex_last_error_message());
    exit(1);
}

static struct codex_client_t *open_client(const char *server, unsigned long n, int poll_mode) {
    char env_n[64];
    snprintf(env_n, sizeof env_n, "BENCH_EVENTS=%lu", n);
    codex_options_t *o = codex_options_new();
    if (o == NULL) die("codex_options_new", CODEX_STATUS_INTERNAL);
    int st = codex_options_set_codex_bin(o, server);
    if (st == CODEX_STATUS_OK) st = codex_options_add_env(o, env_n);
    if (st == CODEX_STATUS_OK)
        st = codex_options_set_delivery(o, poll_mode ? CODEX_DELIVERY_POLL : CODEX_DELIVERY_CALLBACKS);
    if (st != CODEX_STATUS_OK) die("codex_options_set_*", st);
    struct codex_client_t *c = NULL;
    st = codex_client_new(o, &c);
    codex_options_free(o);
    if (st != CODEX_STATUS_OK) die("codex_client_new", st);
    return c;
}

struct counter {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned long deltas;
    int done;
};

static void on_note(void *ud, struct codex_event_t *ev) {
    struct counter *k = ud;
    const char *m = codex_event_method(ev);
    if (m[0] == 'i' && strcmp(m, "item/agentMessage/delta") == 0) {
        k->deltas++;
    } else if (strcmp(m, "turn/completed") == 0) {
        pthread_mutex_lock(&k->mu);
        k->done = 1;
        pthread_cond_signal(&k->cv);
        pthread_mutex_unlock(&k->mu);
    }
}

static void report(unsigned long n, double secs) {
    printf("{\"events\": %lu, \"secs\": %f, \"events_per_s\": %f, \"peak_rss_kb\": %ld}\n", n, secs,
           (double)n / secs, peak_rss_kb());
}

static void stream(const char *server, unsigned long n, int poll_mode) {
    struct codex_client_t *c = open_client(server, n, poll_mode);
    struct counter k = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
    int st;
    if (!poll_mode) {
        st = codex_client_register_callback(c, CODEX_CALLBACK_NOTIFICATION, on_note, &k);
        if (st != CODEX_STATUS_OK) die("register_callback", st);
    }
    st = codex_client_connect(c, NULL);
    if (st != CODEX_STATUS_OK) die("connect", st);
    char *thread = NULL;
    st = codex_client_thread_start(c, NULL, 0, &thread);
    if (st != CODEX_STATUS_OK) die("thread_start", st);
    double t0 = now_s();
    st = codex_client_turn_start(c, thread, "go", NULL, 0, NULL);
    if (st != CODEX_STATUS_OK) die("turn_start", st);
    if (poll_mode) {
        for (;;) {
            struct codex_event_t *ev = NULL;
            st = codex_client_next_event(c, -1, &ev);
            if (st != CODEX_STATUS_OK) die("next_event", st);
            int end = 0;
            if (codex_event_kind(ev) == CODEX_EVENT_NOTIFICATION) {
                const char *m = codex_event_method(ev);
                if (strcmp(m, "item/agentMessage/delta") == 0) k.deltas++;
                else if (strcmp(m, "turn/completed") == 0) end = 1;
            }
            codex_event_free(ev);
            if (end) break;
        }
    } else {
        pthread_mutex_lock(&k.mu);
        while (!k.done) pthread_cond_wait(&k.cv, &k.mu);
        pthread_mutex_unlock(&k.mu);
    }
    double secs = now_s() - t0;
    if (k.deltas != n) {
        fprintf(stderr, "got %lu deltas, expected %lu\n", k.deltas, n);
        exit(1);
    }
    report(n, secs);
    codex_string_free(thread);
    codex_client_disconnect(c);
    codex_client_free(c);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void rtt(const char *server, unsigned long n) {
    struct codex_client_t *c = open_client(server, 0, 1);
    int st = codex_client_connect(c, NULL);
    if (st != CODEX_STATUS_OK) die("connect", st);
    char *thread = NULL;
    st = codex_client_thread_start(c, NULL, 0, &thread);
    if (st != CODEX_STATUS_OK) die("thread_start", st);
    char params[256];
    snprintf(params, sizeof params, "{\"threadId\":\"%s\",\"name\":\"bench\"}", thread);
    double *s = calloc(n, sizeof *s);
    for (unsigned long i = 0; i < n + 200; i++) {
        char *res = NULL;
        double t = now_s();
        st = codex_client_call(c, "thread/name/set", params, 0, &res);
        if (st != CODEX_STATUS_OK) die("call", st);
        if (i >= 200) s[i - 200] = (now_s() - t) * 1e6;
        codex_string_free(res);
    }
    qsort(s, n, sizeof *s, cmp);
    printf("{\"calls\": %lu, \"median_us\": %f, \"p99_us\": %f}\n", n, s[(size_t)((double)(n - 1) * 0.5 + 0.5)],
           s[(size_t)((double)(n - 1) * 0.99 + 0.5)]);
    free(s);
    codex_string_free(thread);
    codex_client_free(c);
}

struct scaled {
    struct codex_client_t *c;
    char *thread;
    struct counter k;
    int poll_mode;
};

/* Poll mode: pull one client's events until its turn completes. */
static void *pull_turn(void *arg) {
    struct scaled *s = arg;
    for (;;) {
        struct codex_event_t *ev = NULL;
        int st = codex_client_next_event(s->c, -1, &ev);
        if (st != CODEX_STATUS_OK) die("next_event", st);
        int end = 0;
        if (codex_event_kind(ev) == CODEX_EVENT_NOTIFICATION) {
            const char *m = codex_event_method(ev);
            if (strcmp(m, "item/agentMessage/delta") == 0) s->k.deltas++;
            else if (strcmp(m, "turn/completed") == 0) end = 1;
        }
        codex_event_free(ev);
        if (end) break;
    }
    return NULL;
}

static void scale(const char *server, unsigned long n, int clients, int poll_mode) {
    struct scaled *cs = calloc((size_t)clients, sizeof *cs);
    pthread_t *th = calloc((size_t)clients, sizeof *th);
    long before = proc_status("Threads");
    for (int i = 0; i < clients; i++) {
        struct scaled *s = &cs[i];
        s->poll_mode = poll_mode;
        pthread_mutex_init(&s->k.mu, NULL);
        pthread_cond_init(&s->k.cv, NULL);
        s->c = open_client(server, n, poll_mode);
        int st = CODEX_STATUS_OK;
        if (!poll_mode) st = codex_client_register_callback(s->c, CODEX_CALLBACK_NOTIFICATION, on_note, &s->k);
        if (st == CODEX_STATUS_OK) st = codex_client_connect(s->c, NULL);
        if (st != CODEX_STATUS_OK) die("connect", st);
    }
    long library_threads = proc_status("Threads") - before;
    for (int i = 0; i < clients; i++) {
        int st = codex_client_thread_start(cs[i].c, NULL, 0, &cs[i].thread);
        if (st != CODEX_STATUS_OK) die("thread_start", st);
    }
    double t0 = now_s();
    for (int i = 0; i < clients; i++) {
        int st = codex_client_turn_start(cs[i].c, cs[i].thread, "go", NULL, 0, NULL);
        if (st != CODEX_STATUS_OK) die("turn_start", st);
        if (poll_mode && pthread_create(&th[i], NULL, pull_turn, &cs[i]) != 0) die("pthread_create", 0);
    }
    unsigned long total = 0;
    for (int i = 0; i < clients; i++) {
        if (poll_mode) {
            pthread_join(th[i], NULL);
        } else {
            pthread_mutex_lock(&cs[i].k.mu);
            while (!cs[i].k.done) pthread_cond_wait(&cs[i].k.cv, &cs[i].k.mu);
            pthread_mutex_unlock(&cs[i].k.mu);
        }
        total += cs[i].k.deltas;
    }
    double secs = now_s() - t0;
    if (total != n * (unsigned long)clients) {
        fprintf(stderr, "got %lu deltas, expected %lu\n", total, n * (unsigned long)clients);
        exit(1);
    }
    printf("{\"clients\": %d, \"events\": %lu, \"secs\": %f, \"events_per_s\": %f, "
           "\"library_threads\": %ld, \"peak_rss_kb\": %ld, \"rss_after_kb\": %ld}\n",
           clients, total, secs, (double)total / secs, library_threads, peak_rss_kb(), proc_status("VmRSS"));
    for (int i = 0; i < clients; i++) {
        codex_string_free(cs[i].thread);
        codex_client_disconnect(cs[i].c);
        codex_client_free(cs[i].c);
    }
    free(th);
    free(cs);
}

int main(int argc, char **argv) {
    if (argc == 5 && strncmp(argv[1], "scale-", 6) == 0) {
        unsigned long n = strtoul(argv[3], NULL, 10);
        scale(argv[2], n, atoi(argv[4]), strcmp(argv[1], "scale-poll") == 0);
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: bench-c callbacks|poll|rtt SERVER N | scale-poll|scale-callbacks SERVER N CLIENTS\n");
        return 2;
    }
    unsigned long n = strtoul(argv[3], NULL, 10);
    if (strcmp(argv[1], "callbacks") == 0) stream(argv[2], n, 0);
    else if (strcmp(argv[1], "poll") == 0) stream(argv[2], n, 1);
    else if (strcmp(argv[1], "rtt") == 0) rtt(argv[2], n);
    else return 2;
    return 0;
}
