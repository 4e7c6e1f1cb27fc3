/* A small reader of JSON text for the C tests (C99): values are found where they lie in the
 * text (no tree, no allocation) — a member of an object, an element of an array, a JSON
 * pointer — and compared. Enough for the scenario table of test_mcp_sdk.c
 * (testkit/sdk-servers/scenarios.json) and the results it checks; not a validating parser
 * (the library produced or the repository holds the text). Strings are unescaped for
 * \" \\ \/ \b \f \n \r \t and \uXXXX of ASCII.
 */
#ifndef CODEXCLIENT_JSON_SCAN_H
#define CODEXCLIENT_JSON_SCAN_H

#include <stdlib.h>
#include <string.h>

static inline const char *js_ws(const char *p) {
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    return p;
}

/* The end of the string starting at p (on its opening quote): just past the closing quote. */
static inline const char *js_string_end(const char *p) {
    for (p++; *p != '\0' && *p != '"'; p++)
        if (*p == '\\' && p[1] != '\0') p++;
    return *p == '"' ? p + 1 : p;
}

/* Just past the value starting at p (after white space). */
static inline const char *js_skip(const char *p) {
    int depth = 0;
    p = js_ws(p);
    do {
        if (*p == '"') {
            p = js_string_end(p);
            continue;
        }
        if (*p == '{' || *p == '[') depth++;
        else if (*p == '}' || *p == ']') depth--;
        else if (depth == 0) {
            while (*p != '\0' && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n') p++;
            return p;
        }
        if (*p == '\0') return p;
        p++;
    } while (depth > 0);
    return p;
}

/* The unescaped text of the string at p into buf (size n); 0 when p is no string. */
static inline int js_str(const char *p, char *buf, size_t n) {
    size_t k = 0;
    p = js_ws(p);
    if (*p != '"' || n == 0) return 0;
    for (p++; *p != '\0' && *p != '"'; p++) {
        char ch = *p;
        if (ch == '\\') {
            p++;
            switch (*p) {
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'n': ch = '\n'; break;
            case 'r': ch = '\r'; break;
            case 't': ch = '\t'; break;
            case 'u': {
                char hex[5] = {0};
                memcpy(hex, p + 1, 4);
                ch = (char)strtol(hex, NULL, 16);
                p += 4;
                break;
            }
            default: ch = *p;
            }
        }
        if (k + 1 < n) buf[k++] = ch;
    }
    buf[k] = '\0';
    return 1;
}

/* The value of member `key` (unescaped, length klen) of the object at p, or NULL. */
static inline const char *js_member_n(const char *p, const char *key, size_t klen) {
    char name[256];
    p = js_ws(p);
    if (*p != '{') return NULL;
    p = js_ws(p + 1);
    while (*p == '"') {
        js_str(p, name, sizeof name);
        p = js_ws(js_string_end(p));
        if (*p != ':') return NULL;
        p = js_ws(p + 1);
        if (strlen(name) == klen && memcmp(name, key, klen) == 0) return p;
        p = js_ws(js_skip(p));
        if (*p != ',') return NULL;
        p = js_ws(p + 1);
    }
    return NULL;
}

static inline const char *js_member(const char *p, const char *key) { return js_member_n(p, key, strlen(key)); }

/* Element i of the array at p, or NULL. */
static inline const char *js_index(const char *p, size_t i) {
    p = js_ws(p);
    if (*p != '[') return NULL;
    p = js_ws(p + 1);
    if (*p == ']') return NULL;
    while (i-- > 0) {
        p = js_ws(js_skip(p));
        if (*p != ',') return NULL;
        p = js_ws(p + 1);
    }
    return p;
}

/* The number of elements of the array at p (-1: not an array). */
static inline long js_len(const char *p) {
    long n = 0;
    p = js_ws(p);
    if (*p != '[') return -1;
    p = js_ws(p + 1);
    if (*p == ']') return 0;
    for (;;) {
        n++;
        p = js_ws(js_skip(p));
        if (*p != ',') return n;
        p = js_ws(p + 1);
    }
}

/* The value at JSON pointer `ptr` (RFC 6901, up to its end or a "/ *" segment: `stop` then
 * points at that segment) in the value at p, or NULL. */
static inline const char *js_pointer_until(const char *p, const char *ptr, const char **stop) {
    char seg[256];
    *stop = NULL;
    while (p != NULL && *ptr == '/') {
        size_t k = 0;
        const char *s = ptr + 1;
        if (s[0] == '*' && (s[1] == '/' || s[1] == '\0')) {
            *stop = ptr;
            return p;
        }
        for (; *s != '\0' && *s != '/'; s++) {
            char ch = *s;
            if (ch == '~' && (s[1] == '0' || s[1] == '1')) ch = *++s == '0' ? '~' : '/';
            if (k + 1 < sizeof seg) seg[k++] = ch;
        }
        seg[k] = '\0';
        ptr = s;
        p = js_ws(p);
        if (*p == '[') p = js_index(p, (size_t)strtoul(seg, NULL, 10));
        else p = js_member_n(p, seg, k);
    }
    return p;
}

static inline const char *js_pointer(const char *p, const char *ptr) {
    const char *stop;
    p = js_pointer_until(p, ptr, &stop);
    return stop == NULL ? p : NULL;
}

/* Whether the values at a and b are equal: numbers as numbers, strings by their text, other
 * values by their text (compact JSON on both sides). */
static inline int js_eq(const char *a, const char *b) {
    const char *ea, *eb;
    a = js_ws(a);
    b = js_ws(b);
    if (*a == '"' && *b == '"') {
        char sa[4096], sb[4096];
        js_str(a, sa, sizeof sa);
        js_str(b, sb, sizeof sb);
        return strcmp(sa, sb) == 0;
    }
    if ((*a == '-' || (*a >= '0' && *a <= '9')) && (*b == '-' || (*b >= '0' && *b <= '9')))
        return strtod(a, NULL) == strtod(b, NULL);
    ea = js_skip(a);
    eb = js_skip(b);
    return ea - a == eb - b && memcmp(a, b, (size_t)(ea - a)) == 0;
}

#endif
