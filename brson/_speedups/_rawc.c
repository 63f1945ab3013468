/* The byte loops of brson/document/raw.py in C: the same functions, the same results.
 *
 * The contract that keeps this safe: for every input the pure-Python function accepts, the C
 * function returns an equal value (same keys in the same order, same tuples). For every input
 * it is not sure of -- anything the Python function rejects with a DocumentError, any argument
 * of an unexpected type, any offset outside the buffer -- it does not decide: it calls the
 * pure-Python function registered by raw.py (`set_fallbacks`), which answers or raises the
 * precise error. So the C code never builds an error message of its own, and a bug that makes
 * it too cautious costs speed, never a different result.
 *
 * Every read is checked against the buffer's length and against [start, end) before it is
 * made; positions are Py_ssize_t (64-bit) so no sum of an offset and an int32 length wraps.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "_bsonwire.h"
#include "_grow.h"
#include <string.h>

/* The pure-Python functions, in the order of FB_* below. */
enum { FB_INDEX, FB_INDEX_AS, FB_MEMBER_DATA, FB_MEMBER_INDEX, FB_ARRAY_ITEMS,
       FB_COMPONENT_INDEX, FB_COUNT };
static PyObject *fallback[FB_COUNT];
/* The keys of the fixed layouts, made once (interned, like the literals of raw.py). */
static PyObject *str_ID, *str_Data, *str_Type;
static const char *fallback_names[FB_COUNT] = {
    "index", "index_as", "member_data", "member_index", "array_items", "component_index"};
/* How many calls were handed to the pure-Python functions (tests check C answers itself). */
static unsigned long long deferred = 0;

/* Results of the internal functions: an answer, or not sure (defer to Python), or a Python
 * error already set (out of memory). */
#define UNSURE ((PyObject *)1)

static PyObject *element(long etype, Py_ssize_t pos, Py_ssize_t vstart, Py_ssize_t vend) {
    PyObject *t = PyTuple_New(4);
    if (t == NULL)
        return NULL;
    PyObject *items[4] = {PyLong_FromLong(etype), PyLong_FromSsize_t(pos),
                          PyLong_FromSsize_t(vstart), PyLong_FromSsize_t(vend)};
    for (int i = 0; i < 4; i++) {
        if (items[i] == NULL) {
            for (int j = 0; j < 4; j++)
                Py_XDECREF(items[j]);
            Py_DECREF(t);
            return NULL;
        }
    }
    for (int i = 0; i < 4; i++)
        PyTuple_SET_ITEM(t, i, items[i]);
    /* Four ints cannot be part of a cycle: the collector would untrack the tuple on its first
     * pass (as it does Python's); untracked now, it never costs a pass, and the dicts holding
     * only such tuples stay untracked too. */
    PyObject_GC_UnTrack(t);
    return t;
}

/* Keys repeat (every member is "ID" and "Data", every component's Data the same few names):
 * a small cache hands out one str per ASCII key instead of decoding each occurrence anew,
 * which saves a str (50+ bytes) per element kept and makes dict look-ups identity hits. Equal
 * values to bytes.decode()'s; anything not ASCII is decoded as always. */
#define KEY_CACHE 1024
#define KEY_CACHE_MAX_LEN 48
static PyObject *key_cache[KEY_CACHE];

