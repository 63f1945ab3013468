/* The JSON form's text of a BSON document, rendered straight from its bytes: the compiled twin
 * of the pure-Python renderer in brson/document/jsonform.py (``_Renderer``), which pymongo's
 * decoder feeds with Python objects. Same text, character for character: json.dumps' layout
 * (a newline and ``indent`` spaces per level, or one line with ", "), strings escaped as
 * json's encode_basestring (ensure_ascii=False) does, doubles as float.__repr__, int64 and
 * NaN / infinity as the form's tags, a document whose first key starts with '$' wrapped in
 * {"$document": ...}; and, from the same pass, the number record (brson/document/
 * numberrecord.py): each element's ('ID' a string) own number types, written as it closes.
 *
 * ``renderer()`` first checks the whole document in one pass over its bytes and answers None
 * unless everything is what it renders exactly as pymongo + Python would: the types the
 * engine writes (double, string, document, array, bool, null, int32, int64), strict UTF-8,
 * no duplicate keys (pymongo's dict would merge them), booleans 0 or 1, nesting at most
 * MAX_NESTING. The caller then runs the Python path, which renders or refuses the rest (one
 * source for every error). The rendering itself is resumable (an explicit stack): each
 * ``render(limit)`` call returns the next piece of text, so memory stays at the BSON plus a
 * piece whatever the form's size. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdio.h>

#include "_bsonwire.h"
#include "_grow.h"

/* Nesting (the top document being 1) rendered here; deeper documents take the Python path,
 * whose own limits and errors apply (jsonform.MAX_DEPTH and pymongo's recursion limit). */
#define MAX_NESTING 256
/* Keys of one document compared pairwise up to this many, hashed beyond. */
#define PAIRWISE_KEYS 16
/* The number record's text is handed over in pieces of about this size (whole pairs). */
#define PIECE 262144

/* Strict UTF-8 as CPython decodes it (no overlong forms, surrogates or code points past
 * U+10FFFF, nothing truncated). */
static int valid_utf8(const unsigned char *s, Py_ssize_t n) {
    Py_ssize_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80)
                return 0;
            i += 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            if (i + 2 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80)
                return 0;
            if (c == 0xE0 && s[i + 1] < 0xA0)
                return 0; /* overlong */
            if (c == 0xED && s[i + 1] > 0x9F)
                return 0; /* surrogate */
            i += 3;
        } else if (c >= 0xF0 && c <= 0xF4) {
            if (i + 3 >= n || (s[i + 1] & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80 ||
                (s[i + 3] & 0xC0) != 0x80)
                return 0;
            if (c == 0xF0 && s[i + 1] < 0x90)
                return 0; /* overlong */
            if (c == 0xF4 && s[i + 1] > 0x8F)
                return 0; /* past U+10FFFF */
            i += 4;
        } else {
            return 0;
        }
    }
    return 1;
}

/* ---- the check: everything the renderer reads, as pymongo would read it ---- */

typedef struct {
    Py_ssize_t start, end;
    int nesting, array;
} Pending;

typedef struct {
    Py_ssize_t off, len;
} Key;

static uint64_t key_hash(const unsigned char *b, Key k) {
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < k.len; i++)
        h = (h ^ b[k.off + i]) * 1099511628211ULL;
    return h;
}

static int same_key(const unsigned char *b, Key x, Key y) {
    return x.len == y.len && memcmp(b + x.off, b + y.off, (size_t)x.len) == 0;
}

/* 1: the keys are distinct; 0: one repeats; -1: no memory. */
static int distinct_keys(const unsigned char *b, const Key *keys, Py_ssize_t count) {
    if (count <= PAIRWISE_KEYS) {
        for (Py_ssize_t i = 1; i < count; i++)
            for (Py_ssize_t j = 0; j < i; j++)
                if (same_key(b, keys[i], keys[j]))
                    return 0;
        return 1;
    }
    Py_ssize_t size = 64;
    while (size < 2 * count)
        size *= 2;
    Py_ssize_t *slots = PyMem_Malloc((size_t)size * sizeof(Py_ssize_t));
    if (slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < size; i++)
        slots[i] = -1;
    int distinct = 1;
    for (Py_ssize_t i = 0; i < count && distinct; i++) {
        Py_ssize_t at = (Py_ssize_t)(key_hash(b, keys[i]) & (uint64_t)(size - 1));
        while (slots[at] >= 0) {
            if (same_key(b, keys[slots[at]], keys[i])) {
                distinct = 0;
                break;
            }
            at = (at + 1) & (size - 1);
        }
        slots[at] = i;
    }
    PyMem_Free(slots);
    return distinct;
}

