/* Concurrency (against the fake app-server, $FAKE_APP_SERVER): several program threads use one
 * client at once - blocking calls, async requests, notifications - while the server sends
 * approvals that other threads answer; then a disconnect races in-flight work. Every async
 * request gets exactly one completion, all completions run on the one dispatch thread, every
 * call ends in a status (OK, or DISCONNECTED/NOT_CONNECTED after the disconnect), nothing
 * crashes or leaks (valgrind/ASan runs of this program). Then: 16 clients use the library's
 * threads one client did (a shared runtime and dispatch pool), and a client with
 * codex_options_set_dedicated_dispatch_thread gets one thread more, gone after its disconnect.
 */
#include "test_util.h"

#include <dirent.h>

#define THREADS 6
#define ROUNDS 40

static codex_client_t *C;
static pthread_mutex_t MU = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t CV = PTHREAD_COND_INITIALIZER;
static int completions, completion_errors, approvals_seen, answered;
static pthread_t dispatch_thread;
static int dispatch_set, wrong_thread;
static codex_request_t *queue[256];
static int queued;
static int racer_calls; /* calls the disconnect racers completed (under MU) */

static void note_thread(void) {
    pthread_t me = pthread_self();
    if (!dispatch_set) {
        dispatch_thread = me;
        dispatch_set = 1;
    } else if (!pthread_equal(me, dispatch_thread)) {
        wrong_thread++;
    }
}

static void on_done(void *ud, codex_event_t *ev) {
    int *mine = (int *)ud;
    pthread_mutex_lock(&MU);
    note_thread();
    (*mine)++;
    completions++;
    if (codex_event_status(ev) != CODEX_STATUS_OK) completion_errors++;
    pthread_cond_broadcast(&CV);
    pthread_mutex_unlock(&MU);
}

static void on_request(void *ud, codex_event_t *ev) {
    codex_request_t *req = NULL;
    (void)ud;
    CHECK_OK(codex_event_take_request(ev, &req));
    pthread_mutex_lock(&MU);
    note_thread();
    approvals_seen++;
    if (queued < 256) queue[queued++] = req;
    else codex_request_free(req);
    pthread_cond_broadcast(&CV);
    pthread_mutex_unlock(&MU);
}

static void on_note(void *ud, codex_event_t *ev) {
    (void)ud;
    (void)ev;
    pthread_mutex_lock(&MU);
    note_thread();
    pthread_mutex_unlock(&MU);
}

typedef struct {
    int index;
    int done; /* completions of this worker's async requests */
    int sent;
} worker_t;

static void *worker(void *arg) {
    worker_t *w = (worker_t *)arg;
    int i;
    char params[128];
    for (i = 0; i < ROUNDS; i++) {
        char *r = NULL;
        uint64_t id = 0;
        snprintf(params, sizeof params, "{\"w\":%d,\"i\":%d}", w->index, i);
        CHECK_OK(codex_client_call(C, "echo/call", params, 0, &r));
        CHECK(r != NULL && strstr(r, "echo/call") != NULL);
        codex_string_free(r);
        CHECK_OK(codex_client_request(C, "echo/async", params, 0, on_done, &w->done, &id));
        w->sent++;
        if (i % 10 == 0) CHECK_OK(codex_client_call(C, "test/approval", "{}", 0, NULL));
        if (i % 7 == 0) CHECK_OK(codex_client_notify(C, "some/notification", "{}"));
        /* answer queued approvals from this (non-dispatch) thread */
        pthread_mutex_lock(&MU);
        while (queued > 0) {
            codex_request_t *req = queue[--queued];
            pthread_mutex_unlock(&MU);
            CHECK_OK(codex_client_respond(C, req, "{\"decision\":\"accept\"}"));
            codex_request_free(req);
            pthread_mutex_lock(&MU);
            answered++;
        }
        pthread_mutex_unlock(&MU);
    }
    return NULL;
}

