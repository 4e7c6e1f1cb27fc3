/* Example: drive a real `codex app-server` from C with libcodexclient.
 *
 *   1. stream a turn's answer as it arrives (item/agentMessage/delta notifications);
 *   2. answer a command approval (accept; pass --decline to decline);
 *   3. interrupt a running turn.
 *
 * Build:  cc -std=c99 stream_turn.c $(pkg-config --cflags --libs codexclient) -lpthread
 * Run:    CODEX_HOME=/path/to/home [CODEX_BIN=/path/to/codex] [CODEX_WORK=dir] ./a.out
 * The prompts use the project's local mock model (testkit/mock-model): MOCK_TEXT, MOCK_EXEC
 * and MOCK_SLOW directives choose what the "model" does. With a real model, use real prompts.
 *
 * All callbacks run on the client's one library-owned thread; this example hands results to
 * the main thread with a mutex and a condition variable.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codexclient.h"

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int completed;     /* turn/completed seen for the current turn */
    int deltas;        /* deltas of the current turn */
    int approvals;     /* approval requests answered */
    int accept;        /* how to answer approvals */
    char status[64];   /* status of the last completed turn */
    codex_client_t *client;
} app_t;

static void on_notification(void *userdata, codex_event_t *ev) {
    app_t *app = (app_t *)userdata;
    const char *method = codex_event_method(ev);
    if (strcmp(method, "item/agentMessage/delta") == 0) {
        size_t len = 0;
        const char *text = codex_event_delta(ev, &len); /* decoded, no JSON parsing needed */
        fwrite(text, 1, len, stdout);
        fflush(stdout);
        pthread_mutex_lock(&app->mu);
        app->deltas++;
        pthread_cond_broadcast(&app->cv);
        pthread_mutex_unlock(&app->mu);
    } else if (strcmp(method, "turn/completed") == 0) {
        const char *params = codex_event_params(ev);
        const char *s = strstr(params, "\"status\":\"");
        pthread_mutex_lock(&app->mu);
        app->status[0] = '\0';
        if (s != NULL) sscanf(s + 10, "%63[^\"]", app->status);
        app->completed = 1;
        pthread_cond_broadcast(&app->cv);
        pthread_mutex_unlock(&app->mu);
        printf("\n[turn completed: %s]\n", app->status);
    }
}

static void on_server_request(void *userdata, codex_event_t *ev) {
    app_t *app = (app_t *)userdata;
    codex_request_t *req = codex_event_request(ev); /* borrowed; answering now */
    const char *method = codex_event_method(ev);
    if (strcmp(method, "item/commandExecution/requestApproval") == 0) {
        const char *answer = app->accept ? "{\"decision\":\"accept\"}" : "{\"decision\":\"decline\"}";
        printf("\n[approval requested: %s -> %s]\n", codex_event_params(ev), app->accept ? "accept" : "decline");
        if (codex_client_respond(app->client, req, answer) != CODEX_STATUS_OK)
            fprintf(stderr, "respond failed: %s\n", codex_last_error_message());
        pthread_mutex_lock(&app->mu);
        app->approvals++;
        pthread_mutex_unlock(&app->mu);
    }
    /* Anything not answered here is declined when the callback returns (fail-closed). */
}

static int wait_until(app_t *app, const int *flag, int min, int seconds) {
    struct timespec dl;
    int ok = 1;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += seconds;
    pthread_mutex_lock(&app->mu);
    while (*flag < min && ok)
        if (pthread_cond_timedwait(&app->cv, &app->mu, &dl) != 0) ok = *flag >= min;
    pthread_mutex_unlock(&app->mu);
    return ok;
}

static int start_turn(app_t *app, const char *thread, const char *prompt, char **turn) {
    pthread_mutex_lock(&app->mu);
    app->completed = 0;
    app->deltas = 0;
    pthread_mutex_unlock(&app->mu);
    printf("> %s\n", prompt);
    return codex_client_turn_start(app->client, thread, prompt, NULL, 0, turn) == CODEX_STATUS_OK;
}

#define DIE(what)                                                                          \
    do {                                                                                   \
        fprintf(stderr, "%s failed: %s\n", what, codex_last_error_message());              \
        goto out;                                                                          \
    } while (0)