static PyObject *decode_key(const unsigned char *p, Py_ssize_t n) {
    if (n > KEY_CACHE_MAX_LEN)
        return PyUnicode_DecodeUTF8((const char *)p, n, "strict");
    uint32_t h = 2166136261u;
    for (Py_ssize_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    PyObject **slot = &key_cache[(h ^ (h >> 16)) & (KEY_CACHE - 1)];
    PyObject *hit = *slot;
    if (hit != NULL && PyUnicode_GET_LENGTH(hit) == n &&
        memcmp(PyUnicode_DATA(hit), p, (size_t)n) == 0) {
        Py_INCREF(hit);
        return hit;
    }
    PyObject *key = PyUnicode_DecodeUTF8((const char *)p, n, "strict");
    if (key != NULL && PyUnicode_IS_ASCII(key)) {
        Py_INCREF(key);
        Py_XSETREF(*slot, key);
    }
    return key;
}

/* The arguments (buf, start, end) when C can answer: buf exactly bytes (a subclass could
 * override find/startswith), start and end ints with 0 <= start <= end <= len(buf). Python
 * accepts other values (negative offsets index from the end); those go to Python. */
typedef struct {
    const unsigned char *b;
    Py_ssize_t len, start, end;
} Span;

/* An int whose arithmetic is int's (a subclass could override +); bool is one. */
static inline int plain_int(PyObject *o) { return PyLong_CheckExact(o) || PyBool_Check(o); }

static int span_of(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, Span *s) {
    if (nargs != want || !PyBytes_CheckExact(args[0]) || !plain_int(args[1]) ||
        !plain_int(args[2]))
        return 0;
    s->start = PyLong_AsSsize_t(args[1]);
    if (s->start == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    s->end = PyLong_AsSsize_t(args[2]);
    if (s->end == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    s->b = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    s->len = PyBytes_GET_SIZE(args[0]);
    return 0 <= s->start && s->start <= s->end && s->end <= s->len;
}

static PyObject *defer(int which, PyObject *const *args, Py_ssize_t nargs) {
    if (fallback[which] == NULL) {
        PyErr_Format(PyExc_RuntimeError, "brson._speedups._rawc: no fallback for %s",
                     fallback_names[which]);
        return NULL;
    }
    deferred++;
    return PyObject_Vectorcall(fallback[which], args, (size_t)nargs, NULL);
}

/* raw.index: the dict of key -> (type, start, vstart, vend), or UNSURE. */
static PyObject *do_index(const Span *s) {
    const unsigned char *b = s->b;
    Py_ssize_t pos = s->start + 4, last = s->end - 1;
    if (pos > last)
        return UNSURE; /* Python: "elements overrun the document end" */
    PyObject *out = PyDict_New();
    if (out == NULL)
        return NULL;
    while (pos < last) {
        int etype = b[pos];
        Py_ssize_t vstart, vend = element_end(b, pos, last, &vstart);
        if (vend < 0)
            goto unsure;
        /* Strict UTF-8, as bytes.decode(): the same codec; a failure is Python's to report. */
        PyObject *key = decode_key(b + pos + 1, vstart - pos - 2);
        if (key == NULL) {
            PyErr_Clear();
            goto unsure;
        }
        PyObject *elem = element(etype, pos, vstart, vend);
        if (elem == NULL) {
            Py_DECREF(key);
            Py_DECREF(out);
            return NULL;
        }
        Py_ssize_t before = PyDict_GET_SIZE(out);
        int rc = PyDict_SetItem(out, key, elem);
        Py_DECREF(key);
        Py_DECREF(elem);
        if (rc < 0) {
            Py_DECREF(out);
            return NULL;
        }
        if (PyDict_GET_SIZE(out) == before)
            goto unsure; /* a duplicate key */
        pos = vend;
    }
    if (pos != last)
        goto unsure;
    return out;
unsure:
    Py_DECREF(out);
    return UNSURE;
}

/* raw.member_data: the Data element tuple, Py_None (definitively not that layout), or NULL. */
static PyObject *do_member_data(const Span *s) {
    const unsigned char *b = s->b;
    Py_ssize_t start = s->start, end = s->end;
    if (end - start > 21 && memcmp(b + start + 4, "\x02ID\x00", 4) == 0) {
        Py_ssize_t n = i32(b + start + 8);
        Py_ssize_t data_at = start + 12 + n;
        if (n > 0 && data_at + 6 <= end && b[data_at - 1] == 0) {
            if (memcmp(b + data_at + 1, "Data\x00", 5) != 0)
                Py_RETURN_NONE;
            int etype = b[data_at];
            Py_ssize_t vstart = data_at + 6, vend = -1;
            if (etype == 0x03 || etype == 0x04) {
                if (vstart + 4 <= end)
                    vend = vstart + i32(b + vstart);
            } else if (etype == 0x02) {
                if (vstart + 4 <= end)
                    vend = vstart + 4 + i32(b + vstart);
            } else if (fixed_size(etype) >= 0) {
                vend = vstart + fixed_size(etype);
            }
            if (vend == end - 1 && vend > vstart - (etype == 0x0A))
                return element(etype, data_at, vstart, vend);
        }
    }
    Py_RETURN_NONE;
}

static PyObject *c_index(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Span s;
    if (!span_of(args, nargs, 3, &s))
        return defer(FB_INDEX, args, nargs);
    PyObject *r = do_index(&s);
    return r == UNSURE ? defer(FB_INDEX, args, nargs) : r;
}

static PyObject *c_member_data(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Span s;
    if (!span_of(args, nargs, 3, &s))
        return defer(FB_MEMBER_DATA, args, nargs);
    return do_member_data(&s);
}

static PyObject *c_member_index(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Span s;
    if (!span_of(args, nargs, 3, &s))
        return defer(FB_MEMBER_INDEX, args, nargs);
    PyObject *data = do_member_data(&s);
    if (data == NULL)
        return NULL;
    if (data == Py_None) {
        Py_DECREF(data);
        PyObject *r = do_index(&s);
        return r == UNSURE ? defer(FB_MEMBER_INDEX, args, nargs) : r;
    }
    PyObject *out = NULL, *id = NULL;
    id = element(0x02, s.start + 4, s.start + 8,
                 PyLong_AsSsize_t(PyTuple_GET_ITEM(data, 1)));
    if (id == NULL)
        goto done;
    out = PyDict_New();
    if (out == NULL)
        goto done;
    if (PyDict_SetItem(out, str_ID, id) < 0 || PyDict_SetItem(out, str_Data, data) < 0)
        Py_CLEAR(out);
done:
    Py_XDECREF(id);
    Py_DECREF(data);
    return out;
}

static PyObject *c_array_items(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Span s;
    if (!span_of(args, nargs, 3, &s))
        return defer(FB_ARRAY_ITEMS, args, nargs);
    const unsigned char *b = s.b;
    Py_ssize_t pos = s.start + 4, last = s.end - 1;
    if (pos > last)
        return defer(FB_ARRAY_ITEMS, args, nargs);
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    while (pos < last) {
        Py_ssize_t vstart, vend;
        int item = doc_item(b, pos, last, &vstart, &vend);
        if (item < 0)
            goto unsure;
        if (item == 0) {
            /* Not an array of documents: the values of the full index. */
            Py_DECREF(out);
            PyObject *idx = do_index(&s);
            if (idx == NULL)
                return NULL;
            if (idx == UNSURE)
                return defer(FB_ARRAY_ITEMS, args, nargs);
            PyObject *values = PyDict_Values(idx);
            Py_DECREF(idx);
            return values;
        }
        PyObject *elem = element(0x03, pos, vstart, vend);
        if (elem == NULL || PyList_Append(out, elem) < 0) {
            Py_XDECREF(elem);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(elem);
        pos = vend;
    }
    if (pos != last)
        goto unsure;
    return out;
unsure:
    Py_DECREF(out);
    return defer(FB_ARRAY_ITEMS, args, nargs);
}

static PyObject *c_component_index(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Span s;
    if (!span_of(args, nargs, 3, &s))
        return defer(FB_COMPONENT_INDEX, args, nargs);
    const unsigned char *b = s.b;
    Py_ssize_t start = s.start, end = s.end;
    if (end - start > 25 && b[start + 4] == 0x10 && memcmp(b + start + 5, "Type\x00", 5) == 0 &&
        b[start + 14] == 0x03 && memcmp(b + start + 15, "Data\x00", 5) == 0) {
        Py_ssize_t vstart = start + 20, vend = doc_end(b, vstart, end - 1);
        if (vend == end - 1) {
            PyObject *out = NULL;
            PyObject *type = element(0x10, start + 4, start + 10, start + 14);
            PyObject *data = element(0x03, start + 14, vstart, vend);
            if (type != NULL && data != NULL && (out = PyDict_New()) != NULL &&
                (PyDict_SetItem(out, str_Type, type) < 0 || PyDict_SetItem(out, str_Data, data) < 0))
                Py_CLEAR(out);
            Py_XDECREF(type);
            Py_XDECREF(data);
            return out;
        }
    }
    PyObject *r = do_index(&s);
    return r == UNSURE ? defer(FB_COMPONENT_INDEX, args, nargs) : r;
}

/* raw.index_as(buf, start, end, layout): the layout is raw.layout_of's tuple of
 * (header bytes, key str, type int); any other shape of it goes to Python. */
static PyObject *c_index_as(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Span s;
    if (!span_of(args, nargs, 4, &s) || !PyTuple_CheckExact(args[3]))
        return defer(FB_INDEX_AS, args, nargs);
    PyObject *layout = args[3];
    Py_ssize_t count = PyTuple_GET_SIZE(layout);
    /* Check the layout's shape first, so an answer is never half made when it is wrong. */
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyTuple_GET_ITEM(layout, i);
        if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 3 ||
            !PyBytes_CheckExact(PyTuple_GET_ITEM(item, 0)) ||
            !PyUnicode_CheckExact(PyTuple_GET_ITEM(item, 1)) ||
            !PyLong_CheckExact(PyTuple_GET_ITEM(item, 2)))
            return defer(FB_INDEX_AS, args, nargs);
    }
    const unsigned char *b = s.b;
    Py_ssize_t pos = s.start + 4, last = s.end - 1;
    PyObject *out = PyDict_New();
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyTuple_GET_ITEM(layout, i);
        PyObject *header = PyTuple_GET_ITEM(item, 0);
        Py_ssize_t hlen = PyBytes_GET_SIZE(header);
        /* buf.startswith(header, pos): against the whole buffer, not [start, end). */
        if (pos > s.len || hlen > s.len - pos ||
            memcmp(b + pos, PyBytes_AS_STRING(header), (size_t)hlen) != 0)
            goto mismatch;
        int overflow = 0;
        long etype = PyLong_AsLongAndOverflow(PyTuple_GET_ITEM(item, 2), &overflow);
        if (overflow || etype < 0 || etype > 0xFF)
            goto mismatch; /* in no type set: Python returns None */
        /* The types of a layout only (raw.layout_of's). */
        if (etype != 0x02 && etype != 0x03 && etype != 0x04 && fixed_size((int)etype) < 0)
            goto mismatch;
        Py_ssize_t vstart = pos + hlen, vend = value_end(b, (int)etype, vstart, last);
        if (vend < 0)
            goto mismatch;
        PyObject *elem = element(etype, pos, vstart, vend);
        if (elem == NULL || PyDict_SetItem(out, PyTuple_GET_ITEM(item, 1), elem) < 0) {
            Py_XDECREF(elem);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(elem);
        pos = vend;
    }
    if (pos == last)
        return out;
mismatch:
    Py_DECREF(out);
    Py_RETURN_NONE;
}

static PyObject *c_set_fallbacks(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != FB_COUNT) {
        PyErr_Format(PyExc_TypeError, "set_fallbacks takes %d functions", FB_COUNT);
        return NULL;
    }
    for (int i = 0; i < FB_COUNT; i++) {
        if (!PyCallable_Check(args[i])) {
            PyErr_Format(PyExc_TypeError, "fallback for %s is not callable", fallback_names[i]);
            return NULL;
        }
    }
    for (int i = 0; i < FB_COUNT; i++) {
        Py_INCREF(args[i]);
        Py_XSETREF(fallback[i], args[i]);
    }
    Py_RETURN_NONE;
}

static PyObject *c_deferred(PyObject *self, PyObject *unused) {
    return PyLong_FromUnsignedLongLong(deferred);
}

/* framing.first_overrun_py in C, the same answer for every buffer: the offset of the first
 * element at any depth not inside the document holding it (or 0 when the buffer is not one
 * document), -1 when all are framed, -2 past max_depth levels, -3 out of memory (MemoryError
 * set). The enclosing documents' terminators are kept on a heap stack, not the C stack, so
 * hostile nesting costs memory in proportion to its bytes. */
static Py_ssize_t overrun(const unsigned char *b, Py_ssize_t size, Py_ssize_t max_depth,
                          Py_ssize_t **stack, Py_ssize_t *cap) {
    if (!doc_spans(b, 0, size))
        return 0;
    Py_ssize_t depth = 0, pos = 4, last = size - 1;
    for (;;) {
        if (pos == last) {
            if (depth == 0)
                return -1;
            pos = last + 1;
            last = (*stack)[--depth];
            continue;
        }
        int etype = b[pos];
        Py_ssize_t vstart, vend = element_end(b, pos, last, &vstart);
        if (vend < 0)
            return pos;
        if (etype == 0x03 || etype == 0x04 || etype == 0x0F) {
            Py_ssize_t inner = vstart;
            if (etype == 0x0F) { /* code with scope: total size, string, scope document */
                Py_ssize_t text = vend - vstart >= 14 ? i32(b + vstart + 4) : 0;
                inner = vstart + 8 + text;
                if (text < 1 || inner + 5 > vend || i32(b + inner) != vend - inner ||
                    b[vend - 1] != 0)
                    return pos;
            }
            if (depth >= max_depth)
                return -2; /* framing.TOO_DEEP */
            if (grow_array((void **)stack, cap, depth + 1, sizeof **stack) < 0)
                return -3;
            (*stack)[depth++] = last;
            pos = inner + 4;
            last = vend - 1;
            continue;
        }
        /* stricter than value_end where the decoder reads more: the strings it decodes hold
         * at least their NUL, old binary (subtype 2) its inner length */
        if ((etype == 0x0C || etype == 0x0D || etype == 0x0E) && i32(b + vstart) < 1)
            return pos;
        if (etype == 0x05 && b[vstart + 4] == 2 && i32(b + vstart) < 4)
            return pos;
        pos = vend;
    }
}

static PyObject *c_first_overrun(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "first_overrun(buf, max_depth)");
        return NULL;
    }
    Py_ssize_t max_depth = PyLong_AsSsize_t(args[1]);
    if (max_depth == -1 && PyErr_Occurred())
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_ssize_t *stack = NULL, cap = 0;
    Py_ssize_t found = overrun(view.buf, view.len, max_depth, &stack, &cap);
    PyMem_Free(stack);
    PyBuffer_Release(&view);
    return found == -3 ? NULL : PyLong_FromSsize_t(found);
}

