/* The option table through the C API: for EVERY key of codex_options_keys_json() (read at run
 * time), each edge value of option_edges.h (the default, null and, for a key with a range,
 * min, max, min-1, max+1 and 0) set with codex_options_set on a fresh options object is
 * accepted or refused (CODEX_STATUS_INVALID_ARGUMENT, the message naming the key) as the row
 * says, and codex_options_get then reads the value the row says (a refused value leaves the
 * default; 0 of a row whose 0 means "off" reads 0 or the default). A value of the wrong type ({"not":"this"}, or 5 where an object is taken) is
 * refused for every key. Prints the number of keys and of checked values.
 */
#include "test_util.h"

#include "option_edges.h"

static void check_effective(codex_options_t *o, const edge_row_t *r, const edge_t *e) {
    char *got = codex_options_get(o, r->name);
    if (got == NULL) {
        fprintf(stderr, "%s: codex_options_get failed: %s\n", r->name, codex_last_error_message());
        exit(1);
    }
    if (!js_eq(got, e->effective) && !(e->off_or_default && js_eq(got, "0"))) {
        fprintf(stderr, "%s = %s (%s): reads %s, the table says %s\n", r->name, e->value, e->label, got,
                e->effective);
        exit(1);
    }
    codex_string_free(got);
}

int main(void) {
    const char *keys = codex_options_keys_json();
    size_t i;
    int checked = 0, ranged = 0;
    CHECK(keys != NULL && js_len(keys) >= 40);
    for (i = 0;; i++) {
        edge_row_t r;
        edge_t e[EDGE_MAX];
        int n, j;
        codex_options_t *o;
        codex_status_t st;
        if (!edge_row(keys, i, &r)) break;
        n = edge_values(&r, e);
        ranged += r.ranged;
        for (j = 0; j < n; j++) {
            o = codex_options_new();
            CHECK(o != NULL);
            st = codex_options_set(o, r.name, e[j].value);
            if (st != (e[j].ok ? CODEX_STATUS_OK : CODEX_STATUS_INVALID_ARGUMENT)) {
                fprintf(stderr, "%s = %s (%s): status %d, the table says %s (%s)\n", r.name, e[j].value,
                        e[j].label, (int)st, e[j].ok ? "taken" : "refused", codex_last_error_message());
                return 1;
            }
            if (!e[j].ok) CHECK_HAS(codex_last_error_message(), r.name);
            check_effective(o, &r, &e[j]);
            codex_options_free(o);
            checked++;
        }
        o = codex_options_new();
        st = codex_options_set(o, r.name, strcmp(r.kind, "object") == 0 || strcmp(r.kind, "pairs") == 0
                                              ? "5"
                                              : "{\"not\":\"this\"}");
        if (st != CODEX_STATUS_INVALID_ARGUMENT) {
            fprintf(stderr, "%s: a value of the wrong type was not refused (status %d)\n", r.name, (int)st);
            return 1;
        }
        CHECK_HAS(codex_last_error_message(), r.name);
        codex_options_free(o);
        checked++;
    }
    CHECK(i == (size_t)js_len(keys) && ranged > 10);
    printf("test_options_table: ok (%zu keys, %d with a range, %d values checked)\n", i, ranged, checked);
    return 0;
}
