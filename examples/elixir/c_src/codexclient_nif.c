/* codexclient_nif.c - Erlang/Elixir NIF over libcodexclient's C ABI (poll mode).
 *
 * The rules this file follows (see "NIFs (Erlang/Elixir)" in include/codexclient.h):
 *   - Nothing that can block runs on a normal scheduler. open/1 (codex_client_new + connect:
 *     spawns the server and does the handshake) and disconnect/1 (stops the server: up to
 *     ~0.5 s) are dirty-IO NIFs. Requests go out with codex_client_request(), which returns at
 *     once; its answer comes back as a RESPONSE event. codex_client_respond() only queues a line.
 *   - Events: enif_select(READ) on codex_client_event_fd(); when the select message arrives the
 *     pump process (CodexClient, a GenServer) calls drain/3, which pulls at most `max` events
 *     with codex_client_next_event(timeout 0), sends notifications and server requests to the
 *     owner process as messages (or, with `events: :typed`, returns them to the pump, which
 *     decodes them in Elixir and sends them on), returns RESPONSE events to the pump, and
 *     re-arms the select.
 *   - Lifetime: the client resource is monitored against the pump process. When the pump dies
 *     (for any reason: stop/1, a crash, or the owner dying and taking it down through the link)
 *     the down callback stops the select and ends the connection on a helper thread, so no
 *     Codex process outlives its owner. The resource destructor frees the client on a helper
 *     thread (codex_client_free may wait for the server to exit), never on a scheduler.
 */
#include <pthread.h>
#include <string.h>

#include "codexclient.h"
#include "erl_nif.h"

typedef struct {
    codex_client_t *client; /* freed by the destructor only */
    int fd;
    ErlNifPid owner;        /* receives {:codex_event, ...} and {:codex_request, ...} */
    ErlNifMutex *mu;        /* guards the select/monitor state below */
    int armed;              /* enif_select(READ) was called at least once */
    int stopped;            /* enif_select(STOP) was called: never select again */
    int monitored;
} client_res;

typedef struct {
    codex_request_t *req;   /* owned: codex_request_free in the destructor */
    client_res *client;     /* kept alive (enif_keep_resource) while this request lives */
} request_res;

static ErlNifResourceType *CLIENT_RT;
static long live_clients; /* clients opened and not yet freed (tests check for leaks); atomics */
static ErlNifResourceType *REQUEST_RT;

static ERL_NIF_TERM A_OK, A_ERROR, A_UNDEFINED, A_NIL, A_CODEX_EVENT, A_CODEX_REQUEST,
    A_CODEX_DISCONNECTED, A_CODEX_ERROR, A_CODEX_OVERFLOW, A_DISCONNECTED, A_MORE, A_CLOSED, A_TRUE, A_FALSE;

/* ------------------------------------------------------------------------------- helpers */

static ERL_NIF_TERM make_bin(ErlNifEnv *env, const char *s, size_t len) {
    ERL_NIF_TERM t;
    unsigned char *p = enif_make_new_binary(env, len, &t);
    if (len > 0) memcpy(p, s, len);
    return t;
}

static ERL_NIF_TERM make_str(ErlNifEnv *env, const char *s) {
    return s == NULL ? A_NIL : make_bin(env, s, strlen(s));
}

/* {:error, {status_atom, message}} from the calling thread's last error. */
static ERL_NIF_TERM make_status_atom(ErlNifEnv *env, int status) {
    const char *name = codex_status_name(status); /* "CODEX_STATUS_RPC_ERROR" */
    char buf[64];
    size_t i = 0;
    if (strncmp(name, "CODEX_STATUS_", 13) == 0) name += 13;
    for (; name[i] != '\0' && i < sizeof buf - 1; i++)
        buf[i] = (char)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] - 'A' + 'a' : name[i]);
    buf[i] = '\0';
    return enif_make_atom(env, buf);
}

static ERL_NIF_TERM last_error(ErlNifEnv *env, int status) {
    return enif_make_tuple2(env, A_ERROR,
                            enif_make_tuple2(env, make_status_atom(env, status),
                                             make_str(env, codex_last_error_message())));
}