/* -- extract's holder slot (brson/ops/extractbytes.py holder_bytes) ----------------------- */
/* A writer, not a reader: it has no fallback registered; for any argument it is not sure of it
 * returns None and extractbytes.py writes with holder_bytes (which raises what it raises). */

/* put_i32 of n at p, and the place after it; n <= INT32_MAX (the caller checked). */
static inline unsigned char *put32(unsigned char *p, Py_ssize_t n) {
    put_i32(p, (int32_t)n);
    return p + 4;
}

static inline unsigned char *put_bytes(unsigned char *p, PyObject *o) {
    Py_ssize_t n = PyBytes_GET_SIZE(o);
    memcpy(p, PyBytes_AS_STRING(o), (size_t)n);
    return p + n;
}

/* An array item's element header ("\x03", the index in decimal, NUL) at p. */
static unsigned char *put_item(unsigned char *p, Py_ssize_t index) {
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%zd", index);
    *p++ = 0x03;
    memcpy(p, digits, (size_t)n);
    p += n;
    *p++ = 0;
    return p;
}

static inline Py_ssize_t item_size(Py_ssize_t index) {
    Py_ssize_t n = 3;
    for (; index >= 10; index /= 10)
        n++;
    return n;
}

/* Every argument as holder_bytes takes it, read once; 0 when one is not (then Python). */
typedef struct {
    PyObject *prefix, *suffix, *fixed, *parts[6], *ids, *names, *counts, *comps;
    Py_ssize_t count, name_at, place, width, kids, *held, *lens;
} Holder;

