/* The JSON form's text read onto a BSON output, for _formstreamc.c (header-only, one
 * module includes it): the reader's state, the growable output, whitespace, strings (UTF-8
 * checked, escapes decoded), number literals (the grammar json.loads reads), and the number
 * record read from the end of the text into a hash table. Every function answers 0, -1 with
 * a Python exception set, or UNSURE: the text is left to the Python path. */
#ifndef BRSON_FORMTEXT_H
#define BRSON_FORMTEXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "_bsonwire.h"
#include "_grow.h"

/* JSON nesting (objects, arrays, tag wrappers) read here; deeper goes to the Python path,
 * which has its own limits well above it. */
#define MAX_NESTING 400
/* A number literal longer than this goes to the Python path. */
#define MAX_LITERAL 400
/* How much text is read between two hand-backs of the mapping's pages. */
#define RELEASE_STEP (4 << 20)
/* Keys of one object compared one by one before a hash set takes over. */
#define LINEAR_KEYS 16

enum { UNSURE = -2 };

/* ---- the number record: element ID -> signature ------------------------------------- */

typedef struct {
    uint64_t hash;
    Py_ssize_t id, idlen;   /* in the arena */
    Py_ssize_t sig, siglen; /* in the arena; sig < 0: listed twice with different types */
} Entry;

typedef struct {
    char *arena;
    Py_ssize_t alen, acap;
    Entry *slots;
    Py_ssize_t nslots, used;
    char *root;
    Py_ssize_t rootlen;
} Record;

static uint64_t hash_bytes(const char *s, Py_ssize_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h ? h : 1;
}

/* ---- state --------------------------------------------------------------------------- */

typedef struct {
    int kind;             /* 'o' object, 'a' array, 'w' a $document wrapper */
    Py_ssize_t start;     /* the BSON document's offset (its length goes there) */
    Py_ssize_t count;     /* items so far */
    Py_ssize_t keys;      /* where this object's key offsets start in State.keys */
    Py_ssize_t *set;      /* a hash set of key offsets (+1; 0 empty), past LINEAR_KEYS keys */
    Py_ssize_t setcap;
    Py_ssize_t scope;     /* the scope its numbers belong to */
    int owns_scope;       /* it is an element: it opened that scope */
    int may_be_element;   /* not the top-level document */
    Py_ssize_t places_at_open, opened_at_open;
} Frame;

typedef struct {
    const char *sig; /* NULL: no signature (listed twice differently) */
    Py_ssize_t siglen;
    int known, all_d, all_i;
    Py_ssize_t order;
    Py_ssize_t id, idlen; /* the ID's bytes in the output */
    Py_ssize_t n, ints, converted, widen;
} Scope;

typedef struct {
    const char *base, *p, *end;
    Py_ssize_t released; /* pages before base + released were handed back */
    int release;
    PyObject *out;
    char *buf;
    Py_ssize_t len, cap;
    Frame *frames;
    Py_ssize_t nframes, cframes;
    Scope *scopes;
    Py_ssize_t nscopes, cscopes, opened;
    Py_ssize_t *keys;
    Py_ssize_t nkeys, ckeys;
    Record rec;
    Py_ssize_t record_at, record_end; /* the top-level "$numbers" key and its value's end */
    Py_ssize_t container_at, container_end;
    Py_ssize_t doubles, widened, unknown, ambiguous;
    PyObject *unknown_ids, *ambiguous_ids;
} State;

/* ---- output -------------------------------------------------------------------------- */

static int reserve(State *s, Py_ssize_t n) {
    if (s->len + n <= s->cap)
        return 0;
    if (s->len + n > INT32_MAX)
        return UNSURE; /* BSON lengths are int32: the Python path says what it says */
    Py_ssize_t cap = s->cap;
    while (cap < s->len + n)
        cap = cap < (1 << 20) ? cap * 2 : cap + cap / 2;
    if (cap > INT32_MAX)
        cap = INT32_MAX;
    if (_PyBytes_Resize(&s->out, cap) < 0)
        return -1;
    s->buf = PyBytes_AS_STRING(s->out);
    s->cap = cap;
    return 0;
}

static int emit(State *s, const void *bytes, Py_ssize_t n) {
    int rc = reserve(s, n);
    if (rc)
        return rc;
    memcpy(s->buf + s->len, bytes, (size_t)n);
    s->len += n;
    return 0;
}

static int emit_byte(State *s, char c) { return emit(s, &c, 1); }

/* ---- input --------------------------------------------------------------------------- */

