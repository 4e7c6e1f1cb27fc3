/* The real OAuth fixtures of the C tests, started by oauth_fixture_start_server:
 *   "oidc"    scripts/mcp/oauth-fixture.mjs (oidc-provider in front of an MCP server on the
 *             official TypeScript SDK that verifies every token), started with MCP_NODE;
 *   "python"  scripts/mcp/oauth-fixture.py (the official Python SDK's own authorization server,
 *             mcp.server.auth, in front of an MCP server on the same SDK that requires a
 *             scope), started with MCP_SDK_PYTHON (else .cache/mcp-sdk-python);
 * each stopped by closing its stdin; a minimal HTTP/1.0 client for its headless "browser" and
 * control endpoints; and a capture of the library's log lines (codex_set_log_callback at
 * TRACE) for the no-secret-in-any-log-line check.
 *
 *   CODEX_OAUTH_FIXTURE  the oidc fixture script (default scripts/mcp/oauth-fixture.mjs, from
 *                        the repository root, where scripts/test-c.sh runs the tests)
 *   CODEX_OAUTH_FIXTURE_LOG  a file for the fixture's stderr (default /dev/null)
 *
 * oidc-provider, the MCP SDKs and the Python SDK's venv come from scripts/setup-mcp.sh; a
 * missing one fails the test with that hint.
 */
#ifndef CODEXCLIENT_OAUTH_FIXTURE_H
#define CODEXCLIENT_OAUTH_FIXTURE_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <poll.h>
#include <sys/time.h>

#include "mcp_util.h"
#include "test_util.h"

/* The fixture, running until oauth_fixture_stop. */
typedef struct {
    pid_t pid;
    int stdin_fd;
    char info[8192]; /* its first line: {"issuer", "mcp", "browse", "control", ...} */
} oauth_fixture_t;

/* The string value of `"key":"` after `from` in JSON text `text` (no escapes but \n and \/
 * decoded), malloc'd; exits when absent. */
