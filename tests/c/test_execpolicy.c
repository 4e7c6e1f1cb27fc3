/* The exec-policy amendment helper (codex_client_respond_execpolicy_amendment, ABI 1.10) end to
 * end against the real Codex CODEX_BIN and the mock model (MOCK_EXEC: asks for approval):
 * - misuse leaves the request open: a NULL prefix with a non-zero length, a NULL client;
 * - turn 1 `touch A`: the approval (with Codex's proposedExecpolicyAmendment) is answered with
 *   the prefix ["touch"]; a second answer is refused; the command runs, Codex resolves the
 *   request (serverRequest/resolved) and writes the rule into CODEX_HOME/rules;
 * - turn 2 `touch B`: Codex does not ask again (no server request) and the command runs: the
 *   rule took effect;
 * - turn 3 `mkdir C` (a control the rule does not cover): Codex asks again; declined, nothing
 *   runs;
 * - turn 4 `mkdir D`: answered with prefix_len 0 (the amendment Codex proposed), it runs; the
 *   rules file now names it too;
 * - a file-change approval (MOCK_PATCH on a thread with approval policy untrusted) is not a
 *   command approval: the amendment is refused (INVALID_ARGUMENT naming the method), the request
 *   stays open and is declined; the file is not written.
 */
#include "test_util.h"

#include <dirent.h>

typedef struct {
    int approvals;         /* command approval requests seen */
    int resolved;          /* serverRequest/resolved notifications */
    char status[32];       /* turn/completed status */
    char request[4096];    /* params of the last approval request */
    char command_item[8192]; /* the last completed commandExecution item (its params) */
} turn_log_t;

typedef enum { ANSWER_TOUCH_RULE, ANSWER_PROPOSED, ANSWER_DECLINE, ANSWER_NONE_EXPECTED, ANSWER_FILE_CHANGE } answer_t;

static codex_client_t *connect_poll(void) {
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    codex_client_t *c = NULL;
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    return c;
}

static void answer(codex_client_t *c, codex_request_t *req, answer_t how) {
    const char *touch[] = {"touch"};
    switch (how) {
    case ANSWER_TOUCH_RULE:
        /* Misuse first: refused, and the request stays open. */
        CHECK_STATUS(codex_client_respond_execpolicy_amendment(c, req, NULL, 1), CODEX_STATUS_INVALID_ARGUMENT);
        CHECK_HAS(codex_last_error_message(), "prefix");
        CHECK_STATUS(codex_client_respond_execpolicy_amendment(NULL, req, touch, 1), CODEX_STATUS_INVALID_ARGUMENT);
        CHECK(codex_request_is_open(req));
        CHECK_OK(codex_client_respond_execpolicy_amendment(c, req, touch, 1));
        CHECK(!codex_request_is_open(req));
        /* Answered once: a second answer is refused, nothing more is sent. */
        CHECK_STATUS(codex_client_respond_execpolicy_amendment(c, req, touch, 1), CODEX_STATUS_ALREADY_RESPONDED);
        break;
    case ANSWER_PROPOSED:
        CHECK_OK(codex_client_respond_execpolicy_amendment(c, req, NULL, 0));
        break;
    case ANSWER_DECLINE:
        CHECK_OK(codex_client_respond_decision(c, req, "decline"));
        break;
    case ANSWER_FILE_CHANGE:
        /* Not a command approval: refused, the request stays open; then declined. */
        CHECK(strcmp(codex_request_method(req), "item/fileChange/requestApproval") == 0);
        CHECK_STATUS(codex_client_respond_execpolicy_amendment(c, req, touch, 1), CODEX_STATUS_INVALID_ARGUMENT);
        CHECK_HAS(codex_last_error_message(), "item/fileChange/requestApproval");
        CHECK(codex_request_is_open(req));
        CHECK_OK(codex_client_respond_decision(c, req, "decline"));
        break;
    case ANSWER_NONE_EXPECTED:
        FAIL("Codex asked for approval of a command the exec-policy rule allows: %s", codex_request_params(req));
    }
}

/* Runs one turn of `prompt` to turn/completed, answering its command approval `how`. */
static void run_turn(codex_client_t *c, const char *thread, const char *prompt, answer_t how, turn_log_t *log) {
    char *turn = NULL;
    int completed = 0;
    double end = now_s() + 90;
    memset(log, 0, sizeof *log);
    CHECK_OK(codex_client_turn_start(c, thread, prompt, NULL, 0, &turn));
    while (!completed) {
        codex_event_t *ev = NULL;
        codex_status_t st = codex_client_next_event(c, 1000, &ev);
        const char *m;
        if (now_s() > end) FAIL("the turn of %s did not complete within 90 s", prompt);
        if (st == CODEX_STATUS_TIMEOUT) continue;
        CHECK_OK(st);
        m = codex_event_method(ev);
        if (codex_event_kind(ev) == CODEX_EVENT_SERVER_REQUEST) {
            codex_request_t *req = NULL;
            CHECK(strcmp(m, how == ANSWER_FILE_CHANGE ? "item/fileChange/requestApproval"
                                                       : "item/commandExecution/requestApproval") == 0);
            CHECK_OK(codex_event_take_request(ev, &req));
            log->approvals++;
            snprintf(log->request, sizeof log->request, "%s", codex_request_params(req));
            answer(c, req, how);
            codex_request_free(req);
        } else if (codex_event_kind(ev) == CODEX_EVENT_NOTIFICATION) {
            const char *p = codex_event_params(ev);
            if (strcmp(m, "serverRequest/resolved") == 0) {
                log->resolved++;
            } else if (strcmp(m, "item/completed") == 0 && strstr(p, "\"type\":\"commandExecution\"") != NULL) {
                snprintf(log->command_item, sizeof log->command_item, "%s", p);
            } else if (strcmp(m, "turn/completed") == 0) {
                const char *s = strstr(p, "\"status\":\"");
                CHECK(s != NULL);
                s += strlen("\"status\":\"");
                snprintf(log->status, sizeof log->status, "%.*s", (int)strcspn(s, "\""), s);
                completed = 1;
            }
        }
        codex_event_free(ev);
    }
    codex_string_free(turn);
}