/* Hand back the mapping's pages read so far (a file mapping: they are read again from the
 * page cache if touched). */
static void release_read(State *s) {
    if (!s->release)
        return;
    Py_ssize_t done = s->p - s->base;
    if (done - s->released < RELEASE_STEP)
        return;
    long page = sysconf(_SC_PAGESIZE);
    Py_ssize_t upto = done - done % page;
    if (upto > s->released) {
        madvise((void *)(s->base + s->released), (size_t)(upto - s->released), MADV_DONTNEED);
        s->released = upto;
    }
}

static void skip_ws(State *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
}

static int expect(State *s, char c) {
    skip_ws(s);
    if (s->p >= s->end || *s->p != c)
        return UNSURE;
    s->p++;
    return 0;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int hex4(const char *p) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* Length of a well-formed UTF-8 sequence at p (no overlongs, no surrogates), 0 if none. */
static int utf8_len(const unsigned char *p, const unsigned char *end) {
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return end - p >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (end - p < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
            return 0;
        if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0))
            return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (end - p < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 ||
            (p[3] & 0xC0) != 0x80)
            return 0;
        if ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90))
            return 0;
        return 4;
    }
    return 0;
}

/* A JSON string (s->p at its opening quote) decoded as UTF-8 onto the output, no NUL. */
static int read_string(State *s) {
    if (s->p >= s->end || *s->p != '"')
        return UNSURE;
    s->p++;
    for (;;) {
        const char *run = s->p;
        while (s->p < s->end) {
            unsigned char c = (unsigned char)*s->p;
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
                break;
            s->p++;
        }
        int rc = emit(s, run, s->p - run);
        if (rc)
            return rc;
        if (s->p >= s->end)
            return UNSURE;
        unsigned char c = (unsigned char)*s->p;
        if (c == '"') {
            s->p++;
            return 0;
        }
        if (c < 0x20)
            return UNSURE;
        if (c >= 0x80) {
            int n = utf8_len((const unsigned char *)s->p, (const unsigned char *)s->end);
            if (n == 0)
                return UNSURE;
            if ((rc = emit(s, s->p, n)))
                return rc;
            s->p += n;
            continue;
        }
        /* an escape */
        if (s->end - s->p < 2)
            return UNSURE;
        char e = s->p[1];
        char one;
        s->p += 2;
        switch (e) {
        case '"': one = '"'; break;
        case '\\': one = '\\'; break;
        case '/': one = '/'; break;
        case 'b': one = '\b'; break;
        case 'f': one = '\f'; break;
        case 'n': one = '\n'; break;
        case 'r': one = '\r'; break;
        case 't': one = '\t'; break;
        case 'u': {
            if (s->end - s->p < 4)
                return UNSURE;
            long cp = hex4(s->p);
            if (cp < 0)
                return UNSURE;
            s->p += 4;
            if (cp >= 0xDC00 && cp <= 0xDFFF)
                return UNSURE;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (s->end - s->p < 6 || s->p[0] != '\\' || s->p[1] != 'u')
                    return UNSURE;
                long lo = hex4(s->p + 2);
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return UNSURE;
                s->p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            if (cp == 0)
                return UNSURE;
            char u[4];
            int n;
            if (cp < 0x80) {
                u[0] = (char)cp;
                n = 1;
            } else if (cp < 0x800) {
                u[0] = (char)(0xC0 | (cp >> 6));
                u[1] = (char)(0x80 | (cp & 0x3F));
                n = 2;
            } else if (cp < 0x10000) {
                u[0] = (char)(0xE0 | (cp >> 12));
                u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                u[2] = (char)(0x80 | (cp & 0x3F));
                n = 3;
            } else {
                u[0] = (char)(0xF0 | (cp >> 18));
                u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
                u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
                u[3] = (char)(0x80 | (cp & 0x3F));
                n = 4;
            }
            if ((rc = emit(s, u, n)))
                return rc;
            continue;
        }
        default:
            return UNSURE;
        }
        if ((rc = emit_byte(s, one)))
            return rc;
    }
}

/* A string decoded into the output and taken back off it: (*at, *n) in the output until the
 * next write. */
static int scratch_string(State *s, Py_ssize_t *at, Py_ssize_t *n) {
    *at = s->len;
    int rc = read_string(s);
    *n = s->len - *at;
    s->len = *at;
    return rc;
}

typedef struct {
    int is_float;
    double d;
    int64_t i;
} Number;

