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