int main(int argc, char **argv) {
    app_t app;
    codex_options_t *opts;
    codex_status_t st;
    char *thread = NULL, *turn = NULL;
    char prompt[1024];
    const char *work = getenv("CODEX_WORK");
    int rc = 1;

    memset(&app, 0, sizeof app);
    pthread_mutex_init(&app.mu, NULL);
    pthread_cond_init(&app.cv, NULL);
    app.accept = !(argc > 1 && strcmp(argv[1], "--decline") == 0);

    /* The library loaded at run time must have every function of the header compiled in. */
    if (codex_abi_version() / 1000 != CODEX_ABI_VERSION / 1000 || codex_abi_version() < CODEX_ABI_VERSION) {
        fprintf(stderr, "libcodexclient ABI %u cannot run a program built for ABI %u\n",
                (unsigned)codex_abi_version(), (unsigned)CODEX_ABI_VERSION);
        return 1;
    }

    opts = codex_options_new(); /* every option at its default; strings given are copied */
    if (opts == NULL) DIE("codex_options_new");
    st = codex_options_set_codex_bin(opts, getenv("CODEX_BIN")); /* NULL: $CODEX_BIN, then codex on PATH */
    if (st == CODEX_STATUS_OK) st = codex_options_set_codex_home(opts, getenv("CODEX_HOME")); /* selects the model */
    if (st == CODEX_STATUS_OK) st = codex_options_set_cwd(opts, work);
    if (st == CODEX_STATUS_OK) st = codex_options_set_client_info(opts, "codexclient-example-c", NULL, NULL);
    if (st == CODEX_STATUS_OK) st = codex_options_set_default_timeout_ms(opts, 60000);
    if (st == CODEX_STATUS_OK) st = codex_client_new(opts, &app.client);
    codex_options_free(opts); /* the client copied its options */
    if (st != CODEX_STATUS_OK) DIE("codex_client_new");
    codex_client_register_callback(app.client, CODEX_CALLBACK_NOTIFICATION, on_notification, &app);
    codex_client_register_callback(app.client, CODEX_CALLBACK_SERVER_REQUEST, on_server_request, &app);
    if (codex_client_connect(app.client, NULL) != CODEX_STATUS_OK) DIE("connect");
    if (codex_client_thread_start(app.client, NULL, 0, &thread) != CODEX_STATUS_OK) DIE("thread/start");

    /* 1. Stream a turn. */
    if (!start_turn(&app, thread, "MOCK_TEXT: Hello from C, streamed piece by piece.", &turn)) DIE("turn/start");
    codex_string_free(turn);
    turn = NULL;
    if (!wait_until(&app, &app.completed, 1, 60) || strcmp(app.status, "completed") != 0) {
        fprintf(stderr, "turn 1 did not complete\n");
        goto out;
    }

    /* 2. A command that needs approval. */
    snprintf(prompt, sizeof prompt, "MOCK_EXEC: echo approved-command-ran > %s/example-c.txt && echo done",
             work ? work : ".");
    if (!start_turn(&app, thread, prompt, &turn)) DIE("turn/start");
    codex_string_free(turn);
    turn = NULL;
    if (!wait_until(&app, &app.completed, 1, 60) || app.approvals != 1) {
        fprintf(stderr, "approval turn did not complete with one approval\n");
        goto out;
    }
    {
        char path[1024];
        FILE *f;
        snprintf(path, sizeof path, "%s/example-c.txt", work ? work : ".");
        f = fopen(path, "r");
        if (f != NULL) fclose(f);
        if ((f != NULL) != app.accept) {
            fprintf(stderr, "the command %s but the approval was %s\n", f ? "ran" : "did not run",
                    app.accept ? "accepted" : "declined");
            goto out;
        }
        printf("[command %s]\n", f ? "ran" : "did not run");
    }

    /* 3. Interrupt a slow turn after its first delta. */
    if (!start_turn(&app, thread, "MOCK_SLOW: 50 200", &turn)) DIE("turn/start");
    if (!wait_until(&app, &app.deltas, 1, 60)) {
        fprintf(stderr, "slow turn produced no delta\n");
        goto out;
    }
    if (codex_client_turn_interrupt(app.client, thread, turn, 0) != CODEX_STATUS_OK) DIE("turn/interrupt");
    if (!wait_until(&app, &app.completed, 1, 60) || strcmp(app.status, "interrupted") != 0) {
        fprintf(stderr, "turn was not interrupted (status %s)\n", app.status);
        goto out;
    }
    printf("example-c: ok\n");
    rc = 0;

out:
    /* Shutdown order: disconnect (optional; free does it), free what you own, free the client. */
    if (app.client != NULL) codex_client_disconnect(app.client);
    codex_string_free(turn);
    codex_string_free(thread);
    codex_client_free(app.client); /* after this no callback runs: app may go away */
    pthread_cond_destroy(&app.cv);
    pthread_mutex_destroy(&app.mu);
    return rc;
}