/* Whether the value [v, vend) of type etype is one rendered here exactly as pymongo + Python
 * would: the types the engine writes, a bool 0 or 1, a string NUL-terminated strict UTF-8. */
static int renders(int etype, const unsigned char *b, Py_ssize_t v, Py_ssize_t vend) {
    switch (etype) {
    case 0x01: case 0x03: case 0x04: case 0x0A: case 0x10: case 0x12:
        return 1;
    case 0x08:
        return b[v] <= 1;
    case 0x02:
        return b[vend - 1] == 0 && valid_utf8(b + v + 4, vend - v - 5);
    default:
        return 0;
    }
}

/* 1: the document [0, size) is rendered here; 0: the Python path decides; -1: an error set. */
static int check_document(const unsigned char *b, Py_ssize_t size) {
    if (!doc_spans(b, 0, size))
        return 0;
    Py_ssize_t pcap = 0, pn = 0, kcap = 0;
    Pending *pending = NULL;
    Key *keys = NULL;
    int ok = 1;
    if (grow_array((void **)&pending, &pcap, 1, sizeof(Pending)) < 0)
        return -1;
    pending[pn++] = (Pending){0, size, 1, 0};
    while (pn > 0 && ok == 1) {
        Pending doc = pending[--pn];
        Py_ssize_t pos = doc.start + 4, last = doc.end - 1, count = 0;
        while (pos < last) {
            int etype = b[pos];
            Py_ssize_t v, vend = element_end(b, pos, last, &v);
            if (vend < 0 || !renders(etype, b, v, vend) ||
                (!doc.array && !valid_utf8(b + pos + 1, v - pos - 2)) ||
                ((etype == 0x03 || etype == 0x04) && doc.nesting >= MAX_NESTING)) {
                ok = 0;
                break;
            }
            if (!doc.array) {
                if (grow_array((void **)&keys, &kcap, count + 1, sizeof(Key)) < 0) {
                    ok = -1;
                    break;
                }
                keys[count++] = (Key){pos + 1, v - pos - 2};
            }
            if (etype == 0x03 || etype == 0x04) {
                if (grow_array((void **)&pending, &pcap, pn + 1, sizeof(Pending)) < 0) {
                    ok = -1;
                    break;
                }
                pending[pn++] = (Pending){v, vend, doc.nesting + 1, etype == 0x04};
            }
            pos = vend;
        }
        if (ok == 1 && pos != last)
            ok = 0;
        if (ok == 1 && count > 1)
            ok = distinct_keys(b, keys, count);
    }
    PyMem_Free(pending);
    PyMem_Free(keys);
    return ok;
}

/* ---- the renderer ---- */

typedef struct {
    Py_ssize_t pos, last;  /* the next element, the container's terminator */
    Py_ssize_t ident;      /* the element's ID string (its length prefix), or -1 */
    Py_ssize_t sig_start;  /* where the element's own number types start in sig */
    int depth, array, wrapped;
} Frame;

typedef struct {
    PyObject_HEAD
    PyObject *data; /* the bytes rendered (held) */
    const unsigned char *b;
    int indent;     /* -1: one line */
    int numbers;    /* keep the number record */
    int first;      /* no item written yet in the innermost open container */
    Frame *stack;
    Py_ssize_t top, cap;
    Buf out, sig, pairs;
    PyObject *pieces; /* the record's finished pieces (str) */
    PyObject *separator;
} Renderer;

/* What starts a container's first item at depth d: a newline and indent * d spaces. */
static int put_line(Renderer *r, Buf *b, int d) {
    if (r->indent < 0)
        return 0;
    Py_ssize_t n = 1 + (Py_ssize_t)r->indent * d;
    if (buf_reserve(b, n) < 0)
        return -1;
    b->p[b->len] = '\n';
    memset(b->p + b->len + 1, ' ', (size_t)(n - 1));
    b->len += n;
    return 0;
}

/* What starts each further item at depth d. */
static int put_next(Renderer *r, Buf *b, int d) {
    if (r->indent < 0)
        return PUTS(b, ", ");
    if (PUTS(b, ",") < 0)
        return -1;
    return put_line(r, b, d);
}

/* json's encode_basestring of n checked UTF-8 bytes: quoted, '"' '\\' and control characters
 * escaped, everything else as it is. */