/* Hammers the client until it is disconnected; every call must end in a status. */
static void *racer(void *arg) {
    int *stop = (int *)arg;
    for (;;) {
        char *r = NULL;
        uint64_t id = 0;
        codex_status_t st = codex_client_call(C, "test/slow", "{\"ms\":5}", 0, &r);
        codex_string_free(r);
        if (st != CODEX_STATUS_OK) {
            CHECK(st == CODEX_STATUS_DISCONNECTED || st == CODEX_STATUS_NOT_CONNECTED);
            break;
        }
        pthread_mutex_lock(&MU);
        racer_calls++;
        pthread_cond_broadcast(&CV);
        pthread_mutex_unlock(&MU);
        st = codex_client_request(C, "test/slow", "{\"ms\":50}", 0, on_done, stop, &id);
        CHECK(st == CODEX_STATUS_OK || st == CODEX_STATUS_NOT_CONNECTED || st == CODEX_STATUS_DISCONNECTED);
    }
    return NULL;
}

/* Threads of this process: all of them, or those whose (15-byte) name starts with `prefix`. */
static int count_threads(const char *prefix) {
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    CHECK(d != NULL);
    while ((e = readdir(d)) != NULL) {
        char path[300], comm[64] = "";
        FILE *f;
        if (e->d_name[0] == '.') continue;
        if (prefix == NULL) {
            n++;
            continue;
        }
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        f = fopen(path, "r");
        if (f == NULL) continue; /* ended meanwhile */
        if (fgets(comm, sizeof comm, f) != NULL && strncmp(comm, prefix, strlen(prefix)) == 0) n++;
        fclose(f);
    }
    closedir(d);
    return n;
}

/* Whether the dispatch threads (named `codex-client-dispatch`) number `want` within 10 s. */
static int dispatch_threads_become(int want) {
    double end = now_s() + 10;
    while (count_threads("codex-client-di") != want && now_s() < end) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return count_threads("codex-client-di") == want;
}

static codex_client_t *fake_client(int dedicated) {
    codex_options_t *o = new_options();
    codex_client_t *c = NULL;
    CHECK_OK(codex_options_set_codex_bin(o, env_or_die("FAKE_APP_SERVER")));
    CHECK_OK(codex_options_set_dedicated_dispatch_thread(o, dedicated));
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_register_callback(c, CODEX_CALLBACK_NOTIFICATION, on_note, NULL));
    CHECK_OK(codex_client_connect(c, NULL));
    return c;
}

/* The library's threads are shared by all clients: 16 clients in callbacks mode use the
 * threads one did; a client with a dedicated dispatch thread adds exactly one, which ends
 * with its disconnect. */
static void shared_threads(void) {
    enum { N = 16 };
    codex_client_t *cs[N];
    codex_client_t *own;
    int i, with_one, pool;
    char *r = NULL;
    cs[0] = fake_client(0);
    CHECK_OK(codex_client_call(cs[0], "echo/x", "{}", 0, &r));
    codex_string_free(r);
    with_one = count_threads(NULL);
    pool = count_threads("codex-client-di");
    CHECK(pool == 2);
    CHECK(count_threads("codex-client-rt") == 2);
    for (i = 1; i < N; i++) {
        cs[i] = fake_client(0);
        CHECK_OK(codex_client_call(cs[i], "echo/x", "{}", 0, &r));
        codex_string_free(r);
    }
    CHECK(count_threads(NULL) == with_one);
    own = fake_client(1);
    /* a new thread names itself once it runs: bounded wait */
    CHECK(dispatch_threads_become(pool + 1));
    CHECK_OK(codex_client_disconnect(own));
    codex_client_free(own);
    /* the dedicated thread ends right after its client's last callback: bounded wait */
    CHECK(dispatch_threads_become(pool));
    for (i = 0; i < N; i++) {
        CHECK_OK(codex_client_disconnect(cs[i]));
        codex_client_free(cs[i]);
    }
    CHECK(count_threads(NULL) == with_one);
}

