/* The edge values of one option of the core's table (codex_options_keys_json(), read at run
 * time) and what the table says of each: shared by test_options_table.c (through
 * codex_options_set) and test_options_table_cpp.cpp (through the C++ Options members), so both
 * prove the same thing from the table alone. For a key with a range [lo, hi] (seconds, counts):
 * lo, hi, lo-1, hi+1, 0 and the default; for every key: its default and JSON null. Expected:
 * a value inside the range is taken as is; 0 means what the row's "zero" says ("the default":
 * the default; "off": taken, and the option then reads 0 or its default - the row does not say
 * which: off_or_default is set; otherwise 0 is taken as is when inside the range); anything
 * else is refused and the option keeps its default. C99 and C++.
 */
#ifndef CODEXCLIENT_OPTION_EDGES_H
#define CODEXCLIENT_OPTION_EDGES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"

#define EDGE_MAX 8
#define EDGE_TEXT 512

/* One edge value: its label, the value (JSON text; for a number also as a double), whether
 * the table takes it, and the option's value afterwards (JSON text). */
typedef struct {
    const char *label;
    char value[EDGE_TEXT];
    int is_number;
    double number;
    int ok;
    char effective[EDGE_TEXT];
    int off_or_default; /* 0 meaning "off": the option reads 0 or `effective` (its default) */
} edge_t;

/* One row of the table. */
typedef struct {
    char name[128];
    char kind[32];
    char zero[64];
    char def[EDGE_TEXT]; /* the default, JSON text */
    int ranged;
    double lo, hi;
} edge_row_t;

/* The JSON text of the value at p into buf. */
static inline void edge_text(const char *p, char *buf, size_t n) {
    const char *e;
    p = js_ws(p);
    e = js_skip(p);
    if ((size_t)(e - p) + 1 > n) e = p + n - 1;
    memcpy(buf, p, (size_t)(e - p));
    buf[e - p] = '\0';
}

/* Row i of the table `keys`; 0 past its end. */
static inline int edge_row(const char *keys, size_t i, edge_row_t *r) {
    const char *row = js_index(keys, i), *range, *zero;
    if (row == NULL) return 0;
    memset(r, 0, sizeof *r);
    js_str(js_member(row, "name"), r->name, sizeof r->name);
    js_str(js_member(row, "kind"), r->kind, sizeof r->kind);
    edge_text(js_member(row, "default"), r->def, sizeof r->def);
    zero = js_member(row, "zero");
    if (zero == NULL || !js_str(zero, r->zero, sizeof r->zero)) r->zero[0] = '\0';
    range = js_member(row, "range");
    if (range != NULL && js_len(range) == 2) {
        r->ranged = 1;
        r->lo = strtod(js_index(range, 0), NULL);
        r->hi = strtod(js_index(range, 1), NULL);
    }
    return 1;
}

static inline void edge_number(edge_t *e, const edge_row_t *r, const char *label, double v) {
    e->label = label;
    e->is_number = 1;
    e->number = v;
    snprintf(e->value, sizeof e->value, "%.17g", v);
    if (v == 0 && (strcmp(r->zero, "the default") == 0 || strcmp(r->zero, "off") == 0)) {
        e->ok = 1;
        e->off_or_default = strcmp(r->zero, "off") == 0;
        snprintf(e->effective, sizeof e->effective, "%s", r->def);
    } else if (v >= r->lo && v <= r->hi) {
        e->ok = 1;
        snprintf(e->effective, sizeof e->effective, "%s", e->value);
    } else {
        e->ok = 0;
        snprintf(e->effective, sizeof e->effective, "%s", r->def);
    }
}

/* The edge values of row r into e (at most EDGE_MAX); returns how many. */
static inline int edge_values(const edge_row_t *r, edge_t *e) {
    int n = 0;
    memset(e, 0, sizeof(edge_t) * EDGE_MAX);
    e[n].label = "default";
    snprintf(e[n].value, sizeof e[n].value, "%s", r->def);
    e[n].ok = 1;
    snprintf(e[n].effective, sizeof e[n].effective, "%s", r->def);
    if (strcmp(r->def, "null") != 0 && (r->def[0] == '-' || (r->def[0] >= '0' && r->def[0] <= '9'))) {
        e[n].is_number = 1;
        e[n].number = strtod(r->def, NULL);
    }
    n++;
    e[n].label = "null";
    snprintf(e[n].value, sizeof e[n].value, "null");
    e[n].ok = 1;
    snprintf(e[n].effective, sizeof e[n].effective, "%s", r->def);
    n++;
    if (r->ranged) {
        /* "min" is 0 for most durations: then it is the "0" edge below, not a second one. */
        if (r->lo != 0) edge_number(&e[n++], r, "min", r->lo);
        edge_number(&e[n++], r, "max", r->hi);
        edge_number(&e[n++], r, "min-1", r->lo - 1);
        edge_number(&e[n++], r, "max+1", r->hi + 1);
        edge_number(&e[n++], r, "0", 0);
    }
    return n;
}

#endif