/* A JSON number literal (the grammar json.loads reads); -0 is the double -0.0, as the form
 * reads jq's spelling of it. */
static int read_number(State *s, Number *num) {
    const char *start = s->p, *p = s->p;
    int neg = 0;
    if (p < s->end && *p == '-') {
        neg = 1;
        p++;
    }
    if (p >= s->end || *p < '0' || *p > '9')
        return UNSURE;
    const char *digits = p;
    if (*p == '0')
        p++;
    else
        while (p < s->end && *p >= '0' && *p <= '9')
            p++;
    Py_ssize_t ndigits = p - digits;
    int is_float = 0;
    if (p + 1 < s->end && *p == '.' && p[1] >= '0' && p[1] <= '9') {
        is_float = 1;
        p += 2;
        while (p < s->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < s->end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        if (q < s->end && (*q == '+' || *q == '-'))
            q++;
        if (q < s->end && *q >= '0' && *q <= '9') {
            is_float = 1;
            p = q;
            while (p < s->end && *p >= '0' && *p <= '9')
                p++;
        }
    }
    s->p = p;
    if (!is_float) {
        if (ndigits == 1 && *digits == '0' && neg) {
            num->is_float = 1;
            num->d = -0.0;
            return 0;
        }
        if (ndigits > 19)
            return UNSURE;
        uint64_t mag = 0;
        for (const char *d = digits; d < p; d++)
            mag = mag * 10 + (uint64_t)(*d - '0');
        if (ndigits == 19 && mag > (neg ? (1ULL << 63) : (1ULL << 63) - 1))
            return UNSURE;
        num->is_float = 0;
        num->i = neg ? (int64_t)(0 - mag) : (int64_t)mag;
        return 0;
    }
    if (p - start > MAX_LITERAL)
        return UNSURE;
    char text[MAX_LITERAL + 1];
    memcpy(text, start, (size_t)(p - start));
    text[p - start] = '\0';
    double d = PyOS_string_to_double(text, NULL, NULL);
    if (d == -1.0 && PyErr_Occurred())
        return -1;
    if (Py_IS_INFINITY(d) || Py_IS_NAN(d))
        return UNSURE;
    num->is_float = 1;
    num->d = d;
    return 0;
}

static int literal(State *s, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
        return UNSURE;
    s->p += n;
    return 0;
}

/* ---- the record ---------------------------------------------------------------------- */

static int arena_add(State *s, const char *bytes, Py_ssize_t n, Py_ssize_t *at) {
    Record *r = &s->rec;
    if (grow_array((void **)&r->arena, &r->acap, r->alen + n + 1, 1) < 0)
        return -1;
    memcpy(r->arena + r->alen, bytes, (size_t)n);
    *at = r->alen;
    r->alen += n;
    return 0;
}

static Entry *record_find(Record *r, const char *id, Py_ssize_t n, uint64_t h) {
    if (r->nslots == 0)
        return NULL;
    Py_ssize_t mask = r->nslots - 1, i = (Py_ssize_t)(h & (uint64_t)mask);
    for (;;) {
        Entry *e = &r->slots[i];
        if (e->hash == 0)
            return e;
        if (e->hash == h && e->idlen == n && memcmp(r->arena + e->id, id, (size_t)n) == 0)
            return e;
        i = (i + 1) & mask;
    }
}

static int record_grow(Record *r) {
    Py_ssize_t n = r->nslots ? r->nslots * 2 : 1024;
    Entry *old = r->slots;
    Py_ssize_t oldn = r->nslots;
    r->slots = PyMem_Calloc((size_t)n, sizeof(Entry));
    if (r->slots == NULL) {
        r->slots = old;
        PyErr_NoMemory();
        return -1;
    }
    r->nslots = n;
    for (Py_ssize_t i = 0; i < oldn; i++)
        if (old[i].hash) {
            Entry *e = record_find(r, r->arena + old[i].id, old[i].idlen, old[i].hash);
            *e = old[i];
        }
    PyMem_Free(old);
    return 0;
}

static int is_signature(const char *p, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (p[i] != 'd' && p[i] != 'i')
            return 0;
    return 1;
}

/* The last '$' before limit, or NULL (memrchr is a GNU extension). */
static const char *last_dollar(const char *base, const char *limit) {
    while (limit > base)
        if (*--limit == '$')
            return limit;
    return NULL;
}

/* One ["ID", "sig"] pair of the record's elements. */
static int record_pair(State *s) {
    Py_ssize_t at, n, sat, sn;
    int rc = expect(s, '[');
    if (rc)
        return rc;
    skip_ws(s);
    if ((rc = scratch_string(s, &at, &n)))
        return rc;
    if ((rc = reserve(s, n)))
        return rc;
    s->len += n; /* keep the ID while the signature is read after it */
    if ((rc = expect(s, ',')))
        return rc;
    skip_ws(s);
    rc = scratch_string(s, &sat, &sn);
    s->len -= n;
    if (rc)
        return rc;
    if (!is_signature(s->buf + sat, sn) || (rc = expect(s, ']')))
        return UNSURE;
    Record *r = &s->rec;
    if ((r->used + 1) * 2 > r->nslots && record_grow(r) < 0)
        return -1;
    uint64_t h = hash_bytes(s->buf + at, n);
    Entry *e = record_find(r, s->buf + at, n, h);
    if (e->hash) { /* listed again: kept only when the types agree */
        if (e->sig >= 0 &&
            (e->siglen != sn || memcmp(r->arena + e->sig, s->buf + sat, (size_t)sn) != 0))
            e->sig = -1;
        return 0;
    }
    Py_ssize_t idat, sigat;
    if (arena_add(s, s->buf + at, n, &idat) < 0 || arena_add(s, s->buf + sat, sn, &sigat) < 0)
        return -1;
    *e = (Entry){h, idat, n, sigat, sn};
    r->used++;
    return 0;
}

/* The record: the last occurrence of "$numbers" must be the top object's last key, its value
 * {"root": sig, "elements": [...]}, then the top object's end and nothing else. Found by a
 * search from the end; the main pass checks that it meets this key at this very place. */
static int read_record(State *s) {
    const char *hit = NULL, *limit = s->end;
    static const char key[] = "\"$numbers\"";
    const Py_ssize_t klen = (Py_ssize_t)sizeof key - 1;
    while (hit == NULL && limit > s->base) {
        const char *q = last_dollar(s->base, limit);
        if (q == NULL)
            return UNSURE;
        if (q > s->base && s->end - (q - 1) >= klen && memcmp(q - 1, key, (size_t)klen) == 0)
            hit = q - 1;
        limit = q;
    }
    if (hit == NULL)
        return UNSURE;
    const char *saved = s->p;
    s->p = hit + klen;
    int rc, seen_root = 0, seen_elements = 0;
    if ((rc = expect(s, ':')) || (rc = expect(s, '{')))
        return rc;
    for (int k = 0; k < 2; k++) {
        Py_ssize_t at, n;
        if (k && (rc = expect(s, ',')))
            return rc;
        skip_ws(s);
        if ((rc = scratch_string(s, &at, &n)) || (rc = expect(s, ':')))
            return rc;
        skip_ws(s);
        if (n == 4 && memcmp(s->buf + at, "root", 4) == 0 && !seen_root) {
            seen_root = 1;
            if ((rc = scratch_string(s, &at, &n)))
                return rc;
            if (!is_signature(s->buf + at, n))
                return UNSURE;
            s->rec.root = PyMem_Malloc((size_t)n + 1);
            if (s->rec.root == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            memcpy(s->rec.root, s->buf + at, (size_t)n);
            s->rec.rootlen = n;
        } else if (n == 8 && memcmp(s->buf + at, "elements", 8) == 0 && !seen_elements) {
            seen_elements = 1;
            if ((rc = expect(s, '[')))
                return rc;
            skip_ws(s);
            if (s->p < s->end && *s->p == ']') {
                s->p++;
            } else {
                for (;;) {
                    if ((rc = record_pair(s)))
                        return rc;
                    skip_ws(s);
                    if (s->p < s->end && *s->p == ',') {
                        s->p++;
                        continue;
                    }
                    if ((rc = expect(s, ']')))
                        return rc;
                    break;
                }
            }
        } else {
            return UNSURE;
        }
    }
    if ((rc = expect(s, '}')))
        return rc;
    s->record_end = s->p - s->base;
    if ((rc = expect(s, '}')))
        return rc;
    skip_ws(s);
    if (s->p != s->end)
        return UNSURE;
    s->record_at = hit - s->base;
    if (s->release) { /* the record's text is read: its pages go back too */
        long page = sysconf(_SC_PAGESIZE);
        Py_ssize_t from = s->record_at - s->record_at % page;
        madvise((void *)(s->base + from), (size_t)((s->end - s->base) - from), MADV_DONTNEED);
    }
    s->p = saved;
    return 0;
}


#endif