static int holder_args(PyObject *const *args, Py_ssize_t nargs, Holder *h) {
    if (nargs != 10 || !PyBytes_CheckExact(args[0]) || !PyBytes_CheckExact(args[1]) ||
        !PyTuple_CheckExact(args[2]) || !PyLong_CheckExact(args[3]) ||
        !PyLong_CheckExact(args[4]) || !PyTuple_CheckExact(args[5]) ||
        PyTuple_GET_SIZE(args[5]) != 6 || !PyBytes_CheckExact(args[6]) ||
        !PyList_CheckExact(args[7]) || !PyList_CheckExact(args[8]) ||
        !PyList_CheckExact(args[9]) || PyBytes_GET_SIZE(args[0]) < 4)
        return 0;
    h->prefix = args[0], h->suffix = args[1], h->fixed = args[2], h->ids = args[6];
    h->names = args[7], h->counts = args[8], h->comps = args[9];
    h->count = PyTuple_GET_SIZE(h->fixed) - 1;
    h->name_at = PyLong_AsSsize_t(args[3]);
    h->place = PyLong_AsSsize_t(args[4]);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    h->kids = PyList_GET_SIZE(h->names);
    if (h->count < 1 || h->place < 0 || h->place >= h->count || h->name_at < -1 ||
        h->name_at >= h->count || h->name_at == h->place || PyList_GET_SIZE(h->counts) != h->kids)
        return 0;
    for (Py_ssize_t k = 0; k <= h->count; k++)
        if (!PyBytes_CheckExact(PyTuple_GET_ITEM(h->fixed, k)))
            return 0;
    for (int k = 0; k < 6; k++) {
        h->parts[k] = PyTuple_GET_ITEM(args[5], k);
        if (!PyBytes_CheckExact(h->parts[k]))
            return 0;
    }
    Py_ssize_t all = PyBytes_GET_SIZE(h->ids);
    h->width = h->kids ? all / (h->count * h->kids) : 0;
    return h->width * h->count * h->kids == all && (h->kids == 0 || h->width > 0);
}