static int put_string(Buf *b, const unsigned char *s, Py_ssize_t n) {
    if (buf_reserve(b, 6 * n + 2) < 0)
        return -1;
    b->len = json_quote(b->p + b->len, s, n, 0) - b->p;
    return 0;
}

/* A tag object {"KEY": "VALUE"} (and "$bits") laid out at item depth d, as the Python path's
 * json.dumps of it, shifted to its place, writes it. */
static int put_tag(Renderer *r, int d, const char *key, const char *value, const char *bits) {
    Buf *o = &r->out;
    if (PUTS(o, "{") < 0 || put_line(r, o, d + 1) < 0 || PUTS(o, "\"") < 0 ||
        put(o, key, (Py_ssize_t)strlen(key)) < 0 || PUTS(o, "\": \"") < 0 ||
        put(o, value, (Py_ssize_t)strlen(value)) < 0 || PUTS(o, "\"") < 0)
        return -1;
    if (bits != NULL && (put_next(r, o, d + 1) < 0 || PUTS(o, "\"$bits\": \"") < 0 ||
                         put(o, bits, 16) < 0 || PUTS(o, "\"") < 0))
        return -1;
    if (put_line(r, o, d) < 0 || PUTS(o, "}") < 0)
        return -1;
    return 0;
}

static int put_double(Renderer *r, int d, const unsigned char *p) {
    uint64_t bits = (uint64_t)i64(p);
    double v = f64(p);
    if (r->numbers && PUTS(&r->sig, "d") < 0)
        return -1;
    if (isfinite(v)) {
        char *text = PyOS_double_to_string(v, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
        if (text == NULL)
            return -1;
        int rc = put(&r->out, text, (Py_ssize_t)strlen(text));
        PyMem_Free(text);
        return rc;
    }
    if (isinf(v))
        return put_tag(r, d, "$numberDouble", v > 0 ? "Infinity" : "-Infinity", NULL);
    if (bits == 0x7ff8000000000000ULL)
        return put_tag(r, d, "$numberDouble", "NaN", NULL);
    char hexbits[17];
    snprintf(hexbits, sizeof hexbits, "%016llx", (unsigned long long)bits);
    return put_tag(r, d, "$numberDouble", "NaN", hexbits);
}

/* The offset of a document's ID string (its length prefix), or -1: the element rule. */
static Py_ssize_t find_ident(const unsigned char *b, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t pos = start + 4, last = end - 1;
    while (pos < last) {
        Py_ssize_t v, vend = element_end(b, pos, last, &v);
        if (vend < 0) /* checked: cannot happen */
            return -1;
        if (b[pos] == 0x02 && v == pos + 4 && b[pos + 1] == 'I' && b[pos + 2] == 'D')
            return v;
        pos = vend;
    }
    return -1;
}

static int push(Renderer *r, Frame f) {
    if (grow_array((void **)&r->stack, &r->cap, r->top + 1, sizeof(Frame)) < 0)
        return -1;
    r->stack[r->top++] = f;
    return 0;
}

/* The record's pair for a closing element: [ID, "types"], when it holds numbers. */
static int close_element(Renderer *r, const Frame *f) {
    Py_ssize_t n = r->sig.len - f->sig_start;
    if (n == 0)
        return 0;
    Buf *p = &r->pairs;
    if (p->len >= PIECE) {
        PyObject *piece = PyUnicode_DecodeUTF8(p->p, p->len, "strict");
        if (piece == NULL || PyList_Append(r->pieces, piece) < 0) {
            Py_XDECREF(piece);
            return -1;
        }
        Py_DECREF(piece);
        p->len = 0;
    }
    if (p->len > 0) {
        Py_ssize_t seplen;
        const char *sep = PyUnicode_AsUTF8AndSize(r->separator, &seplen);
        if (sep == NULL || put(p, sep, seplen) < 0)
            return -1;
    }
    const unsigned char *id = r->b + f->ident;
    if (PUTS(p, "[") < 0 || put_string(p, id + 4, i32(id) - 1) < 0 || PUTS(p, ", \"") < 0 ||
        put(p, r->sig.p + f->sig_start, n) < 0 || PUTS(p, "\"]") < 0)
        return -1;
    r->sig.len = f->sig_start;
    return 0;
}

/* Render until the output holds at least limit bytes or the document is done. */
static int render_some(Renderer *r, Py_ssize_t limit) {
    const unsigned char *b = r->b;
    Buf *o = &r->out;
    char number[32];
    while (r->top > 0 && o->len < limit) {
        Frame *f = &r->stack[r->top - 1];
        if (f->pos >= f->last) {
            if (r->top == 1) { /* the top document's items only: the caller closes it */
                r->top = 0;
                break;
            }
            if (put_line(r, o, f->depth) < 0 || put(o, f->array ? "]" : "}", 1) < 0)
                return -1;
            if (f->wrapped && (put_line(r, o, f->depth - 1) < 0 || PUTS(o, "}") < 0))
                return -1;
            if (f->ident >= 0 && r->numbers && close_element(r, f) < 0)
                return -1;
            r->first = 0;
            r->top--;
            continue;
        }
        int etype = b[f->pos], d = f->depth;
        Py_ssize_t v, vend = element_end(b, f->pos, f->last, &v);
        if (vend < 0) { /* checked: cannot happen */
            PyErr_SetString(PyExc_ValueError, "document changed while rendered");
            return -1;
        }
        if ((r->first ? put_line(r, o, d + 1) : put_next(r, o, d + 1)) < 0)
            return -1;
        if (!f->array && (put_string(o, b + f->pos + 1, v - f->pos - 2) < 0 ||
                          PUTS(o, ": ") < 0))
            return -1;
        r->first = 0;
        f->pos = vend;
        int rc = 0;
        switch (etype) {
        case 0x02:
            rc = put_string(o, b + v + 4, vend - v - 5);
            break;
        case 0x01:
            rc = put_double(r, d + 1, b + v);
            break;
        case 0x10: {
            int n = snprintf(number, sizeof number, "%d", (int)i32(b + v));
            rc = r->numbers ? PUTS(&r->sig, "i") : 0;
            if (rc == 0)
                rc = put(o, number, n);
            break;
        }
        case 0x12: {
            snprintf(number, sizeof number, "%lld", (long long)i64(b + v));
            rc = put_tag(r, d + 1, "$numberLong", number, NULL);
            break;
        }
        case 0x08:
            rc = b[v] ? PUTS(o, "true") : PUTS(o, "false");
            break;
        case 0x0A:
            rc = PUTS(o, "null");
            break;
        case 0x03:
        case 0x04: {
            if (vend - v == 5) {
                rc = etype == 0x03 ? PUTS(o, "{}") : PUTS(o, "[]");
                break;
            }
            Frame child = {v + 4, vend - 1, -1, r->sig.len, d + 1, etype == 0x04, 0};
            if (etype == 0x04) {
                rc = PUTS(o, "[");
            } else {
                child.ident = find_ident(b, v, vend);
                if (b[v + 5] == '$') { /* the first key: {"$document": {...}} */
                    child.wrapped = 1;
                    child.depth = d + 2;
                    rc = PUTS(o, "{");
                    if (rc == 0)
                        rc = put_line(r, o, d + 2);
                    if (rc == 0)
                        rc = PUTS(o, "\"$document\": {");
                } else {
                    rc = PUTS(o, "{");
                }
            }
            if (rc == 0)
                rc = push(r, child);
            r->first = 1;
            break;
        }
        }
        if (rc < 0)
            return -1;
    }
    return 0;
}

static void Renderer_dealloc(Renderer *r) {
    Py_XDECREF(r->data);
    Py_XDECREF(r->pieces);
    Py_XDECREF(r->separator);
    PyMem_Free(r->stack);
    PyMem_Free(r->out.p);
    PyMem_Free(r->sig.p);
    PyMem_Free(r->pairs.p);
    PyObject_Free(r);
}

static PyObject *Renderer_render(Renderer *r, PyObject *arg) {
    Py_ssize_t limit = PyLong_AsSsize_t(arg);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    r->out.len = 0;
    if (render_some(r, limit) < 0)
        return NULL;
    return PyUnicode_DecodeUTF8(r->out.p ? r->out.p : "", r->out.len, "strict");
}

static PyObject *Renderer_record(Renderer *r, PyObject *Py_UNUSED(ignored)) {
    if (r->top > 0) {
        PyErr_SetString(PyExc_ValueError, "the document is not rendered yet");
        return NULL;
    }
    if (r->pairs.len > 0) {
        PyObject *piece = PyUnicode_DecodeUTF8(r->pairs.p, r->pairs.len, "strict");
        if (piece == NULL || PyList_Append(r->pieces, piece) < 0) {
            Py_XDECREF(piece);
            return NULL;
        }
        Py_DECREF(piece);
        r->pairs.len = 0;
    }
    PyObject *root = PyUnicode_FromStringAndSize(r->sig.p ? r->sig.p : "", r->sig.len);
    if (root == NULL)
        return NULL;
    PyObject *pieces = r->pieces;
    r->pieces = PyList_New(0);
    if (r->pieces == NULL) {
        r->pieces = pieces;
        Py_DECREF(root);
        return NULL;
    }
    r->sig.len = 0;
    return Py_BuildValue("(NN)", root, pieces);
}

static PyMethodDef Renderer_methods[] = {
    {"render", (PyCFunction)Renderer_render, METH_O,
     "render(limit) -> the next piece of text (at least limit bytes unless the last); '' when "
     "done."},
    {"record", (PyCFunction)Renderer_record, METH_NOARGS,
     "record() -> (root types, [pieces of the elements' pairs]) once rendered."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject RendererType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "brson._speedups._jsonformc.Renderer",
    .tp_basicsize = sizeof(Renderer),
    .tp_dealloc = (destructor)Renderer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = Renderer_methods,
    .tp_doc = "A resumable rendering of one document's items (see renderer()).",
};

static PyObject *renderer(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *data, *separator;
    int indent, depth, first, numbers;
    if (!PyArg_ParseTuple(args, "SiiiiU:renderer", &data, &indent, &depth, &first, &numbers,
                          &separator))
        return NULL;
    if (indent < -1 || depth < 0 || depth > 2) {
        PyErr_SetString(PyExc_ValueError, "indent must be -1 or more, depth 0 to 2");
        return NULL;
    }
    const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(data);
    Py_ssize_t size = PyBytes_GET_SIZE(data);
    int ok = check_document(b, size);
    if (ok < 0)
        return NULL;
    if (ok == 0)
        Py_RETURN_NONE;
    Renderer *r = PyObject_New(Renderer, &RendererType);
    if (r == NULL)
        return NULL;
    Py_INCREF(data);
    r->data = data;
    r->b = b;
    r->indent = indent;
    r->numbers = numbers;
    r->first = first;
    r->out = r->sig = r->pairs = (Buf){NULL, 0, 0};
    r->pieces = PyList_New(0);
    Py_INCREF(separator);
    r->separator = separator;
    r->stack = NULL;
    r->top = r->cap = 0;
    if (r->pieces == NULL || push(r, (Frame){4, size - 1, -1, 0, depth, 0, 0}) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

/* ---- refs --json: reference records laid out as json.dumps(indent=2) writes them ---- */

/* A record's fields (brson.graph.refs.RecordParts): what each may hold. */
enum { TEXT, TEXT_OR_NULL, TARGET };
#define RECORD_FIELDS 9
#define RECORD_PARTS 8

/* The UTF-8 of a str field (*s, *n), or NULL in *s for None where ``null_ok``: 1, or 0 when
 * the field is neither (or not UTF-8 encodable: a lone surrogate), -1 on an error. */
static int field_text(PyObject *item, int null_ok, const char **s, Py_ssize_t *n) {
    if (item == Py_None && null_ok) {
        *s = NULL;
        *n = 0;
        return 1;
    }
    if (!PyUnicode_CheckExact(item))
        return 0;
    *s = PyUnicode_AsUTF8AndSize(item, n);
    if (*s == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* a + b quoted as one JSON string (json escapes character by character, so each part is
 * escaped apart), or null when a is NULL. */
static int put_joined(Buf *o, const char *a, Py_ssize_t an, const char *b, Py_ssize_t bn) {
    if (a == NULL)
        return PUTS(o, "null");
    if (an > (PY_SSIZE_T_MAX - 3) / 6 - bn) {
        PyErr_NoMemory();
        return -1;
    }
    if (buf_reserve(o, 6 * (an + bn) + 3) < 0)
        return -1;
    char *mid = json_quote(o->p + o->len, (const unsigned char *)a, an, 0) - 1;
    char *end = json_quote(mid, (const unsigned char *)b, bn, 0);
    /* the quote that opened b's text goes: its escapes and the closing quote move left */
    memmove(mid, mid + 1, (size_t)(end - mid - 1));
    o->len = end - 1 - o->p;
    return 0;
}

/* What each field of a record may be: TEXT a str, TEXT_OR_NULL also None, TARGET (the
 * target's anchor) None or a str followed by its path's str. */
static const int record_fields[RECORD_FIELDS] = {
    TEXT, TEXT, TEXT_OR_NULL, TEXT_OR_NULL, TEXT, TEXT_OR_NULL, TARGET, TEXT, TEXT_OR_NULL,
};

/* One record (a 9-tuple) after the layout's parts: 1, 0 when C is unsure of it, -1 on an
 * error. */
static int put_record(Buf *o, PyObject *record, const char *const *parts,
                      const Py_ssize_t *sizes) {
    if (!PyTuple_CheckExact(record) || PyTuple_GET_SIZE(record) != RECORD_FIELDS)
        return 0;
    const char *s[RECORD_FIELDS];
    Py_ssize_t n[RECORD_FIELDS];
    for (int i = 0; i < RECORD_FIELDS; i++) {
        int ok = field_text(PyTuple_GET_ITEM(record, i), record_fields[i] != TEXT, &s[i], &n[i]);
        if (ok <= 0)
            return ok;
    }
    /* the values in the layout's order: from (anchor + path), source_kind, member_id,
     * target_id, kind, target (anchor + path, or null), target_kind */
    static const int first[RECORD_PARTS - 1] = {0, 2, 3, 4, 5, 6, 8};
    for (int k = 0; k < RECORD_PARTS - 1; k++) {
        int i = first[k];
        if (put(o, parts[k], sizes[k]) < 0)
            return -1;
        int joined = i == 0 || i == 6;
        if (put_joined(o, s[i], n[i], joined ? s[i + 1] : "", joined ? n[i + 1] : 0) < 0)
            return -1;
    }
    return put(o, parts[RECORD_PARTS - 1], sizes[RECORD_PARTS - 1]) < 0 ? -1 : 1;
}

/* records(batch, parts, separator) -> str | None: the text of a list of records
 * (brson.graph.refs.RecordParts) as brson/cli/tree.py's records_text writes them: each
 * record's values between the layout's eight parts (the text before each of the seven
 * values, then the record's end), records joined by separator.  None when a record is not
 * one C writes exactly (a field of another type, a str that is not UTF-8 encodable): the
 * Python path writes the batch. */
static PyObject *records(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *batch, *given, *separator;
    if (!PyArg_ParseTuple(args, "O!O!U:records", &PyList_Type, &batch, &PyTuple_Type, &given,
                          &separator))
        return NULL;
    if (PyTuple_GET_SIZE(given) != RECORD_PARTS)
        Py_RETURN_NONE;
    const char *parts[RECORD_PARTS];
    Py_ssize_t sizes[RECORD_PARTS], gap;
    for (int k = 0; k < RECORD_PARTS; k++) {
        PyObject *part = PyTuple_GET_ITEM(given, k);
        if (!PyUnicode_Check(part) || (parts[k] = PyUnicode_AsUTF8AndSize(part, &sizes[k])) == NULL) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
    }
    const char *between = PyUnicode_AsUTF8AndSize(separator, &gap);
    if (between == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Buf o = {NULL, 0, 0};
    PyObject *out = NULL;
    for (Py_ssize_t r = 0; r < PyList_GET_SIZE(batch); r++) {
        if (r > 0 && put(&o, between, gap) < 0)
            goto done;
        int ok = put_record(&o, PyList_GET_ITEM(batch, r), parts, sizes);
        if (ok < 0)
            goto done;
        if (ok == 0) {
            out = Py_NewRef(Py_None);
            goto done;
        }
    }
    out = PyUnicode_DecodeUTF8(o.p != NULL ? o.p : "", o.len, NULL);
done:
    PyMem_Free(o.p);
    return out;
}

static PyMethodDef methods[] = {
    {"records", records, METH_VARARGS,
     "records(batch, parts, separator) -> str | None: reference records as refs --json "
     "writes them, or None when the Python path decides."},
    {"renderer", renderer, METH_VARARGS,
     "renderer(data, indent, depth, first, numbers, separator) -> Renderer | None: the items "
     "of the BSON document data (no braces) at depth, or None when the Python path decides."},
    {NULL, NULL, 0, NULL},
};

BRSON_MODULE(_jsonformc,
             "The JSON form rendered from BSON bytes (brson/document/jsonform.py's twin).");

PyMODINIT_FUNC PyInit__jsonformc(void) {
    if (PyType_Ready(&RendererType) < 0)
        return NULL;
    return PyModule_Create(&module);
}