static inline char *oauth_json_str(const char *text, const char *from, const char *key) {
    char needle[128];
    const char *p = text, *e;
    char *out, *o;
    if (from != NULL) {
        p = strstr(text, from);
        if (p == NULL) FAIL("%s not in %s", from, text);
    }
    snprintf(needle, sizeof needle, "\"%s\":\"", key);
    p = strstr(p, needle);
    if (p == NULL) FAIL("%s not in %s", needle, text);
    p += strlen(needle);
    e = p;
    while (*e != '\0' && *e != '"') e += (*e == '\\' && e[1] != '\0') ? 2 : 1;
    out = o = (char *)malloc((size_t)(e - p) + 1);
    if (out == NULL) exit(1);
    while (p < e) {
        if (*p == '\\') {
            p++;
            *o++ = *p == 'n' ? '\n' : *p;
            p++;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* The fixture of `server` ("oidc" or "python", above), once it printed its line. */
static inline oauth_fixture_t oauth_fixture_start_server(const char *server) {
    static const char *const python_links[] = {".cache/mcp-sdk-python", NULL};
    oauth_fixture_t fx;
    int python = strcmp(server, "python") == 0;
    const char *node = python ? mcp_find("MCP_SDK_PYTHON", python_links) : mcp_node();
    const char *script = python ? "scripts/mcp/oauth-fixture.py" : getenv("CODEX_OAUTH_FIXTURE");
    char *argv[3];
    int in_pipe[2], out_pipe[2];
    size_t n = 0;
    posix_spawn_file_actions_t fa;
    struct pollfd pfd;
    double until = now_s() + 60;

    if (script == NULL || *script == '\0') script = "scripts/mcp/oauth-fixture.mjs";
    if (access(script, R_OK) != 0) FAIL("the OAuth fixture %s is missing (run from the repository root)", script);
    if (!python && access("scripts/mcp/node_modules/oidc-provider", R_OK) != 0)
        FAIL("oidc-provider is missing: run bash scripts/setup-mcp.sh");
    if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) FAIL("pipe");
    argv[0] = (char *)node;
    argv[1] = (char *)script;
    argv[2] = NULL;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, getenv("CODEX_OAUTH_FIXTURE_LOG") ? getenv("CODEX_OAUTH_FIXTURE_LOG") : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addclose(&fa, in_pipe[1]);
    posix_spawn_file_actions_addclose(&fa, out_pipe[0]);
    if (posix_spawn(&fx.pid, node, &fa, NULL, argv, environ) != 0) FAIL("posix_spawn %s", node);
    posix_spawn_file_actions_destroy(&fa);
    close(in_pipe[0]);
    close(out_pipe[1]);
    fx.stdin_fd = in_pipe[1];
    /* Its first line, within a bound. */
    pfd.fd = out_pipe[0];
    pfd.events = POLLIN;
    while (n == 0 || fx.info[n - 1] != '\n') {
        ssize_t got;
        int left = (int)((until - now_s()) * 1000);
        if (left <= 0 || poll(&pfd, 1, left) <= 0) FAIL("the OAuth fixture printed no line within 60 s");
        got = read(out_pipe[0], fx.info + n, sizeof fx.info - 1 - n);
        if (got <= 0) FAIL("the OAuth fixture exited before it was ready");
        n += (size_t)got;
        if (n >= sizeof fx.info - 1) FAIL("the OAuth fixture's line is too long");
    }
    fx.info[n] = '\0';
    close(out_pipe[0]);
    if (strstr(fx.info, "\"mcp\":\"http://127.0.0.1:") == NULL) FAIL("the fixture says %s", fx.info);
    return fx;
}

/* The oidc-provider fixture. */
static inline oauth_fixture_t oauth_fixture_start(void) { return oauth_fixture_start_server("oidc"); }

static inline void oauth_fixture_stop(oauth_fixture_t *fx) {
    int status;
    close(fx->stdin_fd);
    kill(fx->pid, SIGTERM);
    while (waitpid(fx->pid, &status, 0) < 0 && errno == EINTR) {
    }
}

/* `s` percent-encoded for a query (malloc'd). */
static inline char *oauth_urlencode(const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    char *out = (char *)malloc(strlen(s) * 3 + 1), *o = out;
    if (out == NULL) exit(1);
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
            c == '.' || c == '~') {
            *o++ = (char)c;
        } else {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    *o = '\0';
    return out;
}

/* `method url` (http://127.0.0.1:PORT/...) over HTTP/1.0; the body of its 200 answer
 * (malloc'd), or NULL (and `*status` the status) otherwise. Bounded: 30 s of silence. */
static inline char *oauth_http(const char *method, const char *url, int *status) {
    const char *hostport = url + strlen("http://"), *path = strchr(hostport, '/');
    char req[16384], *answer, *body;
    size_t cap = 65536, n = 0;
    int port = atoi(strchr(hostport, ':') + 1), s;
    struct sockaddr_in a;
    struct timeval tv = {30, 0};
    if (path == NULL) path = "/";
    s = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) FAIL("connect %s", url);
    snprintf(req, sizeof req, "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", method, path);
    if (write(s, req, strlen(req)) != (ssize_t)strlen(req)) FAIL("write %s", url);
    answer = (char *)malloc(cap);
    if (answer == NULL) exit(1);
    for (;;) {
        ssize_t got = read(s, answer + n, cap - 1 - n);
        if (got <= 0) break;
        n += (size_t)got;
        if (n == cap - 1) {
            cap *= 2;
            answer = (char *)realloc(answer, cap);
            if (answer == NULL) exit(1);
        }
    }
    close(s);
    answer[n] = '\0';
    *status = strncmp(answer, "HTTP/1.", 7) == 0 ? atoi(answer + 9) : 0;
    body = strstr(answer, "\r\n\r\n");
    if (*status != 200 || body == NULL) {
        fprintf(stderr, "%s %s: %.300s\n", method, url, answer);
        free(answer);
        return NULL;
    }
    memmove(answer, body + 4, strlen(body + 4) + 1);
    return answer;
}

/* GET (or POST) `<control>/<what>` of the fixture: its JSON answer (malloc'd). */
static inline char *oauth_control(const oauth_fixture_t *fx, const char *what, int post) {
    char *control = oauth_json_str(fx->info, NULL, "control"), url[512], *r;
    int status;
    snprintf(url, sizeof url, "%s/%s", control, what);
    free(control);
    r = oauth_http(post ? "POST" : "GET", url, &status);
    if (r == NULL) FAIL("%s: HTTP %d", url, status);
    return r;
}

/* The number after `"key":` in JSON text. */
static inline long oauth_json_num(const char *text, const char *key) {
    char needle[64];
    const char *p;
    snprintf(needle, sizeof needle, "\"%s\":", key);
    p = strstr(text, needle);
    if (p == NULL) FAIL("%s not in %s", needle, text);
    return strtol(p + strlen(needle), NULL, 10);
}

/* A counter of the fixture's stats. */
static inline long oauth_stat(const oauth_fixture_t *fx, const char *key) {
    char *stats = oauth_control(fx, "stats", 0);
    long v = oauth_json_num(stats, key);
    free(stats);
    return v;
}

/* The headless browser: where the authorization server sends the user back to after signing
 * in as alice and granting what was asked (malloc'd), or NULL. */
static inline char *oauth_browse(const oauth_fixture_t *fx, const char *authorization_url) {
    char *browse = oauth_json_str(fx->info, NULL, "browse"), *enc = oauth_urlencode(authorization_url), *url, *r;
    int status;
    url = (char *)malloc(strlen(browse) + strlen(enc) + 8);
    if (url == NULL) exit(1);
    sprintf(url, "%s?url=%s", browse, enc);
    r = oauth_http("GET", url, &status);
    free(browse);
    free(enc);
    free(url);
    return r;
}

/* ---- every log line of the library (TRACE), kept for the secret check ---------------------- */
static pthread_mutex_t OAUTH_LOG_MU = PTHREAD_MUTEX_INITIALIZER;
static char *OAUTH_LOG = NULL;
static size_t OAUTH_LOG_LEN = 0, OAUTH_LOG_CAP = 0;

static inline void oauth_on_log(void *userdata, codex_log_level_t level, const char *target, const char *message) {
    size_t add = strlen(target) + strlen(message) + 4;
    (void)userdata;
    (void)level;
    pthread_mutex_lock(&OAUTH_LOG_MU);
    if (OAUTH_LOG_LEN + add + 1 > OAUTH_LOG_CAP) {
        OAUTH_LOG_CAP = (OAUTH_LOG_LEN + add + 1) * 2;
        OAUTH_LOG = (char *)realloc(OAUTH_LOG, OAUTH_LOG_CAP);
        if (OAUTH_LOG == NULL) exit(1);
    }
    OAUTH_LOG_LEN += (size_t)sprintf(OAUTH_LOG + OAUTH_LOG_LEN, "%s: %s\n", target, message);
    pthread_mutex_unlock(&OAUTH_LOG_MU);
}

/* Wait (at most 20 s) until a log line holds `marker`. */
static inline void oauth_wait_log(const char *marker) {
    double until = now_s() + 20;
    for (;;) {
        int found;
        pthread_mutex_lock(&OAUTH_LOG_MU);
        found = OAUTH_LOG != NULL && strstr(OAUTH_LOG, marker) != NULL;
        pthread_mutex_unlock(&OAUTH_LOG_MU);
        if (found) return;
        if (now_s() > until) FAIL("no log line holds %s within 20 s", marker);
        sleep_ms(20);
    }
}

/* Fail when any log line holds `secret`. */
static inline void oauth_check_not_logged(const char *secret) {
    pthread_mutex_lock(&OAUTH_LOG_MU);
    if (OAUTH_LOG != NULL && strstr(OAUTH_LOG, secret) != NULL) {
        const char *at = strstr(OAUTH_LOG, secret);
        FAIL("a secret is in a log line: ...%.200s", at > OAUTH_LOG + 100 ? at - 100 : OAUTH_LOG);
    }
    pthread_mutex_unlock(&OAUTH_LOG_MU);
}

/* Every string of length >= 12 in JSON text `text` that is not a key, checked against the log;
 * the number checked. */
static inline int oauth_check_secrets_not_logged(const char *text) {
    const char *p = text;
    int n = 0;
    while ((p = strchr(p, '"')) != NULL) {
        const char *e = strchr(p + 1, '"');
        char value[1024];
        size_t len;
        if (e == NULL) break;
        len = (size_t)(e - p - 1);
        if (e[1] != ':' && len >= 12 && len < sizeof value) {
            memcpy(value, p + 1, len);
            value[len] = '\0';
            oauth_check_not_logged(value);
            n++;
        }
        p = e + 1;
    }
    return n;
}

#endif