int main(void) {
    codex_options_t *o;
    const char *env[1] = {"FAKE_MODE=approval,slow"};
    pthread_t th[THREADS], r1, r2;
    worker_t w[THREADS];
    int i, total = 0, racer_done = 0;
    double t0 = now_s();

    o = new_options();
    CHECK_OK(codex_options_set_codex_bin(o, env_or_die("FAKE_APP_SERVER")));
    CHECK_OK(codex_options_add_env(o, env[0]));
    CHECK_OK(codex_options_set_default_timeout_ms(o, 30000));
    CHECK_OK(codex_client_new(o, &C));
    codex_options_free(o);
    CHECK_OK(codex_client_register_callback(C, CODEX_CALLBACK_SERVER_REQUEST, on_request, NULL));
    CHECK_OK(codex_client_register_callback(C, CODEX_CALLBACK_NOTIFICATION, on_note, NULL));
    CHECK_OK(codex_client_connect(C, NULL));

    memset(w, 0, sizeof w);
    for (i = 0; i < THREADS; i++) {
        w[i].index = i;
        CHECK(pthread_create(&th[i], NULL, worker, &w[i]) == 0);
    }
    for (i = 0; i < THREADS; i++) CHECK(pthread_join(th[i], NULL) == 0);

    /* every async request completed exactly once, on the dispatch thread */
    {
        struct timespec dl = deadline_in(30);
        pthread_mutex_lock(&MU);
        while (completions < THREADS * ROUNDS || approvals_seen < THREADS * (ROUNDS / 10))
            if (pthread_cond_timedwait(&CV, &MU, &dl) != 0 &&
                (completions < THREADS * ROUNDS || approvals_seen < THREADS * (ROUNDS / 10))) {
                pthread_mutex_unlock(&MU);
                FAIL("missing: %d completions, %d approvals", completions, approvals_seen);
            }
        /* approvals still queued (sent after the last worker round): answer them */
        while (queued > 0) {
            codex_request_t *req = queue[--queued];
            CHECK_OK(codex_client_respond(C, req, "{\"decision\":\"decline\"}"));
            codex_request_free(req);
            answered++;
        }
        pthread_mutex_unlock(&MU);
    }
    for (i = 0; i < THREADS; i++) {
        CHECK(w[i].done == w[i].sent);
        total += w[i].done;
    }
    CHECK(total == THREADS * ROUNDS);
    CHECK(completion_errors == 0);
    CHECK(approvals_seen == THREADS * (ROUNDS / 10));
    CHECK(answered == approvals_seen);

    /* a disconnect racing two hammering threads */
    CHECK(pthread_create(&r1, NULL, racer, &racer_done) == 0);
    CHECK(pthread_create(&r2, NULL, racer, &racer_done) == 0);
    { /* both are hammering: wait for a few completed calls, not for a fixed time */
        struct timespec dl = deadline_in(30);
        pthread_mutex_lock(&MU);
        while (racer_calls < 20)
            if (pthread_cond_timedwait(&CV, &MU, &dl) != 0 && racer_calls < 20) {
                pthread_mutex_unlock(&MU);
                FAIL("the racers completed only %d calls", racer_calls);
            }
        pthread_mutex_unlock(&MU);
    }
    CHECK_OK(codex_client_disconnect(C));
    CHECK(pthread_join(r1, NULL) == 0);
    CHECK(pthread_join(r2, NULL) == 0);
    codex_client_free(C);
    pthread_mutex_lock(&MU);
    CHECK(wrong_thread == 0);
    pthread_mutex_unlock(&MU);
    shared_threads();
    printf("test_threads: ok (%d async completions, %d approvals answered from worker threads; %.1f s)\n",
           completions, answered, now_s() - t0);
    return 0;
}
