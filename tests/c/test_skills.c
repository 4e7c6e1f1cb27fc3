/* codex_client_turn_start_with_skills (poll mode) against the real Codex and the mock model:
 * - app-server 0.169.0: a user skill selected by name goes natively (no emulated skills) and
 *   its SKILL.md body reaches the local model;
 * - exec transport: a project skill selected by path is emulated: the result lists it, and
 *   the model receives the body inside a `<skill ... emulated="true">` block;
 * - an unknown name, a missing path and NULL skills fail with INVALID_ARGUMENT before anything
 *   is sent (the out-parameters are NULL; the model saw no request with that prompt).
 * What the model received is read from the mock model (GET /_mock/requests).
 */
#include "test_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define HAIKU_BODY "SKILL-BODY-c-6f20: answer in haiku"
#define LINT_BODY "SKILL-BODY-c-d371: run the linter first"

/* mkdir -p `dir`/`name` and write its SKILL.md; the SKILL.md path into `out`. */
static void write_skill(const char *dir, const char *name, const char *body, char *out, size_t len) {
    char path[1024], cmd[1200];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    CHECK(system(cmd) == 0);
    snprintf(out, len, "%s/SKILL.md", path);
    f = fopen(out, "w");
    CHECK(f != NULL);
    fprintf(f, "---\nname: %s\ndescription: The %s skill\n---\n\n%s\n", name, name, body);
    CHECK(fclose(f) == 0);
}

/* Every request the mock model received (GET /_mock/requests), as malloc'd text. */
static char *model_requests(void) {
    const char *base = env_or_die("MOCK_MODEL_BASE_URL"); /* http://127.0.0.1:PORT/v1 */
    const char *colon = strrchr(base, ':');
    struct sockaddr_in a;
    const char *req = "GET /_mock/requests HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    ssize_t n;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fd >= 0 && colon != NULL && buf != NULL);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)atoi(colon + 1));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(write(fd, req, strlen(req)) == (ssize_t)strlen(req));
    while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
        len += (size_t)n;
        if (cap - len < 4096) {
            cap *= 2;
            buf = realloc(buf, cap);
            CHECK(buf != NULL);
        }
    }
    CHECK(n == 0);
    close(fd);
    buf[len] = '\0';
    return buf;
}

/* Wait for turn/completed of `turn` and check it completed. */
static void wait_turn(codex_client_t *c, const char *turn) {
    for (;;) {
        codex_event_t *ev = NULL;
        codex_status_t st = codex_client_next_event(c, 120000, &ev);
        if (st == CODEX_STATUS_TIMEOUT) FAIL("turn %s did not complete", turn);
        CHECK_OK(st);
        if (codex_event_kind(ev) == CODEX_EVENT_SERVER_REQUEST) FAIL("unexpected server request");
        if (codex_event_kind(ev) == CODEX_EVENT_NOTIFICATION &&
            strcmp(codex_event_method(ev), "turn/completed") == 0 && codex_event_turn_id(ev) != NULL &&
            strcmp(codex_event_turn_id(ev), turn) == 0) {
            if (!turn_status_is(codex_event_params(ev), "completed")) FAIL("%s", codex_event_params(ev));
            codex_event_free(ev);
            return;
        }
        codex_event_free(ev);
    }
}

/* A started thread of a new connected client (poll mode); `transport` NULL = app-server. */
static codex_client_t *connect_client(const char *transport, char **thread) {
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    codex_client_t *c = NULL;
    if (transport != NULL) {
        CHECK_OK(codex_options_set_transport(o, transport, NULL));
        CHECK_OK(codex_options_add_arg(o, "--skip-git-repo-check")); /* CODEX_WORK is no Git repo */
        CHECK_OK(codex_options_set(o, "skill_emulation", "\"when_needed\"")); /* exec: no native skills */
    }
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    CHECK_OK(codex_client_thread_start(c, NULL, 0, thread));
    return c;
}

