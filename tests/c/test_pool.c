/* The pool of Codex app-servers through the C API (codex_pool_t, ABI 1.11), against four real
 * `codex app-server --listen ws://127.0.0.1:PORT` (CODEX_BIN) processes, each with its own
 * CODEX_HOME (the mock model's config copied from CODEX_HOME) and working directory; two take a
 * capability token, two signed bearer tokens minted by the library (options by name):
 * - 200 threads from 4 program threads: codex_pool_thread_start places each (the endpoint's
 *   name returned), codex_pool_endpoint_client + codex_client_turn_run runs it to its final
 *   text; the threads are spread evenly (50 +- 20 %), codex_pool_endpoint_of agrees, the
 *   endpoints' JSON counts them, and no token or secret is in it;
 * - a slow turn on every endpoint; one endpoint drained (state "draining", then it leaves),
 *   one killed: its turn ends with CODEX_STATUS_DISCONNECTED within the heartbeat's bound and
 *   a message naming the endpoint and the thread; the others complete; the killed endpoint is
 *   "lost"; new threads go to the healthy ones only;
 * - with every healthy endpoint removed, codex_pool_thread_start is CODEX_STATUS_UNAVAILABLE at
 *   once; bad pool options and unknown names are INVALID_ARGUMENT.
 */
#include "test_util.h"
#include "test_net.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define ISSUER "codex-client-c-pool"
#define AUDIENCE "codex-app-server"
#define HOSTS 4
#define THREADS 200
#define WORKERS 4

typedef struct {
    int port;
    int is_signed;
    pid_t pid;
    char dir[512];
    char secret[65];
    char auth_file[700];
} host_t;

static host_t hosts[HOSTS];
static const char *names[HOSTS] = {"alive", "killed", "drained", "alive2"};

