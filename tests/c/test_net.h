/* Loopback helpers of the C tests that start listening app-servers (test_ws_auth.c,
 * test_pool.c): a free port, and whether something accepts on it. */
#ifndef CODEXCLIENT_TEST_NET_H
#define CODEXCLIENT_TEST_NET_H

#include "test_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* A free port on 127.0.0.1 (bound, then released for the server). */
static int free_port(void) {
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port;
    CHECK(fd >= 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)&a, &alen) == 0);
    port = ntohs(a.sin_port);
    close(fd);
    return port;
}

static int accepts(int port) {
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), ok;
    CHECK(fd >= 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

#endif
