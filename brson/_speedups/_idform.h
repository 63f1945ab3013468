/* The ID element's shape for _idscanc.c (header-only, one module includes it): what the
 * patterns of brson/model/ids/forms.py match, read from the same constants (the prefix, the
 * two defining key names and the key suffix come from ids.forms as a Shape), so only the
 * GUID text shape and the key's character range are spelled here. The scan and the
 * definition table that use it stay in _idscanc.c; the shape is read the same way by every
 * pass over the bytes (a whole world's spans, a copied component's fragment).
 *
 * A match is a value prefix (key NUL, int32 37) at p, 36 GUID characters and a NUL after it,
 * and before it the element's key: the run of printable bytes (0x20-0x7e) ending at p,
 * preceded by the type byte 0x02. Neither pattern can match across another's bytes (a key
 * holds no 0x02, a value no 0x02), so finditer's left-to-right matches are exactly the
 * positions that satisfy this; the scan visits each candidate prefix once.
 * Include after <Python.h>. */
#ifndef BRSON_IDFORM_H
#define BRSON_IDFORM_H

#include <stdint.h>
#include <string.h>

#define GUID_LEN 36
#define MAX_REF_KEY 64 /* REFERENCE: [\x20-\x7e]{1,64} */
#define MAX_DEF_KEY 65 /* DEFINING_KEYS: [\x20-\x7e]{0,62}-ID */

/* Whether all 8 bytes of w are hex digits: with the high bits clear, adding 0x80 - lo to a
 * byte sets its high bit exactly when it is at least lo, and no sum carries to the next. */
static int hex8(uint64_t w) {
    const uint64_t high = 0x8080808080808080ULL, ones = 0x0101010101010101ULL;
    if (w & high)
        return 0;
    uint64_t digit = (w + ones * (0x80 - '0')) & ~(w + ones * (0x7f - '9'));
    uint64_t lower = w | ones * 0x20; /* upper-case letters as lower-case */
    uint64_t letter = (lower + ones * (0x80 - 'a')) & ~(lower + ones * (0x7f - 'f'));
    return ((digit | letter) & high) == high;
}

/* GUID_PATTERN over 36 bytes: the dashes, then the 32 digits as four words (not per byte). */
static int is_guid(const unsigned char *g) {
    if (g[8] != '-' || g[13] != '-' || g[18] != '-' || g[23] != '-')
        return 0;
    uint64_t w[4];
    unsigned char *d = (unsigned char *)w;
    memcpy(d, g, 8);
    for (int i = 0; i < 3; i++) /* the three groups of four between dashes */
        memcpy(d + 8 + 4 * i, g + 9 + 5 * i, 4);
    memcpy(d + 20, g + 24, 12);
    return hex8(w[0]) && hex8(w[1]) && hex8(w[2]) && hex8(w[3]);
}

static uint32_t hex_digit(unsigned char c) {
    return c <= '9' ? (uint32_t)(c - '0') & 15 : (uint32_t)((c | 0x20) - 'a' + 10) & 15;
}

/* What one scan needs of the element shape (from ids.forms). */
typedef struct {
    const unsigned char *prefix;
    Py_ssize_t prefix_len;
    const char *names[2];
    Py_ssize_t name_len[2];
    const char *suffix;
    Py_ssize_t suffix_len;
} Shape;

/* The element shape from ids.forms' constants (prefix bytes, a tuple of the two key names, the
 * key suffix; their types checked by the caller): 0, or -1 when not the shape C matches (the
 * prefix must start with the key's NUL: a key holds none, so a match ends the key). */
static int read_shape(PyObject *prefix, PyObject *names, PyObject *suffix, Shape *shape) {
    shape->prefix = (const unsigned char *)PyBytes_AS_STRING(prefix);
    shape->prefix_len = PyBytes_GET_SIZE(prefix);
    for (int i = 0; i < 2; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        if (!PyBytes_Check(name))
            return -1;
        shape->names[i] = PyBytes_AS_STRING(name);
        shape->name_len[i] = PyBytes_GET_SIZE(name);
    }
    shape->suffix = PyBytes_AS_STRING(suffix);
    shape->suffix_len = PyBytes_GET_SIZE(suffix);
    if (shape->prefix_len < 2 || shape->prefix[0] != 0 || shape->suffix_len < 1)
        return -1;
    return 0;
}