static void random_hex(char *out) {
    const char *hex = "0123456789abcdef";
    unsigned char raw[32];
    int fd = open("/dev/urandom", O_RDONLY), i;
    CHECK(fd >= 0 && read(fd, raw, sizeof raw) == (ssize_t)sizeof raw);
    close(fd);
    for (i = 0; i < 32; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[64] = '\0';
}

static void copy_file(const char *from, const char *to) {
    char buf[4096];
    ssize_t n;
    int in = open(from, O_RDONLY), out;
    CHECK(in >= 0);
    out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(out >= 0);
    while ((n = read(in, buf, sizeof buf)) > 0) CHECK(write(out, buf, (size_t)n) == n);
    close(in);
    close(out);
}

/* Host `i`: its own CODEX_HOME and working directory under CODEX_WORK, its auth file (mode
 * 0600), its server started (not yet waited for). */
static void host_start(int i, int is_signed) {
    host_t *h = &hosts[i];
    char path[700], listen_url[64];
    int fd;
    h->is_signed = is_signed;
    h->port = free_port();
    snprintf(h->dir, sizeof h->dir, "%s/host%d", env_or_die("CODEX_WORK"), i);
    CHECK(mkdir(h->dir, 0700) == 0);
    snprintf(path, sizeof path, "%s/home", h->dir);
    CHECK(mkdir(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/work", h->dir);
    CHECK(mkdir(path, 0700) == 0);
    {
        char from[700];
        snprintf(from, sizeof from, "%s/config.toml", env_or_die("CODEX_HOME"));
        snprintf(path, sizeof path, "%s/home/config.toml", h->dir);
        copy_file(from, path);
    }
    random_hex(h->secret);
    snprintf(path, sizeof path, "%s/%s", h->dir, is_signed ? "ws-secret" : "ws-token");
    memcpy(h->auth_file, path, sizeof h->auth_file);
    fd = open(h->auth_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && write(fd, h->secret, 64) == 64 && write(fd, "\n", 1) == 1);
    close(fd);
    snprintf(listen_url, sizeof listen_url, "ws://127.0.0.1:%d", h->port);
    h->pid = fork();
    CHECK(h->pid >= 0);
    if (h->pid == 0) {
        char home[700], work[700];
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        snprintf(home, sizeof home, "%s/home", h->dir);
        snprintf(work, sizeof work, "%s/work", h->dir);
        setenv("CODEX_HOME", home, 1);
        if (chdir(work) != 0) _exit(126);
        if (is_signed)
            execl(env_or_die("CODEX_BIN"), "codex", "app-server", "--listen", listen_url, "--ws-auth",
                  "signed-bearer-token", "--ws-shared-secret-file", h->auth_file, "--ws-issuer", ISSUER,
                  "--ws-audience", AUDIENCE, (char *)NULL);
        else
            execl(env_or_die("CODEX_BIN"), "codex", "app-server", "--listen", listen_url, "--ws-auth",
                  "capability-token", "--ws-token-file", h->auth_file, (char *)NULL);
        _exit(127);
    }
}

static void host_wait(int i) {
    double t0 = now_s();
    while (!accepts(hosts[i].port)) {
        int status;
        if (waitpid(hosts[i].pid, &status, WNOHANG) == hosts[i].pid)
            FAIL("host %d: codex app-server exited (status %d)", i, status);
        if (now_s() - t0 > 30.0) FAIL("host %d: codex app-server never listened", i);
        sleep_ms(20);
    }
}

/* Client options of host `i`, by name: its URL, its auth, a 1 s + 2 s heartbeat. */
static codex_options_t *host_options(int i) {
    host_t *h = &hosts[i];
    char json[1024];
    codex_options_t *o = test_options(CODEX_DELIVERY_CALLBACKS);
    snprintf(json, sizeof json, "\"ws://127.0.0.1:%d\"", h->port);
    CHECK_OK(codex_options_set(o, "transport", json));
    if (h->is_signed) {
        CHECK_OK(codex_options_set(o, "ws_auth", "\"signed-bearer-token\""));
        snprintf(json, sizeof json, "\"%s\"", h->auth_file);
        CHECK_OK(codex_options_set(o, "ws_shared_secret_file", json));
        CHECK_OK(codex_options_set(o, "ws_issuer", "\"" ISSUER "\""));
        CHECK_OK(codex_options_set(o, "ws_audience", "\"" AUDIENCE "\""));
    } else {
        snprintf(json, sizeof json, "\"%s\"", h->secret);
        CHECK_OK(codex_options_set(o, "token", json));
    }
    CHECK_OK(codex_options_set_heartbeat(o, 1000, 2000));
    return o;
}

/* ---------------------------------------------------------------- 200 threads */

static codex_pool_t *pool;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int next_task = 0;
static int placed[HOSTS];

static int name_index(const char *name) {
    int i;
    for (i = 0; i < HOSTS; i++)
        if (strcmp(name, names[i]) == 0) return i;
    FAIL("unknown endpoint `%s`", name);
    return -1;
}

/* Place a thread and run one turn on it to its final text; returns the endpoint's index. */
static int run_one(int task) {
    char *thread = NULL, *endpoint = NULL, *again = NULL, *result = NULL, text[64], want[96];
    codex_client_t *c = NULL;
    int e;
    CHECK_OK(codex_pool_thread_start(pool, NULL, &thread, &endpoint));
    CHECK_OK(codex_pool_endpoint_of(pool, thread, &again));
    if (strcmp(again, endpoint) != 0) FAIL("thread %s on `%s`, endpoint_of says `%s`", thread, endpoint, again);
    CHECK_OK(codex_pool_endpoint_client(pool, endpoint, &c));
    snprintf(text, sizeof text, "MOCK_TEXT: answer number %d", task);
    snprintf(want, sizeof want, "\"final_response\":\"answer number %d\"", task);
    if (codex_client_turn_run(c, thread, text, NULL, 120000, 60000, &result) != CODEX_STATUS_OK)
        FAIL("turn %d on `%s`: %s (result %s)", task, endpoint, codex_last_error_message(), result ? result : "none");
    CHECK_HAS(result, want);
    e = name_index(endpoint);
    codex_string_free(result);
    codex_string_free(again);
    codex_string_free(endpoint);
    codex_string_free(thread);
    codex_client_free(c);
    return e;
}

static void *worker(void *arg) {
    (void)arg;
    for (;;) {
        int task, e;
        pthread_mutex_lock(&lock);
        task = next_task++;
        pthread_mutex_unlock(&lock);
        if (task >= THREADS) return NULL;
        e = run_one(task);
        pthread_mutex_lock(&lock);
        placed[e]++;
        pthread_mutex_unlock(&lock);
    }
}

/* ---------------------------------------------------------------- the faults */

typedef struct {
    char *thread;
    char *endpoint;
    codex_status_t status;
    char message[2048];
    char *result;
    double ended;
    pthread_t tid;
} slow_t;

static void *slow_turn(void *arg) {
    slow_t *s = arg;
    codex_client_t *c = NULL;
    CHECK_OK(codex_pool_endpoint_client(pool, s->endpoint, &c));
    s->status = codex_client_turn_run(c, s->thread, "MOCK_SLOW: 30 200", NULL, 120000, 60000, &s->result);
    snprintf(s->message, sizeof s->message, "%s", s->status == CODEX_STATUS_OK ? "" : codex_last_error_message());
    s->ended = now_s();
    codex_client_free(c);
    return NULL;
}

static char *endpoints_json(void) {
    char *out = NULL;
    CHECK_OK(codex_pool_endpoints_json(pool, &out));
    return out;
}

int main(void) {
    pthread_t workers[WORKERS];
    slow_t slow[HOSTS];
    char *json, needle[128], *thread = NULL, *endpoint = NULL;
    double t0, killed_at;
    int i, n, status;

    for (i = 0; i < HOSTS; i++) host_start(i, i % 2);
    for (i = 0; i < HOSTS; i++) host_wait(i);

    /* Bad input first. */
    CHECK_STATUS(codex_pool_new("{\"place_timeout\": -1}", &pool), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "place_timeout");
    CHECK_STATUS(codex_pool_new("{\"no_such_option\": 1}", &pool), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "no_such_option");
    CHECK_OK(codex_pool_new(NULL, &pool));
    CHECK_STATUS(codex_pool_thread_start(pool, NULL, &thread, &endpoint), CODEX_STATUS_UNAVAILABLE);
    CHECK_HAS(codex_last_error_message(), "no endpoint");

    for (i = 0; i < HOSTS; i++) {
        codex_options_t *o = host_options(i);
        CHECK_OK(codex_pool_add_endpoint(pool, names[i], o, NULL));
        codex_options_free(o);
    }
    {
        codex_options_t *o = host_options(0);
        CHECK_STATUS(codex_pool_add_endpoint(pool, "alive", o, NULL), CODEX_STATUS_INVALID_ARGUMENT);
        CHECK_HAS(codex_last_error_message(), "alive");
        codex_options_free(o);
    }
    CHECK_STATUS(codex_pool_drain_endpoint(pool, "nowhere"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), "nowhere");

    t0 = now_s();
    for (i = 0; i < WORKERS; i++) CHECK(pthread_create(&workers[i], NULL, worker, NULL) == 0);
    for (i = 0; i < WORKERS; i++) CHECK(pthread_join(workers[i], NULL) == 0);
    printf("  %d threads on %d real app-servers in %.1f s:", THREADS, HOSTS, now_s() - t0);
    for (i = 0, n = 0; i < HOSTS; i++) {
        printf(" %s=%d", names[i], placed[i]);
        n += placed[i];
        if (placed[i] < 40 || placed[i] > 60) FAIL("`%s` took %d of %d (even is 50 +- 20 %%)", names[i], placed[i], THREADS);
    }
    printf("\n");
    CHECK(n == THREADS);
    json = endpoints_json();
    for (i = 0; i < HOSTS; i++) {
        snprintf(needle, sizeof needle, "\"threads_placed\":%d", placed[i]);
        CHECK_HAS(json, needle);
        if (strstr(json, hosts[i].secret) != NULL) FAIL("host %d's secret in the endpoints' JSON", i);
    }
    CHECK_HAS(json, "\"running_turns\":0");
    codex_string_free(json);

    /* A slow turn on every endpoint, each waited for on a program thread of its own. */
    memset(slow, 0, sizeof slow);
    for (i = 0; i < HOSTS; i++) {
        CHECK_OK(codex_pool_thread_start(pool, NULL, &slow[i].thread, &slow[i].endpoint));
        CHECK(pthread_create(&slow[i].tid, NULL, slow_turn, &slow[i]) == 0);
    }
    for (i = 0; i < HOSTS; i++) {
        int j, seen = 0;
        for (j = 0; j < HOSTS; j++) seen += strcmp(slow[j].endpoint, names[i]) == 0;
        if (seen != 1) FAIL("`%s` got %d of the slow turns (least busy puts one on each)", names[i], seen);
    }
    /* Wait until every slow turn runs (the endpoints count it), then drain one and kill one. */
    t0 = now_s();
    for (;;) {
        json = endpoints_json();
        n = strstr(json, "\"running_turns\":0") == NULL;
        codex_string_free(json);
        if (n) break;
        if (now_s() - t0 > 30) FAIL("the slow turns never all ran");
        sleep_ms(20);
    }
    CHECK_OK(codex_pool_drain_endpoint(pool, "drained"));
    json = endpoints_json();
    CHECK_HAS(json, "\"state\":\"draining\"");
    codex_string_free(json);
    killed_at = now_s();
    CHECK(kill(hosts[1].pid, SIGKILL) == 0);
    for (i = 0; i < HOSTS; i++) {
        CHECK(pthread_join(slow[i].tid, NULL) == 0);
        if (strcmp(slow[i].endpoint, "killed") == 0) {
            if (slow[i].status != CODEX_STATUS_DISCONNECTED)
                FAIL("the killed endpoint's turn: status %d (%s)", slow[i].status, slow[i].message);
            if (slow[i].ended - killed_at > 10.0) FAIL("noticed after %.1f s", slow[i].ended - killed_at);
            CHECK_HAS(slow[i].message, "`killed`");
            CHECK_HAS(slow[i].message, slow[i].thread);
            printf("  the killed endpoint's turn: %s\n", slow[i].message);
        } else {
            if (slow[i].status != CODEX_STATUS_OK) FAIL("a turn on `%s`: %s", slow[i].endpoint, slow[i].message);
            CHECK(turn_status_is(slow[i].result, "completed") || strstr(slow[i].result, "\"status\":\"completed\"") != NULL);
        }
        codex_string_free(slow[i].result);
    }
    t0 = now_s();
    for (;;) {
        json = endpoints_json();
        n = strstr(json, "\"name\":\"drained\"") == NULL;
        if (n) break;
        codex_string_free(json);
        if (now_s() - t0 > 20) FAIL("the drained endpoint never left");
        sleep_ms(50);
    }
    CHECK_HAS(json, "\"state\":\"lost\"");
    codex_string_free(json);
    for (i = 0; i < 6; i++) {
        int e = run_one(1000 + i);
        if (e != 0 && e != 3) FAIL("a new thread went to `%s`", names[e]);
    }
    for (i = 0; i < HOSTS; i++) {
        codex_string_free(slow[i].thread);
        codex_string_free(slow[i].endpoint);
    }

    /* No healthy endpoint: refused at once, naming the lost one. */
    CHECK_OK(codex_pool_remove_endpoint(pool, "alive"));
    CHECK_OK(codex_pool_remove_endpoint(pool, "alive2"));
    CHECK_STATUS(codex_pool_remove_endpoint(pool, "alive2"), CODEX_STATUS_INVALID_ARGUMENT);
    t0 = now_s();
    thread = endpoint = NULL;
    CHECK_STATUS(codex_pool_thread_start(pool, NULL, &thread, &endpoint), CODEX_STATUS_UNAVAILABLE);
    CHECK(now_s() - t0 < 2.0);
    CHECK_HAS(codex_last_error_message(), "killed");
    CHECK(thread == NULL && endpoint == NULL);
    codex_pool_free(pool);

    for (i = 0; i < HOSTS; i++) {
        if (i != 1) kill(hosts[i].pid, SIGKILL);
        CHECK(waitpid(hosts[i].pid, &status, 0) == hosts[i].pid);
    }
    printf("test_pool: ok\n");
    return 0;
}
