/* Issue 40 in C: an approval raised on this (worker) process is answered by a handler in
 * ANOTHER process from its JSON reference, against the real Codex and the local mock model:
 * - the handler process is forked before any library call; it only sees the JSON text of
 *   the event (codex_event_to_json), decides, and writes the decision back over a pipe;
 * - making the JSON parks the request: freeing the event does not decline it;
 * - the answer goes back through codex_client_respond_ref_decision on the owning client (the
 *   command runs); answered twice -> CODEX_STATUS_ALREADY_RESPONDED;
 * - another client's answer -> CODEX_STATUS_INVALID_ARGUMENT naming both ids and labels;
 * - never answered -> declined at the bound (option parked_request_timeout), and a late
 *   answer -> CODEX_STATUS_ALREADY_RESPONDED;
 * - codex_event_endpoint / codex_request_endpoint / codex_client_id; the JSON form of a
 *   notification and of a connection event.
 */
#include "test_util.h"

#include <errno.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static codex_client_t *C;

/* --- the handler process ------------------------------------------------------------- */

/* Read one line (up to '\n') from fd into buf; 0 at EOF. */
static size_t read_line(int fd, char *buf, size_t cap) {
    size_t n = 0;
    while (n + 1 < cap) {
        char ch;
        ssize_t r = read(fd, &ch, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        if (ch == '\n') break;
        buf[n++] = ch;
    }
    buf[n] = '\0';
    return n;
}

static void write_all(int fd, const char *s) {
    size_t len = strlen(s);
    while (len > 0) {
        ssize_t w = write(fd, s, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) FAIL("write to the pipe failed");
        s += w;
        len -= (size_t)w;
    }
}

/* The other process: for each event JSON it reads, the decision for its approval (it never
 * links a client: it has no connection, only the text). Exits at EOF. */
static void handler_process(int in, int out) {
    static char line[1 << 20];
    while (read_line(in, line, sizeof line) > 0) {
        const char *decision;
        if (strstr(line, "\"server_request\"") == NULL ||
            strstr(line, "\"method\":\"item/commandExecution/requestApproval\"") == NULL) {
            write_all(out, "error\n");
            continue;
        }
        decision = strstr(line, "echo ran-by-ref") != NULL ? "accept\n" : "decline\n";
        write_all(out, decision);
    }
    _exit(0);
}

/* --- the worker (this process) -------------------------------------------------------- */

static codex_event_t *next_event(int seconds) {
    codex_event_t *ev = NULL;
    double end = now_s() + seconds;
    for (;;) {
        codex_status_t st = codex_client_next_event(C, 1000, &ev);
        if (st == CODEX_STATUS_OK) return ev;
        CHECK_STATUS(st, CODEX_STATUS_TIMEOUT);
        if (now_s() > end) FAIL("no event within %d s", seconds);
    }
}

/* The server request's reference, from the `server_request` member of an event's JSON form:
 * the object after `{"server_request":`, without the final `}`. Caller frees. */
static char *reference_of(const char *event_json) {
    const char *prefix = "{\"server_request\":";
    size_t len;
    char *ref;
    CHECK(strncmp(event_json, prefix, strlen(prefix)) == 0);
    len = strlen(event_json) - strlen(prefix) - 1;
    ref = (char *)malloc(len + 1);
    CHECK(ref != NULL);
    memcpy(ref, event_json + strlen(prefix), len);
    ref[len] = '\0';
    return ref;
}

typedef struct {
    char *ref;           /* the approval's reference (owned) */
    char status[32];     /* turn/completed status */
    char command[32];    /* the commandExecution item's status */
    int notifications;
} turn_t;

/* Run a turn; the approval goes to the handler process over `to`/`from` when `ask` (else it
 * is never answered). Returns when the turn completed. */
static void run_turn(const char *thread, const char *prompt, int ask, int to, int from, turn_t *t) {
    char *turn = NULL;
    memset(t, 0, sizeof *t);
    CHECK_OK(codex_client_turn_start(C, thread, prompt, NULL, 0, &turn));
    for (;;) {
        codex_event_t *ev = next_event(60);
        codex_event_kind_t k = codex_event_kind(ev);
        if (k == CODEX_EVENT_SERVER_REQUEST) {
            const char *json = codex_event_to_json(ev); /* parks the request */
            codex_request_t *req = codex_event_request(ev);
            CHECK(json != NULL);
            CHECK_HAS(json, "\"endpoint\":\"c-worker\"");
            CHECK(codex_event_endpoint(ev) != NULL && strcmp(codex_event_endpoint(ev), "c-worker") == 0);
            CHECK(req != NULL && strcmp(codex_request_endpoint(req), "c-worker") == 0);
            t->ref = reference_of(json);
            {
                char *again = NULL;
                CHECK_OK(codex_request_to_json(req, &again));
                CHECK(strcmp(again, t->ref) == 0);
                codex_string_free(again);
            }
            if (ask) {
                write_all(to, json);
                write_all(to, "\n");
            }
            codex_event_free(ev); /* parked: not declined */
            if (ask) {
                char decision[64];
                CHECK(read_line(from, decision, sizeof decision) > 0);
                CHECK(strcmp(decision, "accept") == 0);
                CHECK_OK(codex_client_respond_ref_decision(C, t->ref, decision));
                CHECK_STATUS(codex_client_respond_ref_decision(C, t->ref, "decline"),
                             CODEX_STATUS_ALREADY_RESPONDED);
            }
            continue;
        }
        if (k == CODEX_EVENT_NOTIFICATION) {
            const char *m = codex_event_method(ev);
            const char *p = codex_event_params(ev);
            t->notifications++;
            CHECK(codex_event_endpoint(ev) != NULL && strcmp(codex_event_endpoint(ev), "c-worker") == 0);
            if (strcmp(m, "item/completed") == 0 && strstr(p, "\"type\":\"commandExecution\"") != NULL) {
                const char *s = strstr(p, "\"status\":\"");
                CHECK(s != NULL);
                sscanf(s + 10, "%31[^\"]", t->command);
            }
            if (strcmp(m, "turn/completed") == 0 && strstr(p, turn) != NULL) {
                const char *json = codex_event_to_json(ev);
                const char *head = "{\"notification\":{\"method\":\"turn/completed\"";
                CHECK(json != NULL && strncmp(json, head, strlen(head)) == 0);
                CHECK_HAS(json, "\"endpoint\":\"c-worker\"");
                snprintf(t->status, sizeof t->status, "%s",
                         turn_status_is(p, "completed") ? "completed" : "other");
                codex_event_free(ev);
                break;
            }
        }
        codex_event_free(ev);
    }
    codex_string_free(turn);
}

int main(void) {
    int to_handler[2], from_handler[2];
    pid_t handler;
    codex_options_t *o;
    codex_client_t *other = NULL;
    char *thread = NULL, *id = NULL, *other_id = NULL;
    char marker[1024], prompt[2048];
    turn_t t;
    int status = 0;
    const char *work = env_or_die("CODEX_WORK");

    /* The handler process, forked before the library starts any thread. */
    CHECK(pipe(to_handler) == 0 && pipe(from_handler) == 0);
    handler = fork();
    CHECK(handler >= 0);
    if (handler == 0) {
        close(to_handler[1]);
        close(from_handler[0]);
        handler_process(to_handler[0], from_handler[1]);
    }
    close(to_handler[0]);
    close(from_handler[1]);

    o = test_options(CODEX_DELIVERY_POLL);
    CHECK_OK(codex_options_set(o, "label", "\"c-worker\""));
    CHECK_OK(codex_options_set(o, "parked_request_timeout", "2"));
    CHECK_OK(codex_client_new(o, &C));
    codex_options_free(o);
    CHECK_OK(codex_client_id(C, &id));
    CHECK(strlen(id) == 32);
    CHECK_OK(codex_client_connect(C, NULL));
    CHECK_OK(codex_client_thread_start(C, NULL, 0, &thread));

    /* 1. Answered by the other process, by reference: the command runs. */
    snprintf(marker, sizeof marker, "%s/ran.txt", work);
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: touch %s && echo ran-by-ref", marker);
    run_turn(thread, prompt, 1, to_handler[1], from_handler[0], &t);
    CHECK(strcmp(t.status, "completed") == 0);
    CHECK(strcmp(t.command, "completed") == 0);
    CHECK(file_exists(marker));
    CHECK_HAS(t.ref, id); /* owned by this client */

    /* 2. Another client's reference: refused, naming both ids and labels (no connection
     * needed to say so). */
    o = new_options();
    CHECK_OK(codex_options_set(o, "label", "\"c-other\""));
    CHECK_OK(codex_client_new(o, &other));
    codex_options_free(o);
    CHECK_OK(codex_client_id(other, &other_id));
    CHECK(strcmp(id, other_id) != 0);
    CHECK_STATUS(codex_client_respond_ref(other, t.ref, "{\"decision\":\"accept\"}"),
                 CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_HAS(codex_last_error_message(), id);
    CHECK_HAS(codex_last_error_message(), other_id);
    CHECK_HAS(codex_last_error_message(), "c-worker");
    CHECK_HAS(codex_last_error_message(), "c-other");
    CHECK_STATUS(codex_client_respond_ref(C, "not json", "{}"), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_respond_ref_error(C, t.ref, -32000, "late", NULL),
                 CODEX_STATUS_ALREADY_RESPONDED);
    free(t.ref);

    /* 3. Never answered: declined at the bound (2 s); a late answer is refused. */
    snprintf(marker, sizeof marker, "%s/never.txt", work);
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: touch %s && echo never-answered", marker);
    run_turn(thread, prompt, 0, -1, -1, &t);
    CHECK(strcmp(t.command, "declined") == 0);
    CHECK(!file_exists(marker));
    CHECK_STATUS(codex_client_respond_ref_decision(C, t.ref, "accept"), CODEX_STATUS_ALREADY_RESPONDED);
    CHECK_STATUS(codex_client_respond_ref_decision(C, t.ref, "maybe"), CODEX_STATUS_INVALID_ARGUMENT);
    free(t.ref);

    /* The JSON form of a connection event: the DISCONNECTED event after disconnect. */
    CHECK_OK(codex_client_disconnect(C));
    {
        codex_event_t *ev = NULL;
        for (;;) {
            CHECK_OK(codex_client_next_event(C, 10000, &ev));
            if (codex_event_kind(ev) == CODEX_EVENT_DISCONNECTED) break;
            codex_event_free(ev);
        }
        CHECK(codex_event_to_json(ev) != NULL);
        CHECK(strncmp(codex_event_to_json(ev), "{\"connection\":{", strlen("{\"connection\":{")) == 0);
        CHECK_HAS(codex_event_to_json(ev), "\"kind\":\"disconnected\"");
        CHECK(codex_event_endpoint(ev) == NULL);
        codex_event_free(ev);
    }

    close(to_handler[1]); /* EOF: the handler process exits */
    close(from_handler[0]);
    CHECK(waitpid(handler, &status, 0) == handler);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    codex_string_free(thread);
    codex_string_free(id);
    codex_string_free(other_id);
    codex_client_free(other);
    codex_client_free(C);
    printf("test_by_reference: ok\n");
    return 0;
}