/* The text of every file under CODEX_HOME/rules (Codex's exec-policy rules), concatenated. */
static void read_rules(char *buf, size_t n) {
    char dir[1024], path[2048];
    DIR *d;
    struct dirent *e;
    size_t used = 0;
    buf[0] = '\0';
    snprintf(dir, sizeof dir, "%s/rules", env_or_die("CODEX_HOME"));
    d = opendir(dir);
    if (d == NULL) return;
    while ((e = readdir(d)) != NULL) {
        FILE *f;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        f = fopen(path, "r");
        if (f == NULL) continue;
        used += fread(buf + used, 1, n - 1 - used, f);
        buf[used] = '\0';
        fclose(f);
    }
    closedir(d);
}

int main(void) {
    const char *work = env_or_die("CODEX_WORK");
    codex_client_t *c;
    char *thread = NULL, prompt[2048], a[1024], b[1024], cdir[1024], ddir[1024], rules[16384];
    turn_log_t log;
    CHECK(codex_abi_version() >= 1010);
    snprintf(a, sizeof a, "%s/amended-1.txt", work);
    snprintf(b, sizeof b, "%s/amended-2.txt", work);
    snprintf(cdir, sizeof cdir, "%s/not-covered", work);
    snprintf(ddir, sizeof ddir, "%s/proposed", work);
    c = connect_poll();
    CHECK_OK(codex_client_thread_start(c, NULL, 0, &thread));

    /* Turn 1: approved with the rule "touch ...". */
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: touch %s", a);
    run_turn(c, thread, prompt, ANSWER_TOUCH_RULE, &log);
    CHECK(log.approvals == 1);
    CHECK_HAS(log.request, "\"proposedExecpolicyAmendment\":[");
    CHECK(strcmp(log.status, "completed") == 0);
    CHECK(log.resolved == 1);
    CHECK(file_exists(a));
    CHECK_HAS(log.command_item, "\"status\":\"completed\"");
    read_rules(rules, sizeof rules);
    CHECK_HAS(rules, "prefix_rule(pattern=[\"touch\"], decision=\"allow\")");

    /* Turn 2: the same kind of command runs without asking. */
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: touch %s", b);
    run_turn(c, thread, prompt, ANSWER_NONE_EXPECTED, &log);
    CHECK(log.approvals == 0);
    CHECK(strcmp(log.status, "completed") == 0);
    CHECK(file_exists(b));
    CHECK_HAS(log.command_item, "\"status\":\"completed\"");

    /* Turn 3: a command the rule does not cover is asked about again; declined, not run. */
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: mkdir %s", cdir);
    run_turn(c, thread, prompt, ANSWER_DECLINE, &log);
    CHECK(log.approvals == 1);
    CHECK(!file_exists(cdir));
    CHECK_HAS(log.command_item, "\"status\":\"declined\"");

    /* Turn 4: prefix_len 0 takes the amendment Codex proposed. */
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: mkdir %s", ddir);
    run_turn(c, thread, prompt, ANSWER_PROPOSED, &log);
    CHECK(log.approvals == 1);
    CHECK(strcmp(log.status, "completed") == 0);
    CHECK(file_exists(ddir));
    CHECK_HAS(log.request, "\"proposedExecpolicyAmendment\":[\"mkdir\",");
    read_rules(rules, sizeof rules);
    snprintf(prompt, sizeof prompt, "prefix_rule(pattern=[\"mkdir\", \"%s\"], decision=\"allow\")", ddir);
    CHECK_HAS(rules, prompt);

    /* A file-change approval (a thread with approval policy untrusted) takes no amendment. */
    codex_string_free(thread);
    thread = NULL;
    CHECK_OK(codex_client_thread_start(c, "{\"approvalPolicy\":\"untrusted\"}", 0, &thread));
    run_turn(c, thread, "MOCK_PATCH: patched.txt written by the patch", ANSWER_FILE_CHANGE, &log);
    CHECK(log.approvals == 1);
    snprintf(prompt, sizeof prompt, "%s/patched.txt", work);
    CHECK(!file_exists(prompt));

    codex_string_free(thread);
    codex_client_free(c);
    printf("test_execpolicy: ok\n");
    return 0;
}