/* The components' lengths (h->lens) and each child's count (h->held): 0 when a count or a
 * component is not what holder_bytes takes (bytes, a contiguous memoryview), -1 on error. */
static int holder_pieces(Holder *h) {
    Py_ssize_t total = PyList_GET_SIZE(h->comps), used = 0;
    h->held = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(h->kids + 1));
    h->lens = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(total + 1));
    if (h->held == NULL || h->lens == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < h->kids; k++) {
        PyObject *n = PyList_GET_ITEM(h->counts, k), *name = PyList_GET_ITEM(h->names, k);
        if (!PyLong_CheckExact(n) || !PyBytes_CheckExact(name))
            return 0;
        h->held[k] = PyLong_AsSsize_t(n);
        if (h->held[k] == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (h->held[k] < 0 || h->held[k] > total - used)
            return 0;
        used += h->held[k];
    }
    if (used != total)
        return 0;
    for (Py_ssize_t j = 0; j < total; j++) {
        PyObject *o = PyList_GET_ITEM(h->comps, j);
        if (PyBytes_CheckExact(o)) {
            h->lens[j] = PyBytes_GET_SIZE(o);
            continue;
        }
        Py_buffer view;
        if (!Py_IS_TYPE(o, &PyMemoryView_Type) || PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) < 0) {
            PyErr_Clear();
            return 0;
        }
        h->lens[j] = view.len;
        PyBuffer_Release(&view);
    }
    return 1;
}

