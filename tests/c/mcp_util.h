/* Where the MCP test tools are, and an everything server listening over HTTP (C99 and C++17).
 *
 *   MCP_NODE        Node 22 (scripts/test-c.sh exports it; else .cache/mcp-node)
 *   MCP_EVERYTHING  @modelcontextprotocol/server-everything's dist/index.js
 *                   (else .cache/mcp-everything or .cache/mcp-everything.js)
 *
 * Both are installed by scripts/setup-mcp.sh; a missing one fails the test with that hint.
 */
#ifndef CODEXCLIENT_MCP_UTIL_H
#define CODEXCLIENT_MCP_UTIL_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The first of `var` (when set) or the existing `links`; exits with the setup hint. */
static inline const char *mcp_find(const char *var, const char *const *links) {
    const char *v = getenv(var);
    if (v != NULL && *v != '\0') {
        if (access(v, R_OK) == 0) return v;
        fprintf(stderr, "%s=%s does not exist: run bash scripts/setup-mcp.sh\n", var, v);
        exit(1);
    }
    for (; *links != NULL; links++)
        if (access(*links, R_OK) == 0) return *links;
    fprintf(stderr,
            "%s is not set and %s is missing: run bash scripts/setup-mcp.sh (installs Node 22 and "
            "@modelcontextprotocol/server-everything), or set %s\n",
            var, links[-1], var);
    exit(1);
}

/* Node, for the everything server. */
static inline const char *mcp_node(void) {
    static const char *const links[] = {".cache/mcp-node", NULL};
    return mcp_find("MCP_NODE", links);
}

/* The everything server's entry point (arguments: stdio, streamableHttp or sse). */
static inline const char *mcp_everything(void) {
    static const char *const links[] = {".cache/mcp-everything", ".cache/mcp-everything.js", NULL};
    return mcp_find("MCP_EVERYTHING", links);
}

/* An everything server listening on 127.0.0.1:port. */
typedef struct {
    pid_t pid;
    int port;
} mcp_http_server_t;

/* A loopback port that was free a moment ago. */
static inline int mcp_free_port(void) {
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int port, s = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(s, (struct sockaddr *)&a, &len) != 0) {
        perror("mcp_free_port");
        exit(1);
    }
    port = ntohs(a.sin_port);
    close(s);
    return port;
}

static inline int mcp_port_open(int port) {
    struct sockaddr_in a;
    int ok, s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) return 0;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok = connect(s, (struct sockaddr *)&a, sizeof a) == 0;
    close(s);
    return ok;
}

/* Start `node everything <mode>` (streamableHttp or sse) with PORT set, its output to
 * /dev/null, and wait until it accepts connections: a bounded poll (20 s; node is not under
 * valgrind), failing early when the server exits. */
static inline mcp_http_server_t mcp_http_start(const char *mode) {
    mcp_http_server_t srv;
    const char *node = mcp_node(), *js = mcp_everything();
    char port_env[32];
    size_t n = 0, i;
    char **envp;
    char *argv[4];
    posix_spawn_file_actions_t fa;
    struct timespec pause = {0, 50 * 1000 * 1000};
    int tries, status;

    srv.port = mcp_free_port();
    snprintf(port_env, sizeof port_env, "PORT=%d", srv.port);
    while (environ[n] != NULL) n++;
    envp = (char **)calloc(n + 2, sizeof *envp);
    if (envp == NULL) exit(1);
    for (i = 0, n = 0; environ[i] != NULL; i++)
        if (strncmp(environ[i], "PORT=", 5) != 0) envp[n++] = environ[i];
    envp[n++] = port_env;
    argv[0] = (char *)node;
    argv[1] = (char *)js;
    argv[2] = (char *)mode;
    argv[3] = NULL;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (posix_spawn(&srv.pid, node, &fa, NULL, argv, envp) != 0) {
        perror("posix_spawn node");
        exit(1);
    }
    posix_spawn_file_actions_destroy(&fa);
    free(envp);
    for (tries = 0; tries < 400; tries++) {
        if (mcp_port_open(srv.port)) return srv;
        if (waitpid(srv.pid, &status, WNOHANG) == srv.pid) {
            fprintf(stderr, "the everything server (%s) exited before listening on %d\n", mode, srv.port);
            exit(1);
        }
        nanosleep(&pause, NULL);
    }
    fprintf(stderr, "the everything server (%s) did not listen on %d within 20 s\n", mode, srv.port);
    kill(srv.pid, SIGKILL);
    exit(1);
}

/* Stop it (SIGTERM, then reap). */
static inline void mcp_http_stop(mcp_http_server_t *srv) {
    int status;
    if (srv->pid <= 0) return;
    kill(srv->pid, SIGTERM);
    while (waitpid(srv->pid, &status, 0) < 0 && errno == EINTR) {
    }
    srv->pid = 0;
}

#endif