/* 1: defines an ID, 0: a reference, -1: neither (a key no pattern accepts). */
static int classify(const Shape *shape, const unsigned char *key, Py_ssize_t k) {
    for (int i = 0; i < 2; i++)
        if (k == shape->name_len[i] && memcmp(key, shape->names[i], (size_t)k) == 0)
            return 1;
    if (k >= shape->suffix_len && k <= MAX_DEF_KEY &&
        memcmp(key + k - shape->suffix_len, shape->suffix, (size_t)shape->suffix_len) == 0)
        return 1;
    if (k >= 1 && k <= MAX_REF_KEY)
        return 0;
    return -1;
}

/* The element starting at a prefix found at p: its type byte's offset, or -1. */
static Py_ssize_t element_start(const unsigned char *buf, Py_ssize_t lo, Py_ssize_t p) {
    Py_ssize_t s = p - 1;
    Py_ssize_t stop = p - MAX_DEF_KEY - 1;
    if (stop < lo)
        stop = lo;
    while (s >= stop && buf[s] >= 0x20 && buf[s] <= 0x7e)
        s--;
    if (s < lo || buf[s] != 0x02)
        return -1;
    return s;
}

/* The next ID element from *at on in [lo, hi): an element whose value is an ID in the shape's
 * prefix form (the mark byte sits at p + 1 of a prefix at p).  Returns the prefix's offset p,
 * its element's start in *start, and moves *at past the mark; -1 when none is left.  The caller
 * moves *at past a match it takes (matches do not overlap). */
static Py_ssize_t next_id(const unsigned char *buf, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t *at,
                          const Shape *shape, Py_ssize_t *start) {
    unsigned char mark = shape->prefix[1];
    while (*at < hi) {
        const unsigned char *m = memchr(buf + *at, mark, (size_t)(hi - *at));
        if (m == NULL)
            break;
        Py_ssize_t p = (m - buf) - 1;
        *at = (m - buf) + 1;
        Py_ssize_t g = p + shape->prefix_len;
        if (g + GUID_LEN + 1 > hi ||
            memcmp(buf + p, shape->prefix, (size_t)shape->prefix_len) != 0 ||
            buf[g + GUID_LEN] != 0 || !is_guid(buf + g))
            continue;
        Py_ssize_t s = element_start(buf, lo, p);
        if (s < 0)
            continue;
        *start = s;
        return p;
    }
    return -1;
}

static PyObject *ascii36(const unsigned char *g) {
    return PyUnicode_DecodeASCII((const char *)g, GUID_LEN, NULL);
}

/* SEQUENTIAL's groups: lower-case hex at 0-7, 9-12 and 14-17 (the dashes between them are
 * is_guid's), then the tail from ids.forms (SEQUENTIAL_TAIL) over the remaining 18 bytes. */
#define SEQ_HEAD 18
static int is_lower_hex(unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

/* Whether a GUID-shaped g is in the sequential style; its counter (low | mid << 32 |
 * high << 48) in *number when it is. */
static int sequential_number(const unsigned char *g, const unsigned char *tail, uint64_t *number) {
    if (memcmp(g + SEQ_HEAD, tail, GUID_LEN - SEQ_HEAD) != 0)
        return 0;
    uint64_t low = 0, mid = 0, high = 0;
    for (int i = 0; i < 8; i++) {
        if (!is_lower_hex(g[i]))
            return 0;
        low = (low << 4) | hex_digit(g[i]);
    }
    for (int i = 9; i < 13; i++) {
        if (!is_lower_hex(g[i]))
            return 0;
        mid = (mid << 4) | hex_digit(g[i]);
    }
    for (int i = 14; i < 18; i++) {
        if (!is_lower_hex(g[i]))
            return 0;
        high = (high << 4) | hex_digit(g[i]);
    }
    *number = low | mid << 32 | high << 48;
    return 1;
}

#endif
