/* Events checked against the vendored schema of the Codex version that sent them (C99), for the
 * C smoke set (test_version on each version of the window it runs on): the schema bundle
 * schema/codex-<CODEX_VERSION>/experimental/codex_app_server_protocol.schemas.json (from the
 * repository root, or $CODEX_SCHEMA_ROOT) is the source the generated protocol types are built
 * from. An event passes when its method is one of that version's server notifications or server
 * requests, its params carry every member that version's params type requires, and each thread
 * item it carries (`params.item` of type ThreadItem) is one of that version's item variants (by
 * `type`) with every member the variant requires. Uses json_scan.h (no JSON library).
 */
#ifndef CODEXCLIENT_SCHEMA_CHECK_H
#define CODEXCLIENT_SCHEMA_CHECK_H

#include "test_util.h" /* first: it sets _POSIX_C_SOURCE */
#include "json_scan.h"

/* The schema bundle of `version`, read whole (free with free()). */
static inline char *schema_load(const char *version) {
    const char *root = getenv("CODEX_SCHEMA_ROOT");
    char path[2048];
    FILE *f;
    long n;
    char *text;
    snprintf(path, sizeof path, "%s/schema/codex-%s/experimental/codex_app_server_protocol.schemas.json",
             root != NULL && *root != '\0' ? root : ".", version);
    f = fopen(path, "rb");
    if (f == NULL) FAIL("cannot read %s (run from the repository root, or set CODEX_SCHEMA_ROOT)", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = (char *)malloc((size_t)n + 1);
    if (text == NULL || fread(text, 1, (size_t)n, f) != (size_t)n) FAIL("reading %s failed", path);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* The definition a schema value stands for: its "$ref" ("#/definitions/...") followed. */
static inline const char *schema_deref(const char *schema, const char *value) {
    char ref[512];
    const char *r;
    while (value != NULL && (r = js_member(value, "$ref")) != NULL) {
        if (!js_str(r, ref, sizeof ref) || ref[0] != '#') FAIL("unexpected $ref in the schema: %.200s", r);
        value = js_pointer(schema, ref + 1);
        if (value == NULL) FAIL("the schema has no %s", ref);
    }
    return value;
}

/* The alternative of `/definitions/<union_name>` (a oneOf) whose `properties/<tag>/enum/0` is
 * `value`, or NULL. */
static inline const char *schema_variant(const char *schema, const char *union_ptr, const char *tag, const char *value) {
    const char *alts = js_member(schema_deref(schema, js_pointer(schema, union_ptr)), "oneOf");
    long i, n = alts != NULL ? js_len(alts) : -1;
    char name[256], tag_ptr[300];
    if (n < 0) FAIL("the schema has no oneOf at %s", union_ptr);
    snprintf(tag_ptr, sizeof tag_ptr, "/properties/%s/enum/0", tag);
    for (i = 0; i < n; i++) {
        const char *alt = schema_deref(schema, js_index(alts, (size_t)i));
        const char *v = js_pointer(alt, tag_ptr);
        if (v != NULL && js_str(v, name, sizeof name) && strcmp(name, value) == 0) return alt;
    }
    return NULL;
}

/* FAILs unless `value` (JSON text) has every member the object schema `def` requires. Returns
 * the number of required members checked. */
static inline int schema_check_required(const char *def, const char *value, const char *what, const char *version) {
    const char *req = js_member(def, "required");
    long i, n = req != NULL ? js_len(req) : 0;
    char key[256];
    for (i = 0; i < n; i++) {
        js_str(js_index(req, (size_t)i), key, sizeof key);
        if (js_member(value, key) == NULL)
            FAIL("Codex %s: %s lacks `%s`, which its schema requires: %.2000s", version, what, key, value);
    }
    return (int)(n > 0 ? n : 0);
}

/* FAILs unless the thread item `item` is a variant of the version's ThreadItem with every
 * required member. */
static inline void schema_check_item(const char *schema, const char *item, const char *version) {
    char type[128], what[256];
    const char *t = js_member(item, "type");
    const char *variant;
    if (t == NULL || !js_str(t, type, sizeof type)) FAIL("Codex %s: a thread item without a type: %.2000s", version, item);
    variant = schema_variant(schema, "/definitions/v2/ThreadItem", "type", type);
    if (variant == NULL) FAIL("Codex %s: item type `%s` is not one of its ThreadItem variants", version, type);
    snprintf(what, sizeof what, "the %s item", type);
    schema_check_required(variant, item, what, version);
}

/* FAILs unless `method` with `params` is a server notification (`request` 0) or server request
 * (`request` 1) of the version, with every required member, and its thread items check out. */
static inline void schema_check_event(const char *schema, int request, const char *method, const char *params,
                                      const char *version) {
    const char *alt = schema_variant(schema, request ? "/definitions/ServerRequest" : "/definitions/ServerNotification",
                                     "method", method);
    const char *def, *item_schema;
    char what[300];
    if (alt == NULL)
        FAIL("Codex %s: `%s` is not one of its server %s", version, method, request ? "requests" : "notifications");
    def = schema_deref(schema, js_pointer(alt, "/properties/params"));
    if (def == NULL) FAIL("Codex %s: `%s` has no params schema", version, method);
    snprintf(what, sizeof what, "the params of %s", method);
    schema_check_required(def, params, what, version);
    item_schema = js_pointer(def, "/properties/item/$ref");
    if (item_schema != NULL && js_eq(item_schema, "\"#/definitions/v2/ThreadItem\""))
        schema_check_item(schema, js_member(params, "item"), version);
}

#endif