#define FITS(n) ((n) <= INT32_MAX)

/* The size of the holder holder_bytes writes, or 0 when a length would not fit its int32
 * (then Python, which refuses it). */
static Py_ssize_t holder_size(const Holder *h) {
    Py_ssize_t fixed = 0, w = h->width, comp = 0;
    for (Py_ssize_t k = 0; k <= h->count; k++)
        fixed += PyBytes_GET_SIZE(PyTuple_GET_ITEM(h->fixed, k));
    Py_ssize_t head = PyBytes_GET_SIZE(h->parts[1]), tail = PyBytes_GET_SIZE(h->parts[2]);
    Py_ssize_t array = PyBytes_GET_SIZE(h->parts[5]);
    /* The Components member but its array's items; a child's row but its name's text. */
    Py_ssize_t member = PyBytes_GET_SIZE(h->parts[4]) + 4 + head + w + tail + array + 4;
    Py_ssize_t row = fixed + (h->count - 1 - (h->name_at >= 0)) * w + member;
    Py_ssize_t size = 0;
    for (Py_ssize_t k = 0; k < h->kids; k++) {
        Py_ssize_t listed = 5;
        for (Py_ssize_t j = 0; j < h->held[k]; j++)
            listed += item_size(j) + h->lens[comp++];
        Py_ssize_t length = row + listed + 2;
        if (h->name_at >= 0) {
            Py_ssize_t text = PyBytes_GET_SIZE(PyList_GET_ITEM(h->names, k)) + 1;
            Py_ssize_t body = head + w + tail + PyBytes_GET_SIZE(h->parts[3]) + 4 + text;
            if (!FITS(body + 5))
                return 0;
            length += PyBytes_GET_SIZE(h->parts[0]) + 4 + body + 1;
        }
        if (!FITS(length) || !FITS(listed + w + 4 + head + tail + array + 1))
            return 0;
        size += item_size(k) + length;
    }
    size += 5;
    Py_ssize_t total = PyBytes_GET_SIZE(h->prefix) + size + PyBytes_GET_SIZE(h->suffix);
    return FITS(size) && FITS(total) ? total : 0;
}

/* The holder written into p (holder_size bytes, the arguments checked); -1 when a component
 * changed under it (then Python). */