/* A NUL-terminated copy of a binary (or NULL for nil/undefined). 0 on a bad term. */
static int dup_bin(ErlNifEnv *env, ERL_NIF_TERM t, char **out) {
    ErlNifBinary b;
    *out = NULL;
    if (enif_is_identical(t, A_NIL) || enif_is_identical(t, A_UNDEFINED)) return 1;
    if (!enif_inspect_binary(env, t, &b) && !enif_inspect_iolist_as_binary(env, t, &b)) return 0;
    *out = enif_alloc(b.size + 1);
    memcpy(*out, b.data, b.size);
    (*out)[b.size] = '\0';
    return 1;
}

static int map_str(ErlNifEnv *env, ERL_NIF_TERM map, const char *key, char **out) {
    ERL_NIF_TERM v;
    *out = NULL;
    if (!enif_get_map_value(env, map, enif_make_atom(env, key), &v)) return 1;
    return dup_bin(env, v, out);
}

/* A list of binaries as a NULL-free array of C strings. */
static int map_strs(ErlNifEnv *env, ERL_NIF_TERM map, const char *key, char ***out, size_t *n) {
    ERL_NIF_TERM v, head;
    unsigned len, i = 0;
    *out = NULL;
    *n = 0;
    if (!enif_get_map_value(env, map, enif_make_atom(env, key), &v)) return 1;
    if (!enif_get_list_length(env, v, &len)) return 0;
    if (len == 0) return 1;
    *out = enif_alloc(sizeof(char *) * len);
    memset(*out, 0, sizeof(char *) * len);
    *n = len;
    while (enif_get_list_cell(env, v, &head, &v))
        if (!dup_bin(env, head, &(*out)[i++]) || (*out)[i - 1] == NULL) return 0;
    return 1;
}

static void free_strs(char **v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (v[i] != NULL) enif_free(v[i]);
    if (v != NULL) enif_free(v);
}

/* ------------------------------------------------------------------------------- helper threads */

/* codex_client_free and codex_client_disconnect may wait for the server to exit: never on a
 * scheduler thread. A destructor or a down callback hands them to a short detached thread. */