static void check_bad(codex_client_t *c, const char *thread, const char *const *skills, size_t n,
                      const char *needle) {
    char *turn = (char *)1, *emulated = (char *)1;
    CHECK_STATUS(codex_client_turn_start_with_skills(c, thread, "MOCK_TEXT: c-never-sent", skills, n, NULL, 0,
                                                     &turn, &emulated),
                 CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(turn == NULL && emulated == NULL);
    CHECK_HAS(codex_last_error_message(), needle);
    printf("  refused: %s\n", codex_last_error_message());
}

int main(void) {
    const char *home = env_or_die("CODEX_HOME"), *work = env_or_die("CODEX_WORK");
    char skills_dir[1024], project_dir[1024], haiku[1100], lint[1100], missing[1100];
    char *thread = NULL, *turn = NULL, *emulated = NULL, *sent;
    codex_client_t *c;
    snprintf(skills_dir, sizeof skills_dir, "%s/skills", home);
    snprintf(project_dir, sizeof project_dir, "%s/.codex/skills", work);
    write_skill(skills_dir, "haiku", HAIKU_BODY, haiku, sizeof haiku);
    write_skill(project_dir, "lint-fix", LINT_BODY, lint, sizeof lint);
    snprintf(missing, sizeof missing, "%s/missing/SKILL.md", work);

    /* app-server: native */
    c = connect_client(NULL, &thread);
    {
        const char *skills[] = {"haiku"};
        CHECK_OK(codex_client_turn_start_with_skills(c, thread, "MOCK_TEXT: c-native", skills, 1, NULL, 0, &turn,
                                                     &emulated));
        CHECK(turn != NULL && emulated != NULL && strcmp(emulated, "[]") == 0);
        wait_turn(c, turn);
        codex_string_free(turn);
        codex_string_free(emulated);
    }
    {
        const char *unknown[] = {"nope"};
        check_bad(c, thread, unknown, 1, "unknown skill \"nope\"; available skills: ");
        CHECK_HAS(codex_last_error_message(), "haiku");
        check_bad(c, thread, NULL, 1, "skills is NULL");
    }
    codex_string_free(thread);
    CHECK_OK(codex_client_disconnect(c));
    codex_client_free(c);
    printf("  app-server: native\n");

    /* exec: emulated */
    c = connect_client("exec", &thread);
    {
        const char *skills[] = {lint};
        const char *bad_path[] = {missing};
        check_bad(c, thread, bad_path, 1, "cannot read skill");
        CHECK_OK(codex_client_turn_start_with_skills(c, thread, "MOCK_TEXT: c-emulated", skills, 1, NULL, 0, &turn,
                                                     &emulated));
        CHECK_HAS(emulated, "\"name\":\"lint-fix\"");
        CHECK_HAS(emulated, "\"description\":\"The lint-fix skill\"");
        wait_turn(c, turn);
        codex_string_free(turn);
        codex_string_free(emulated);
    }
    codex_string_free(thread);
    CHECK_OK(codex_client_disconnect(c));
    codex_client_free(c);
    printf("  exec: emulated\n");

    /* what the model received */
    sent = model_requests();
    {
        const char *native = strstr(sent, "MOCK_TEXT: c-native");
        const char *emul = strstr(sent, "MOCK_TEXT: c-emulated");
        CHECK(native != NULL && emul != NULL);
        CHECK(strstr(sent, HAIKU_BODY) != NULL);
        CHECK(strstr(sent, LINT_BODY) != NULL);
        CHECK_HAS(sent, "<skill name=\\\"lint-fix\\\" path=\\\"");
        CHECK_HAS(sent, "emulated=\\\"true\\\">\\n" LINT_BODY);
        CHECK(strstr(sent, "c-never-sent") == NULL);
    }
    free(sent);
    printf("test_skills: ok\n");
    return 0;
}