static int holder_write(const Holder *h, unsigned char *p, Py_ssize_t total) {
    unsigned char *start = p;
    Py_ssize_t w = h->width, comp = 0;
    const char *ids = PyBytes_AS_STRING(h->ids);
    Py_ssize_t head = PyBytes_GET_SIZE(h->parts[1]), tail = PyBytes_GET_SIZE(h->parts[2]);
    Py_ssize_t frame = 4 + head + tail + PyBytes_GET_SIZE(h->parts[5]) + 1;
    p = put_bytes(p, h->prefix);
    put32(start, total); /* the holder's length, which prefix gave without its children */
    unsigned char *children = p;
    p += 4;
    for (Py_ssize_t k = 0; k < h->kids; k++) {
        p = put_item(p, k);
        unsigned char *kid = p;
        p += 4;
        for (Py_ssize_t at = 0; at < h->count; at++, ids += w) {
            p = put_bytes(p, PyTuple_GET_ITEM(h->fixed, at));
            if (at == h->name_at) {
                PyObject *name = PyList_GET_ITEM(h->names, k);
                Py_ssize_t text = PyBytes_GET_SIZE(name);
                p = put_bytes(p, h->parts[0]);
                p = put32(p, head + w + tail + PyBytes_GET_SIZE(h->parts[3]) + 4 + text + 1 + 5);
                p = put_bytes(p, h->parts[1]);
                memcpy(p, ids, (size_t)w);
                p = put_bytes(p + w, h->parts[2]);
                p = put32(put_bytes(p, h->parts[3]), text + 1);
                p = put_bytes(p, name);
                *p++ = 0;
                *p++ = 0;
            } else if (at == h->place) {
                p = put_bytes(p, h->parts[4]);
                unsigned char *member = p;
                p = put_bytes(p + 4, h->parts[1]);
                memcpy(p, ids, (size_t)w);
                p = put_bytes(put_bytes(p + w, h->parts[2]), h->parts[5]);
                unsigned char *array = p;
                p += 4;
                for (Py_ssize_t j = 0; j < h->held[k]; j++, comp++) {
                    p = put_item(p, j);
                    PyObject *o = PyList_GET_ITEM(h->comps, comp);
                    Py_buffer view;
                    if (PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) < 0) {
                        PyErr_Clear();
                        return -1;
                    }
                    int same = view.len == h->lens[comp];
                    if (same)
                        memcpy(p, view.buf, (size_t)view.len);
                    PyBuffer_Release(&view);
                    if (!same)
                        return -1;
                    p += h->lens[comp];
                }
                *p++ = 0;
                put32(array, p - array);
                put32(member, frame + w + (p - array));
                *p++ = 0;
            } else {
                memcpy(p, ids, (size_t)w);
                p += w;
            }
        }
        p = put_bytes(p, PyTuple_GET_ITEM(h->fixed, h->count));
        *p++ = 0;
        put32(kid, p - kid);
    }
    *p++ = 0;
    put32(children, p - children);
    p = put_bytes(p, h->suffix);
    return p - start == total ? 0 : -1;
}

/* holder_bytes(prefix, suffix, fixed, name_at, place, parts, ids, names, counts, components)
 * in one buffer sized first; None when unsure of an argument (then Python). */
static PyObject *c_holder(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Holder h = {0};
    PyObject *out = NULL;
    if (!holder_args(args, nargs, &h))
        Py_RETURN_NONE;
    int ok = holder_pieces(&h);
    Py_ssize_t total = ok > 0 ? holder_size(&h) : 0;
    if (ok >= 0 && total > 0) {
        out = PyBytes_FromStringAndSize(NULL, total);
        if (out != NULL &&
            holder_write(&h, (unsigned char *)PyBytes_AS_STRING(out), total) < 0)
            Py_SETREF(out, Py_NewRef(Py_None));
    } else if (ok >= 0) {
        out = Py_NewRef(Py_None);
    }
    PyMem_Free(h.held);
    PyMem_Free(h.lens);
    return out;
}

/* -- component Type indices in documents where they lie (raw.py type_scan_py) ------------ */
/* Like holder: no fallback; None for anything it is not sure of (then Python). */

static const unsigned char TYPE_KEY[5] = {'T', 'y', 'p', 'e', 0x00};
static const unsigned char DATA_DOC[6] = {0x03, 'D', 'a', 't', 'a', 0x00};

/* The matches _TYPE_INDEX_OR_NAME.findall(buf, start + 1, end) finds, in its order of trying:
 * the leftmost "Type\0" from q that fits, its look-behind byte choosing the branch; a branch
 * that fails moves one byte on, a match past its end. Each index into found; *named set at a
 * name branch or a wide index. 0, or -1 with a Python error set. */