static void *free_thread(void *arg) {
    codex_client_free((codex_client_t *)arg);
    __atomic_sub_fetch(&live_clients, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void *disconnect_thread(void *arg) {
    client_res *c = arg;
    codex_client_disconnect(c->client);
    enif_release_resource(c); /* kept by the down callback */
    return NULL;
}

static int spawn_detached(void *(*fn)(void *), void *arg) {
    pthread_t t;
    pthread_attr_t attr;
    int rc;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    rc = pthread_create(&t, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    return rc == 0;
}

/* ------------------------------------------------------------------------------- resource callbacks */

static void client_dtor(ErlNifEnv *env, void *obj) {
    client_res *c = obj;
    (void)env;
    /* Not selected any more (a selected resource is kept alive by ERTS until the stop callback),
     * so closing the event fd inside codex_client_free is safe. */
    if (c->client != NULL && !spawn_detached(free_thread, c->client)) {
        codex_client_free(c->client); /* no thread: block rather than leak the server */
        __atomic_sub_fetch(&live_clients, 1, __ATOMIC_SEQ_CST);
    }
    c->client = NULL;
    if (c->mu != NULL) enif_mutex_destroy(c->mu);
}

static void client_stop(ErlNifEnv *env, void *obj, ErlNifEvent fd, int is_direct_call) {
    /* The fd belongs to the client and is closed by codex_client_free: nothing to close here. */
    (void)env; (void)obj; (void)fd; (void)is_direct_call;
}

/* The pump process died: stop watching the fd and end the connection (kills the server). */
static void client_down(ErlNifEnv *env, void *obj, ErlNifPid *pid, ErlNifMonitor *mon) {
    client_res *c = obj;
    (void)pid; (void)mon;
    enif_mutex_lock(c->mu);
    c->monitored = 0;
    if (c->armed && !c->stopped) {
        c->stopped = 1;
        enif_select(env, (ErlNifEvent)c->fd, ERL_NIF_SELECT_STOP, c, NULL, A_UNDEFINED);
    }
    c->stopped = 1;
    enif_mutex_unlock(c->mu);
    enif_keep_resource(c);
    if (!spawn_detached(disconnect_thread, c)) enif_release_resource(c); /* dtor still frees it */
}

static void request_dtor(ErlNifEnv *env, void *obj) {
    request_res *r = obj;
    (void)env;
    codex_request_free(r->req); /* unanswered: answered fail-closed (declined); never blocks */
    if (r->client != NULL) enif_release_resource(r->client);
}

static int load(ErlNifEnv *env, void **priv, ERL_NIF_TERM info) {
    ErlNifResourceTypeInit client_init = {client_dtor, client_stop, client_down, 3, NULL};
    ErlNifResourceTypeInit request_init = {request_dtor, NULL, NULL, 1, NULL};
    (void)priv; (void)info;
    CLIENT_RT = enif_init_resource_type(env, "codex_client", &client_init, ERL_NIF_RT_CREATE, NULL);
    REQUEST_RT = enif_init_resource_type(env, "codex_request", &request_init, ERL_NIF_RT_CREATE, NULL);
    A_OK = enif_make_atom(env, "ok");
    A_ERROR = enif_make_atom(env, "error");
    A_UNDEFINED = enif_make_atom(env, "undefined");
    A_NIL = enif_make_atom(env, "nil");
    A_CODEX_EVENT = enif_make_atom(env, "codex_event");
    A_CODEX_REQUEST = enif_make_atom(env, "codex_request");
    A_CODEX_DISCONNECTED = enif_make_atom(env, "codex_disconnected");
    A_CODEX_ERROR = enif_make_atom(env, "codex_error");
    A_CODEX_OVERFLOW = enif_make_atom(env, "codex_overflow");
    A_DISCONNECTED = enif_make_atom(env, "disconnected");
    A_MORE = enif_make_atom(env, "more");
    A_CLOSED = enif_make_atom(env, "closed");
    A_TRUE = enif_make_atom(env, "true");
    A_FALSE = enif_make_atom(env, "false");
    return CLIENT_RT != NULL && REQUEST_RT != NULL ? 0 : 1;
}

/* ------------------------------------------------------------------------------- NIFs */

/* open(opts :: map, owner :: pid) -> {:ok, client} | {:error, {status, msg}}   [dirty IO]
 * codex_client_new (poll mode) + codex_client_connect: spawns the server, runs the handshake. */
static ERL_NIF_TERM nif_open(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    codex_options_t *o;
    char *bin = NULL, *home = NULL, *cwd = NULL, *name = NULL, *transport = NULL;
    char **env_v = NULL, **cfg_v = NULL, **args_v = NULL;
    size_t env_n = 0, cfg_n = 0, args_n = 0, i;
    ErlNifUInt64 timeout = 0;
    ERL_NIF_TERM v, ret;
    codex_client_t *client = NULL;
    codex_status_t st;
    client_res *c;
    ErlNifPid owner;
    (void)argc;

    if (!enif_is_map(env, argv[0]) || !enif_get_local_pid(env, argv[1], &owner)) return enif_make_badarg(env);
    if (!map_str(env, argv[0], "codex_bin", &bin) || !map_str(env, argv[0], "codex_home", &home)
        || !map_str(env, argv[0], "cwd", &cwd) || !map_str(env, argv[0], "client_name", &name)
        || !map_str(env, argv[0], "transport", &transport)
        || !map_strs(env, argv[0], "env", &env_v, &env_n)
        || !map_strs(env, argv[0], "config", &cfg_v, &cfg_n)
        || !map_strs(env, argv[0], "args", &args_v, &args_n)) {
        ret = enif_make_badarg(env);
        goto out;
    }
    if (enif_get_map_value(env, argv[0], enif_make_atom(env, "timeout_ms"), &v)
        && !enif_get_uint64(env, v, &timeout)) {
        ret = enif_make_badarg(env);
        goto out;
    }

    /* The options object copies every string a setter gets; a refused value (an env entry that
     * is not NAME=value, ...) becomes {:error, {:invalid_argument, message}}. */
    o = codex_options_new();
    st = o != NULL ? CODEX_STATUS_OK : CODEX_STATUS_INTERNAL;
    if (st == CODEX_STATUS_OK) st = codex_options_set_delivery(o, CODEX_DELIVERY_POLL);
    /* "stdio" (NULL: the default, codex app-server), "exec", "ws://…", … (the core parses it). */
    if (st == CODEX_STATUS_OK) st = codex_options_set_transport(o, transport, NULL);
    if (st == CODEX_STATUS_OK) st = codex_options_set_codex_bin(o, bin);
    if (st == CODEX_STATUS_OK) st = codex_options_set_codex_home(o, home);
    if (st == CODEX_STATUS_OK) st = codex_options_set_cwd(o, cwd);
    if (st == CODEX_STATUS_OK)
        st = codex_options_set_client_info(o, name != NULL ? name : "codexclient-elixir", NULL, NULL);
    for (i = 0; st == CODEX_STATUS_OK && i < env_n; i++) st = codex_options_add_env(o, env_v[i]);
    for (i = 0; st == CODEX_STATUS_OK && i < cfg_n; i++) st = codex_options_add_config_override(o, cfg_v[i]);
    for (i = 0; st == CODEX_STATUS_OK && i < args_n; i++) st = codex_options_add_arg(o, args_v[i]);
    if (st == CODEX_STATUS_OK) st = codex_options_set_default_timeout_ms(o, timeout);
    if (st == CODEX_STATUS_OK) st = codex_client_new(o, &client);
    codex_options_free(o); /* the client copied its options (NULL is ignored) */
    if (st != CODEX_STATUS_OK) {
        ret = last_error(env, st);
        goto out;
    }
    if ((st = codex_client_connect(client, NULL)) != CODEX_STATUS_OK) {
        ret = last_error(env, st);
        codex_client_free(client); /* we are on a dirty scheduler: blocking is fine */
        goto out;
    }
    __atomic_add_fetch(&live_clients, 1, __ATOMIC_SEQ_CST);
    c = enif_alloc_resource(CLIENT_RT, sizeof *c);
    memset(c, 0, sizeof *c);
    c->client = client;
    c->fd = codex_client_event_fd(client);
    c->owner = owner;
    c->mu = enif_mutex_create("codex_client");
    ret = enif_make_tuple2(env, A_OK, enif_make_resource(env, c));
    enif_release_resource(c); /* the term owns it now */
out:
    if (bin) enif_free(bin);
    if (home) enif_free(home);
    if (cwd) enif_free(cwd);
    if (name) enif_free(name);
    if (transport) enif_free(transport);
    free_strs(env_v, env_n);
    free_strs(cfg_v, cfg_n);
    free_strs(args_v, args_n);
    return ret;
}

/* Arm the one-shot read select for the calling process (the pump); monitor it the first time. */
static int arm(ErlNifEnv *env, client_res *c) {
    int ok = 0;
    enif_mutex_lock(c->mu);
    if (!c->stopped) {
        if (!c->monitored) {
            ErlNifPid self;
            enif_self(env, &self);
            if (enif_monitor_process(env, c, &self, NULL) == 0) c->monitored = 1;
        }
        ok = enif_select(env, (ErlNifEvent)c->fd, ERL_NIF_SELECT_READ, c, NULL, A_UNDEFINED) >= 0;
        if (ok) c->armed = 1;
    }
    enif_mutex_unlock(c->mu);
    return ok;
}

/* select(client) -> :ok | {:error, :closed} */
static ERL_NIF_TERM nif_select(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    client_res *c;
    (void)argc;
    if (!enif_get_resource(env, argv[0], CLIENT_RT, (void **)&c)) return enif_make_badarg(env);
    return arm(env, c) ? A_OK : enif_make_tuple2(env, A_ERROR, A_CLOSED);
}

/* One event -> a message to the owner, or (RESPONSE) an element of the reply list. With
 * `collect` (the option `events: :typed`) a message is not sent but added to the list too, in
 * order, built in the caller's env: the pump decodes it in Elixir and sends it on. */
static void deliver(ErlNifEnv *env, client_res *c, codex_event_t *ev, ErlNifEnv *menv, int collect,
                    ERL_NIF_TERM *responses) {
    ErlNifEnv *e = collect ? env : menv;
    ERL_NIF_TERM msg;
    switch (codex_event_kind(ev)) {
    case CODEX_EVENT_NOTIFICATION:
        msg = enif_make_tuple3(e, A_CODEX_EVENT, make_str(e, codex_event_method(ev)),
                               make_str(e, codex_event_params(ev)));
        break;
    case CODEX_EVENT_SERVER_REQUEST: {
        codex_request_t *req = NULL;
        request_res *r;
        ERL_NIF_TERM method = make_str(e, codex_event_method(ev));
        ERL_NIF_TERM params = make_str(e, codex_event_params(ev));
        if (codex_event_take_request(ev, &req) != CODEX_STATUS_OK) { /* freeing the event declines */
            if (!collect) enif_clear_env(menv);
            return;
        }
        r = enif_alloc_resource(REQUEST_RT, sizeof *r);
        r->req = req;
        r->client = c;
        enif_keep_resource(c);
        msg = enif_make_tuple4(e, A_CODEX_REQUEST, enif_make_resource(e, r), method, params);
        enif_release_resource(r); /* owned by the message term; unanswered at GC = declined */
        break;
    }
    case CODEX_EVENT_RESPONSE: {
        ERL_NIF_TERM id = enif_make_uint64(env, codex_event_request_id(ev));
        codex_status_t st = codex_event_status(ev);
        ERL_NIF_TERM outcome = st == CODEX_STATUS_OK
            ? enif_make_tuple2(env, A_OK, make_str(env, codex_event_result(ev)))
            : enif_make_tuple2(env, A_ERROR,
                               enif_make_tuple2(env, make_status_atom(env, st),
                                                make_str(env, codex_event_error_message(ev))));
        *responses = enif_make_list_cell(env, enif_make_tuple2(env, id, outcome), *responses);
        return;
    }
    case CODEX_EVENT_DISCONNECTED:
        msg = enif_make_tuple3(e, A_CODEX_DISCONNECTED, make_str(e, codex_event_error_message(ev)),
                               make_str(e, codex_event_stderr_tail(ev)));
        break;
    case CODEX_EVENT_ERROR:
        msg = enif_make_tuple2(e, A_CODEX_ERROR, make_str(e, codex_event_error_message(ev)));
        break;
    case CODEX_EVENT_OVERFLOW:
        msg = enif_make_tuple2(e, A_CODEX_OVERFLOW, enif_make_uint64(e, codex_event_dropped(ev)));
        break;
    default:
        return;
    }
    if (collect) {
        *responses = enif_make_list_cell(env, msg, *responses);
        return;
    }
    enif_send(env, &c->owner, menv, msg); /* sent by the calling process: order is kept */
    enif_clear_env(menv);
}

/* drain(client, max, collect) -> {:ok | :more | :disconnected, list}
 * Pulls up to `max` events without waiting (timeout 0) and re-arms the select unless the
 * connection is over. `list`: the RESPONSE events as {id, outcome}, in order; with `collect`
 * (true) also every other event as the message term it would have sent, in order. :more = stopped at `max` (the fd is level-triggered: the re-armed select
 * fires again at once, and the scheduler got a chance to run others in between). */
static ERL_NIF_TERM nif_drain(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    client_res *c;
    int max, n = 0, collect;
    ERL_NIF_TERM responses = enif_make_list(env, 0), state = A_MORE, out;
    ErlNifEnv *menv;
    (void)argc;
    if (!enif_get_resource(env, argv[0], CLIENT_RT, (void **)&c) || !enif_get_int(env, argv[1], &max))
        return enif_make_badarg(env);
    if (enif_is_identical(argv[2], A_TRUE)) collect = 1;
    else if (enif_is_identical(argv[2], A_FALSE)) collect = 0;
    else return enif_make_badarg(env);
    menv = enif_alloc_env();
    while (n < max) {
        codex_event_t *ev = NULL;
        codex_status_t st = codex_client_next_event(c->client, 0, &ev);
        if (st == CODEX_STATUS_TIMEOUT) { state = A_OK; break; }
        if (st != CODEX_STATUS_OK) { state = A_DISCONNECTED; break; } /* DISCONNECTED / NOT_CONNECTED */
        deliver(env, c, ev, menv, collect, &responses);
        codex_event_free(ev);
        n++;
    }
    enif_free_env(menv);
    if (state != A_DISCONNECTED && !arm(env, c)) state = A_DISCONNECTED;
    enif_make_reverse_list(env, responses, &out);
    enif_consume_timeslice(env, n > 100 ? 100 : (n > 0 ? n : 1));
    return enif_make_tuple2(env, state, out);
}

/* request(client, method, params_json, timeout_ms) -> {:ok, id} | {:error, {status, msg}}
 * Asynchronous: returns at once; the answer is a RESPONSE event returned by drain/3. */
static ERL_NIF_TERM nif_request(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    client_res *c;
    char *method = NULL, *params = NULL;
    ErlNifUInt64 timeout;
    uint64_t id = 0;
    codex_status_t st;
    ERL_NIF_TERM ret;
    (void)argc;
    if (!enif_get_resource(env, argv[0], CLIENT_RT, (void **)&c) || !enif_get_uint64(env, argv[3], &timeout)
        || !dup_bin(env, argv[1], &method) || method == NULL || !dup_bin(env, argv[2], &params)) {
        if (method) enif_free(method);
        return enif_make_badarg(env);
    }
    st = codex_client_request(c->client, method, params, timeout, NULL, NULL, &id);
    ret = st == CODEX_STATUS_OK ? enif_make_tuple2(env, A_OK, enif_make_uint64(env, id)) : last_error(env, st);
    enif_free(method);
    if (params) enif_free(params);
    return ret;
}

/* respond(request, result_json) -> :ok | {:error, {status, msg}}   (only queues a line) */
static ERL_NIF_TERM nif_respond(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    request_res *r;
    char *json = NULL;
    codex_status_t st;
    (void)argc;
    if (!enif_get_resource(env, argv[0], REQUEST_RT, (void **)&r) || !dup_bin(env, argv[1], &json) || json == NULL)
        return enif_make_badarg(env);
    st = codex_client_respond(r->client->client, r->req, json);
    enif_free(json);
    return st == CODEX_STATUS_OK ? A_OK : last_error(env, st);
}

/* respond_decision(request, word) -> :ok | {:error, {status, msg}}: an approval answered by its
 * generic word ("accept", "acceptForSession", "decline", "cancel"), worded by the library for
 * the request's method (only queues a line) */
static ERL_NIF_TERM nif_respond_decision(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    request_res *r;
    char *word = NULL;
    codex_status_t st;
    (void)argc;
    if (!enif_get_resource(env, argv[0], REQUEST_RT, (void **)&r) || !dup_bin(env, argv[1], &word) || word == NULL)
        return enif_make_badarg(env);
    st = codex_client_respond_decision(r->client->client, r->req, word);
    enif_free(word);
    return st == CODEX_STATUS_OK ? A_OK : last_error(env, st);
}

/* respond_execpolicy_amendment(request, prefix) -> :ok | {:error, {status, msg}}: a command
 * approval approved with an exec-policy rule for commands starting with the binaries of the list
 * `prefix` ([]: the rule the server proposed), worded by the library (only queues a line) */
static ERL_NIF_TERM nif_respond_execpolicy_amendment(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    request_res *r;
    char **prefix = NULL;
    size_t n = 0;
    codex_status_t st;
    ERL_NIF_TERM map;
    (void)argc;
    /* map_strs reads a list under a key: wrap the list in a one-key map. */
    map = enif_make_new_map(env);
    if (!enif_get_resource(env, argv[0], REQUEST_RT, (void **)&r)
        || !enif_make_map_put(env, map, enif_make_atom(env, "prefix"), argv[1], &map)
        || !map_strs(env, map, "prefix", &prefix, &n)) {
        free_strs(prefix, n);
        return enif_make_badarg(env);
    }
    st = codex_client_respond_execpolicy_amendment(r->client->client, r->req, (const char *const *)prefix, n);
    free_strs(prefix, n);
    return st == CODEX_STATUS_OK ? A_OK : last_error(env, st);
}

/* server_pid(client) -> {:ok, os_pid} | {:error, {status, msg}} */
static ERL_NIF_TERM nif_server_pid(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    client_res *c;
    uint32_t pid = 0;
    codex_status_t st;
    (void)argc;
    if (!enif_get_resource(env, argv[0], CLIENT_RT, (void **)&c)) return enif_make_badarg(env);
    st = codex_client_server_pid(c->client, &pid);
    return st == CODEX_STATUS_OK ? enif_make_tuple2(env, A_OK, enif_make_uint(env, pid)) : last_error(env, st);
}

/* stderr_tail(client) -> {:ok, text} | {:error, {status, msg}}: the last bytes the server wrote
 * to stderr (codex_client_stderr_tail: a copy, never blocks). */
static ERL_NIF_TERM nif_stderr_tail(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    client_res *c;
    char *tail = NULL;
    codex_status_t st;
    ERL_NIF_TERM ret;
    (void)argc;
    if (!enif_get_resource(env, argv[0], CLIENT_RT, (void **)&c)) return enif_make_badarg(env);
    st = codex_client_stderr_tail(c->client, &tail);
    ret = st == CODEX_STATUS_OK ? enif_make_tuple2(env, A_OK, make_str(env, tail != NULL ? tail : ""))
                                : last_error(env, st);
    codex_string_free(tail);
    return ret;
}

/* stop_select(client) -> :ok   Stop watching the fd (before the client may be freed). */
static ERL_NIF_TERM nif_stop_select(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    client_res *c;
    (void)argc;
    if (!enif_get_resource(env, argv[0], CLIENT_RT, (void **)&c)) return enif_make_badarg(env);
    enif_mutex_lock(c->mu);
    if (c->armed && !c->stopped)
        enif_select(env, (ErlNifEvent)c->fd, ERL_NIF_SELECT_STOP, c, NULL, A_UNDEFINED);
    c->stopped = 1;
    enif_mutex_unlock(c->mu);
    return A_OK;
}

/* disconnect(client) -> :ok | {:error, {status, msg}}   [dirty IO: waits for the server] */
static ERL_NIF_TERM nif_disconnect(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    client_res *c;
    codex_status_t st;
    (void)argc;
    if (!enif_get_resource(env, argv[0], CLIENT_RT, (void **)&c)) return enif_make_badarg(env);
    st = codex_client_disconnect(c->client);
    return st == CODEX_STATUS_OK || st == CODEX_STATUS_NOT_CONNECTED ? A_OK : last_error(env, st);
}

/* live_clients() -> integer: clients opened and not yet freed by codex_client_free. */
static ERL_NIF_TERM nif_live_clients(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    (void)argc; (void)argv;
    return enif_make_long(env, __atomic_load_n(&live_clients, __ATOMIC_SEQ_CST));
}

static ErlNifFunc funcs[] = {
    {"live_clients", 0, nif_live_clients, 0},
    {"open", 2, nif_open, ERL_NIF_DIRTY_JOB_IO_BOUND},
    {"select", 1, nif_select, 0},
    {"drain", 3, nif_drain, 0},
    {"request", 4, nif_request, 0},
    {"respond", 2, nif_respond, 0},
    {"respond_decision", 2, nif_respond_decision, 0},
    {"respond_execpolicy_amendment", 2, nif_respond_execpolicy_amendment, 0},
    {"server_pid", 1, nif_server_pid, 0},
    {"stderr_tail", 1, nif_stderr_tail, 0},
    {"stop_select", 1, nif_stop_select, 0},
    {"disconnect", 1, nif_disconnect, ERL_NIF_DIRTY_JOB_IO_BOUND},
};

ERL_NIF_INIT(Elixir.CodexClient.Nif, funcs, load, NULL, NULL, NULL)
