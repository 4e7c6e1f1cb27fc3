/* Codex's signed-bearer-token WebSocket auth through the C API, options by name only:
 * - the real `codex app-server --listen ws://127.0.0.1:PORT --ws-auth signed-bearer-token
 *   --ws-shared-secret-file F --ws-issuer I --ws-audience A` (CODEX_BIN) with the mock model;
 *   codex_options_set(o, "ws_auth", "\"signed-bearer-token\"") with ws_shared_secret_file,
 *   ws_issuer, ws_audience: connect (the library mints the JWT), a turn runs to its final text,
 *   codex_client_server_version says the server is a remote one;
 * - a token signed with another secret: codex_client_connect fails with the server's HTTP 401
 *   in the message, and neither secret in it;
 * - a secret file others can read: codex_client_new refuses the options (INVALID_ARGUMENT,
 *   "readable by others"), without the secret in the message.
 */
#include "test_util.h"
#include "test_net.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define ISSUER "codex-client-c-tests"
#define AUDIENCE "codex-app-server"

/* A random 64-hex-character secret written to CODEX_WORK/<name> with `mode`; its path. */
static void write_secret(const char *name, mode_t mode, char *secret, char *path, size_t len) {
    const char *hex = "0123456789abcdef";
    int fd, i;
    unsigned char raw[32];
    fd = open("/dev/urandom", O_RDONLY);
    CHECK(fd >= 0 && read(fd, raw, sizeof raw) == (ssize_t)sizeof raw);
    close(fd);
    for (i = 0; i < 32; i++) {
        secret[2 * i] = hex[raw[i] >> 4];
        secret[2 * i + 1] = hex[raw[i] & 15];
    }
    secret[64] = '\0';
    snprintf(path, len, "%s/%s", env_or_die("CODEX_WORK"), name);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && write(fd, secret, 64) == 64 && write(fd, "\n", 1) == 1);
    close(fd);
    CHECK(chmod(path, mode) == 0);
}

/* `codex app-server --listen ws://127.0.0.1:port --ws-auth signed-bearer-token ...` with the
 * secret file `path`, started and listening (its pid). */
static pid_t start_server(int port, const char *path) {
    char listen_url[64];
    double t0 = now_s();
    pid_t pid;
    snprintf(listen_url, sizeof listen_url, "ws://127.0.0.1:%d", port);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        if (chdir(env_or_die("CODEX_WORK")) != 0) _exit(126);
        execl(env_or_die("CODEX_BIN"), "codex", "app-server", "--listen", listen_url, "--ws-auth",
              "signed-bearer-token", "--ws-shared-secret-file", path, "--ws-issuer", ISSUER,
              "--ws-audience", AUDIENCE, (char *)NULL);
        _exit(127);
    }
    while (!accepts(port)) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) FAIL("codex app-server exited (status %d)", status);
        if (now_s() - t0 > 30.0) FAIL("codex app-server never listened on %s", listen_url);
        {
            struct timespec pause = {0, 20000000L};
            nanosleep(&pause, NULL);
        }
    }
    return pid;
}

/* Options by name: the WebSocket URL, the signed mode with the secret in `path`. */
static codex_options_t *signed_options(int port, const char *path) {
    char json[1024];
    codex_options_t *o = test_options(CODEX_DELIVERY_POLL);
    snprintf(json, sizeof json, "\"ws://127.0.0.1:%d\"", port);
    CHECK_OK(codex_options_set(o, "transport", json));
    CHECK_OK(codex_options_set(o, "ws_auth", "\"signed-bearer-token\""));
    snprintf(json, sizeof json, "\"%s\"", path);
    CHECK_OK(codex_options_set(o, "ws_shared_secret_file", json));
    CHECK_OK(codex_options_set(o, "ws_issuer", "\"" ISSUER "\""));
    CHECK_OK(codex_options_set(o, "ws_audience", "\"" AUDIENCE "\""));
    return o;
}

int main(void) {
    char secret[65], path[512], other[65], other_path[512], shared[65], shared_path[512];
    codex_options_t *o;
    codex_client_t *c = NULL;
    char *thread = NULL, *result = NULL, *version = NULL;
    const char *msg;
    int port = free_port(), status;
    pid_t server;

    write_secret("ws-secret", 0600, secret, path, sizeof path);
    server = start_server(port, path);

    /* The signed mode by name: connect and run a turn. */
    o = signed_options(port, path);
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(c, NULL));
    CHECK_OK(codex_client_server_version(c, &version));
    CHECK_HAS(version, "\"source\":\"remote\"");
    codex_string_free(version);
    CHECK_OK(codex_client_thread_start(c, NULL, 0, &thread));
    CHECK_OK(codex_client_turn_run(c, thread, "MOCK_TEXT: signed from C", NULL, 120000, 60000, &result));
    CHECK_HAS(result, "\"final_response\":\"signed from C\"");
    codex_string_free(result);
    codex_string_free(thread);
    CHECK_OK(codex_client_disconnect(c));
    codex_client_free(c);
    printf("  signed bearer token: a turn ran\n");

    /* Another secret: the server's 401, named; no secret in the message. */
    write_secret("other-secret", 0600, other, other_path, sizeof other_path);
    o = signed_options(port, other_path);
    CHECK_OK(codex_client_new(o, &c));
    codex_options_free(o);
    CHECK_STATUS(codex_client_connect(c, NULL), CODEX_STATUS_TRANSPORT);
    msg = codex_last_error_message();
    CHECK_HAS(msg, "HTTP 401");
    if (strstr(msg, secret) != NULL || strstr(msg, other) != NULL) FAIL("a secret in `%s`", msg);
    printf("  wrong secret: %s\n", msg);
    CHECK(!codex_client_is_connected(c));
    codex_client_free(c);

    /* A secret file others can read: refused with the options, at codex_client_new. */
    write_secret("shared-secret", 0644, shared, shared_path, sizeof shared_path);
    o = signed_options(port, shared_path);
    c = NULL;
    CHECK_STATUS(codex_client_new(o, &c), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(c == NULL);
    msg = codex_last_error_message();
    CHECK_HAS(msg, "readable by others");
    if (strstr(msg, shared) != NULL) FAIL("the secret in `%s`", msg);
    printf("  shared secret file: %s\n", msg);
    codex_options_free(o);

    kill(server, SIGKILL);
    CHECK(waitpid(server, &status, 0) == server);
    printf("test_ws_auth: ok\n");
    return 0;
}