static int type_scan_span(const unsigned char *b, Py_ssize_t start, Py_ssize_t end,
                          PyObject *found, int *named) {
    Py_ssize_t q = start + 1;
    while (end - q >= 5) {
        const unsigned char *t = memchr(b + q, 'T', (size_t)(end - q - 4));
        if (t == NULL)
            return 0;
        Py_ssize_t m = t - b;
        if (memcmp(t, TYPE_KEY, 5) != 0) {
            q = m + 1;
            continue;
        }
        unsigned char kind = b[m - 1]; /* m > start >= 0 */
        Py_ssize_t width = kind == 0x10 ? 4 : kind == 0x12 ? 8 : 0;
        if (width && end - m >= 11 + width && memcmp(t + 5 + width, DATA_DOC, 6) == 0) {
            PyObject *value = width == 4 ? PyLong_FromLong(i32(t + 5))
                                         : PyLong_FromLongLong(i64(t + 5));
            if (value == NULL || PySet_Add(found, value) < 0) {
                Py_XDECREF(value);
                return -1;
            }
            Py_DECREF(value);
            *named |= width == 8;
            q = m + 11 + width;
        } else if (kind == 0x02) {
            *named = 1;
            q = m + 5;
        } else {
            q = m + 1;
        }
    }
    return 0;
}

/* type_scan(buf, spans): raw.type_scan_py in C; None when unsure (spans not a list of
 * (start, end) int pairs within the buffer). */
static PyObject *c_type_scan(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_CheckExact(args[1]))
        Py_RETURN_NONE;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *spans = args[1], *found = PySet_New(NULL), *out = NULL;
    int named = 0, sure = found != NULL;
    for (Py_ssize_t i = 0; sure && i < PyList_GET_SIZE(spans); i++) {
        PyObject *span = PyList_GET_ITEM(spans, i);
        if (!PyTuple_CheckExact(span) || PyTuple_GET_SIZE(span) != 2 ||
            !PyLong_CheckExact(PyTuple_GET_ITEM(span, 0)) ||
            !PyLong_CheckExact(PyTuple_GET_ITEM(span, 1))) {
            sure = 0;
            break;
        }
        Py_ssize_t start = PyLong_AsSsize_t(PyTuple_GET_ITEM(span, 0));
        Py_ssize_t end = PyLong_AsSsize_t(PyTuple_GET_ITEM(span, 1));
        if (PyErr_Occurred()) {
            PyErr_Clear();
            sure = 0;
        } else if (start < 0 || start > end || end > view.len) {
            sure = 0;
        } else if (type_scan_span(view.buf, start, end, found, &named) < 0) {
            Py_CLEAR(found);
        }
        sure = sure && found != NULL;
    }
    PyBuffer_Release(&view);
    if (found == NULL)
        return NULL;
    if (sure)
        out = Py_BuildValue("(OO)", found, named ? Py_True : Py_False);
    else
        out = Py_NewRef(Py_None);
    Py_DECREF(found);
    return out;
}

/* A METH_FASTCALL entry for c_<name>. */
#define FAST(name, doc) {#name, (PyCFunction)(void (*)(void))c_##name, METH_FASTCALL, doc}

static PyMethodDef methods[] = {
    FAST(index, "index(buf, start, end): raw.index in C."),
    FAST(index_as, "index_as(buf, start, end, layout): raw.index_as in C."),
    FAST(member_data, "member_data(buf, start, end): raw.member_data in C."),
    FAST(member_index, "member_index(buf, start, end): raw.member_index in C."),
    FAST(array_items, "array_items(buf, start, end): raw.array_items in C."),
    FAST(component_index, "component_index(buf, start, end): raw.component_index in C."),
    FAST(set_fallbacks, "Register the pure-Python functions that answer what C does not."),
    FAST(holder, "holder(prefix, suffix, fixed, name_at, place, parts, ids, names, counts, "
                 "components): extractbytes.holder_bytes in C."),
    FAST(type_scan, "type_scan(buf, spans): raw.type_scan_py in C."),
    FAST(first_overrun, "first_overrun(buf, max_depth): framing.first_overrun_py in C."),
    {"deferred", c_deferred, METH_NOARGS,
     "How many calls C handed to the pure-Python functions so far."},
    {NULL, NULL, 0, NULL},
};

BRSON_MODULE(_rawc, "raw.py's byte loops in C (see brson/document/raw.py).");

PyMODINIT_FUNC PyInit__rawc(void) {
    str_ID = PyUnicode_InternFromString("ID");
    str_Data = PyUnicode_InternFromString("Data");
    str_Type = PyUnicode_InternFromString("Type");
    if (str_ID == NULL || str_Data == NULL || str_Type == NULL)
        return NULL;
    return PyModule_Create(&module);
}
