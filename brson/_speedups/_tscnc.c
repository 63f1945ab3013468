/* Godot 3 and 4 metadata text straight from BSON bytes: what the TSCN writer
 * (tscn._Writer.literal; for Godot 4 its fast path tscn._bson_container4) writes for the
 * decoded value, without decoding it into Python objects and encoding those again.  The two
 * versions' literals of BSON data differ only in spacing (Out.godot3), so one writer serves
 * both.
 *
 * The contract (as brson/_speedups/_rawc.c's): for an input the Python path writes through
 * its fast path, the C function returns the same text; for anything it is not sure of --
 * malformed or truncated BSON, keys or strings that are not UTF-8, duplicate keys (a decoded
 * dict keeps the last value at the first key's place), BSON types the writer renders another
 * way (binary, ObjectId, datetime, regex, code, symbol, undefined, Decimal128, timestamp,
 * min/max key), nan/inf, DEL, keys starting with '$' (pymongo's DBRef), deep nesting -- it
 * returns None and the caller runs the Python path, so errors have one source.  Every read is
 * checked against [start, end) and the buffer's length; positions are Py_ssize_t.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "_bsonwire.h"
#include "_grow.h"
#include <string.h>
#include "_shortfloat.h" /* shortest_repr: repr(x) without dtoa's bignums */

#define MAX_DEPTH 100
#define MAX_KEYS 64 /* duplicate check by pairwise compare; more keys: not sure */

/* The text written (_grow.h's Buf) and the format it is written in. */
typedef struct {
    Buf b;
    int godot3; /* Godot 3's spacing: "[ a, b ]", "[  ]", "{\n}" (tscn._Writer.literal) */
} Out;

/* 0, or -1 with MemoryError set. */
static inline int out_reserve(Out *o, Py_ssize_t extra) { return buf_reserve(&o->b, extra); }

static inline int out_put(Out *o, const char *s, Py_ssize_t n) { return put(&o->b, s, n); }

/* Results: 0 written, 1 not sure (the caller returns None), -1 Python error (memory). */
#define UNSURE 1

/* The element at pos of a document whose terminator is at stop: its key is the klen bytes
 * after the type byte, its value [vstart, vend).  0, or UNSURE for a type these writers do not
 * render or framing raw.index would refuse (checked for the values a writer skips too). */
static int element_at(const unsigned char *b, Py_ssize_t pos, Py_ssize_t stop,
                      Py_ssize_t *klen, Py_ssize_t *vstart, Py_ssize_t *vend) {
    int etype = b[pos];
    switch (etype) {
    case 0x01: case 0x02: case 0x03: case 0x04: case 0x08: case 0x0A: case 0x10: case 0x12:
        break;
    default:
        return UNSURE;
    }
    Py_ssize_t vs, ve = element_end(b, pos, stop, &vs);
    if (ve < 0)
        return UNSURE;
    *klen = vs - pos - 2;
    *vstart = vs;
    *vend = ve;
    return 0;
}

/* A JSON string body as json's C encoder writes it with ensure_ascii=False; DEL: not sure
 * (the TSCN writer escapes it, JSON does not). UTF-8 validity is checked once at the end. */
static int put_string(Out *o, const unsigned char *s, Py_ssize_t n) {
    if (out_reserve(o, n * 6 + 2) < 0)
        return -1;
    char *w = json_quote(o->b.p + o->b.len, s, n, 1);
    if (w == NULL)
        return UNSURE;
    o->b.len = w - o->b.p;
    return 0;
}

/* repr(x), and Godot's 18-digit rule of tscn._float_text (the same in 3 and 4 for finite x): repr's only form with
 * more than 18 mantissa digits is 0.<zeros><17 digits>, written as d.ddde-N instead. */
static int put_double(Out *o, double x) {
    if (!isfinite(x))
        return UNSURE;
    if (x > -1e16 && x < 1e16 && x == (double)(long long)x) {
        /* repr of an integral double under 1e16: its digits and ".0" (the common case) */
        char buf[32];
        int m = x == 0 ? snprintf(buf, sizeof buf, signbit(x) ? "-0.0" : "0.0")
                       : snprintf(buf, sizeof buf, "%lld.0", (long long)x);
        return out_put(o, buf, m);
    }
    char fast[32];
    char *text = NULL;
    if (shortest_repr(x, fast) < 0 &&
        (text = PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL)) == NULL)
        return -1;
    const char *t = text != NULL ? text : fast;
    int neg = t[0] == '-';
    const char *body = t + neg;
    Py_ssize_t n = (Py_ssize_t)strlen(t);
    int rc = 0;
    Py_ssize_t digits = 0;
    int has_e = 0;
    for (const char *p = body; *p && *p != 'e'; p++)
        digits += (*p >= '0' && *p <= '9');
    has_e = strchr(body, 'e') != NULL;
    if (digits <= 18) {
        rc = out_put(o, t, n);
    } else if (!has_e && body[0] == '0' && body[1] == '.') {
        const char *frac = body + 2;
        Py_ssize_t flen = (Py_ssize_t)strlen(frac), zeros = 0;
        while (frac[zeros] == '0')
            zeros++;
        const char *sig = frac + zeros;
        Py_ssize_t slen = flen - zeros;
        if (slen < 1) {
            rc = UNSURE;
        } else {
            char buf[64];
            Py_ssize_t exponent = slen - flen - 1;
            int m;
            if (slen > 1)
                m = snprintf(buf, sizeof buf, "%s%c.%.*se%zd", neg ? "-" : "", sig[0],
                             (int)(slen - 1), sig + 1, exponent);
            else
                m = snprintf(buf, sizeof buf, "%s%c.0e%zd", neg ? "-" : "", sig[0], exponent);
            rc = (m <= 0 || m >= (int)sizeof buf) ? UNSURE : out_put(o, buf, m);
        }
    } else {
        rc = UNSURE;
    }
    PyMem_Free(text);
    return rc;
}

static int put_value(Out *o, const unsigned char *b, int etype, Py_ssize_t start, Py_ssize_t end,
                     int depth, const char *skip, const char *skip_inner);

/* The elements of the document or array at [start, end) (its int32 size first). ``skip``: a
 * top-level key left out; ``skip_inner``: left out of that document's value named
 * "Components" (the slot's metadata form). */
static int put_container(Out *o, const unsigned char *b, Py_ssize_t start, Py_ssize_t end,
                         int array, int depth, const char *skip, const char *skip_inner) {
    if (depth > MAX_DEPTH || !doc_spans(b, start, end))
        return UNSURE;
    const unsigned char *keys[MAX_KEYS];
    Py_ssize_t key_lens[MAX_KEYS];
    int nkeys = 0, count = 0;
    Py_ssize_t pos = start + 4, stop = end - 1;
    const char *open = array ? (o->godot3 ? "[ " : "[") : "{";
    if (out_put(o, open, (Py_ssize_t)strlen(open)) < 0)
        return -1;
    while (pos < stop) {
        int etype = b[pos];
        Py_ssize_t kstart = pos + 1, klen, vstart, vend;
        if (element_at(b, pos, stop, &klen, &vstart, &vend) != 0)
            return UNSURE;
        pos = vend;
        const unsigned char *key = b + kstart;
        if (!array) {
            if (klen > 0 && key[0] == '$')
                return UNSURE;
            for (int j = 0; j < nkeys; j++)
                if (key_lens[j] == klen && memcmp(keys[j], key, (size_t)klen) == 0)
                    return UNSURE;
            if (nkeys == MAX_KEYS)
                return UNSURE;
            keys[nkeys] = key;
            key_lens[nkeys++] = klen;
            if (skip != NULL && (Py_ssize_t)strlen(skip) == klen &&
                memcmp(skip, key, (size_t)klen) == 0)
                continue;
        }
        if (count++ > 0 && out_put(o, array ? ", " : ",\n", 2) < 0)
            return -1;
        if (!array) {
            if (count == 1 && out_put(o, "\n", 1) < 0)
                return -1;
            int rc = put_string(o, key, klen);
            if (rc != 0)
                return rc;
            if (out_put(o, ": ", 2) < 0)
                return -1;
        }
        const char *inner = NULL;
        if (!array && skip_inner != NULL && etype == 0x03 && klen == 10 &&
            memcmp(key, "Components", 10) == 0)
            inner = skip_inner;
        int rc = put_value(o, b, etype, vstart, vend, depth + 1, inner, NULL);
        if (rc != 0)
            return rc;
    }
    if (pos != stop)
        return UNSURE;
    if (array)
        return o->godot3 ? out_put(o, " ]", 2) : out_put(o, "]", 1);
    return count || o->godot3 ? out_put(o, "\n}", 2) : out_put(o, "}", 1);
}

static int put_value(Out *o, const unsigned char *b, int etype, Py_ssize_t start, Py_ssize_t end,
                     int depth, const char *skip, const char *skip_inner) {
    char num[32];
    int m;
    switch (etype) {
    case 0x01: {
        if (end - start != 8)
            return UNSURE;
        return put_double(o, f64(b + start));
    }
    case 0x02: {
        if (!string_spans(b, start, end))
            return UNSURE;
        return put_string(o, b + start + 4, end - start - 5);
    }
    case 0x03: return put_container(o, b, start, end, 0, depth, skip, skip_inner);
    case 0x04: return put_container(o, b, start, end, 1, depth, NULL, NULL);
    case 0x08:
        if (end - start != 1 || b[start] > 1)
            return UNSURE;
        return b[start] ? out_put(o, "true", 4) : out_put(o, "false", 5);
    case 0x0A:
        if (end != start)
            return UNSURE;
        return out_put(o, "null", 4);
    case 0x10:
        if (end - start != 4)
            return UNSURE;
        m = snprintf(num, sizeof num, "%ld", (long)(int32_t)i32(b + start));
        return out_put(o, num, m);
    case 0x12:
        if (end - start != 8)
            return UNSURE;
        m = snprintf(num, sizeof num, "%lld", (long long)i64(b + start));
        return out_put(o, num, m);
    default:
        return UNSURE;
    }
}

/* The text as str, or None (not UTF-8, or not sure); NULL with an error set. */
static PyObject *finish(Out *o, int rc) {
    PyObject *result = NULL;
    if (rc == 0) {
        result = PyUnicode_DecodeUTF8(o->b.p, o->b.len, NULL);
        if (result == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
            PyErr_Clear();
            result = Py_NewRef(Py_None);
        }
    } else if (rc == UNSURE) {
        result = Py_NewRef(Py_None);
    } else if (!PyErr_Occurred()) {
        PyErr_NoMemory();
    }
    PyMem_Free(o->b.p);
    return result;
}

static int span_ok(Py_buffer *view, Py_ssize_t start, Py_ssize_t end) {
    return 0 <= start && start <= end && end <= view->len;
}

/* The engine version argument: 3 or 4, else ValueError. */
static int version(int godot, Out *o) {
    if (godot != 3 && godot != 4) {
        PyErr_Format(PyExc_ValueError, "godot must be 3 or 4, not %d", godot);
        return -1;
    }
    o->godot3 = godot == 3;
    return 0;
}

static PyObject *py_value(PyObject *self, PyObject *args) {
    Py_buffer view;
    int etype, godot;
    Py_ssize_t start, end;
    Out o = {{NULL, 0, 0}, 0};
    if (!PyArg_ParseTuple(args, "y*inni:value", &view, &etype, &start, &end, &godot))
        return NULL;
    if (version(godot, &o) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int rc = span_ok(&view, start, end)
                 ? put_value(&o, view.buf, etype, start, end, 0, NULL, NULL)
                 : UNSURE;
    PyBuffer_Release(&view);
    return finish(&o, rc);
}

static PyObject *py_slot(PyObject *self, PyObject *args) {
    Py_buffer view;
    int godot;
    Py_ssize_t start, end;
    Out o = {{NULL, 0, 0}, 0};
    if (!PyArg_ParseTuple(args, "y*nni:slot", &view, &start, &end, &godot))
        return NULL;
    if (version(godot, &o) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int rc = span_ok(&view, start, end)
                 ? put_container(&o, view.buf, start, end, 0, 0, "Children", "Data")
                 : UNSURE;
    PyBuffer_Release(&view);
    return finish(&o, rc);
}

/* The ID of a Data document: the string element "ID" at its top level, or null. */
static int put_id(Out *o, const unsigned char *b, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t pos = start + 4, stop = end - 1;
    while (pos < stop) {
        int etype = b[pos];
        Py_ssize_t klen, vstart, vend;
        if (element_at(b, pos, stop, &klen, &vstart, &vend) != 0)
            return UNSURE;
        int is_id = klen == 2 && b[pos + 1] == 'I' && b[pos + 2] == 'D';
        if (is_id)
            return etype == 0x02 ? put_value(o, b, 0x02, vstart, vend, 0, NULL, NULL)
                                 : out_put(o, "null", 4);
        pos = vend;
    }
    return out_put(o, "null", 4);
}

/* A component {Type, Data} as the summary export.component_summary makes of it:
 * {"type": type text, "id": Data's ID or null, "data": Data}.  The type text is ``type`` when
 * given, else ``types[Type]`` (Type an int32 or int64 index; a str there).  Other keys, a
 * second Type or Data, a Data that is not a document: not sure. */
static int put_component(Out *o, const unsigned char *b, Py_ssize_t start, Py_ssize_t end,
                         PyObject *type, PyObject *types) {
    if (!doc_spans(b, start, end))
        return UNSURE;
    Py_ssize_t pos = start + 4, stop = end - 1, data_start = -1, data_end = -1;
    int seen_type = 0, elements = 0;
    while (pos < stop) {
        int etype = b[pos];
        Py_ssize_t klen, vstart, vend;
        if (element_at(b, pos, stop, &klen, &vstart, &vend) != 0)
            return UNSURE;
        if (klen == 4 && memcmp(b + pos + 1, "Type", 4) == 0 && !seen_type) {
            seen_type = 1;
            if (type == NULL) {
                long long index;
                if (etype == 0x10)
                    index = (long long)(int32_t)i32(b + vstart);
                else if (etype == 0x12)
                    index = (long long)i64(b + vstart);
                else
                    return UNSURE;
                if (types == NULL || index < 0 || index >= (long long)PyTuple_GET_SIZE(types))
                    return UNSURE;
                type = PyTuple_GET_ITEM(types, (Py_ssize_t)index);
                if (!PyUnicode_CheckExact(type))
                    return UNSURE;
            }
        } else if (klen == 4 && memcmp(b + pos + 1, "Data", 4) == 0 && etype == 0x03 &&
                   data_start < 0) {
            /* element_at framed it (doc_end): size data_end - data_start >= 5, last byte 0 */
            data_start = vstart;
            data_end = vend;
        } else {
            return UNSURE;
        }
        elements++;
        pos = vend;
    }
    if (pos != stop || !seen_type || data_start < 0 || elements != 2 || type == NULL)
        return UNSURE;
    Py_ssize_t tlen;
    const char *type_utf8 = PyUnicode_AsUTF8AndSize(type, &tlen);
    if (type_utf8 == NULL) {
        PyErr_Clear();
        return UNSURE;
    }
    if (out_put(o, "{\n\"type\": ", 10) < 0)
        return -1;
    int rc = put_string(o, (const unsigned char *)type_utf8, tlen);
    if (rc != 0)
        return rc;
    if (out_put(o, ",\n\"id\": ", 8) < 0)
        return -1;
    rc = put_id(o, b, data_start, data_end);
    if (rc != 0)
        return rc;
    if (out_put(o, ",\n\"data\": ", 10) < 0)
        return -1;
    rc = put_container(o, b, data_start, data_end, 0, 1, NULL, NULL);
    return rc != 0 ? rc : out_put(o, "\n}", 2);
}

/* The components of a slot: the array at [start, end) (Components' Data), every item a
 * component document, as the Godot 3 or 4 list of their summaries; types: the tree's type names
 * by index. */
static int put_components(Out *o, const unsigned char *b, Py_ssize_t start, Py_ssize_t end,
                          PyObject *types) {
    int rc, count = 0;
    if (!doc_spans(b, start, end))
        return UNSURE;
    if ((rc = out_put(o, o->godot3 ? "[ " : "[", o->godot3 ? 2 : 1)) != 0)
        return rc;
    Py_ssize_t pos = start + 4, stop = end - 1;
    while (pos < stop) {
        Py_ssize_t vstart, vend;
        if (doc_item(b, pos, stop, &vstart, &vend) != 1)
            return UNSURE;
        if (count++ > 0 && out_put(o, ", ", 2) < 0)
            return -1;
        if ((rc = put_component(o, b, vstart, vend, NULL, types)) != 0)
            return rc;
        pos = vend;
    }
    return pos != stop ? UNSURE : o->godot3 ? out_put(o, " ]", 2) : out_put(o, "]", 1);
}

static PyObject *py_components(PyObject *self, PyObject *args) {
    Py_buffer view;
    PyObject *types;
    int godot;
    Py_ssize_t start, end;
    Out o = {{NULL, 0, 0}, 0};
    if (!PyArg_ParseTuple(args, "O!y*nni:components", &PyTuple_Type, &types, &view, &start,
                          &end, &godot))
        return NULL;
    if (version(godot, &o) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int rc = span_ok(&view, start, end) ? put_components(&o, view.buf, start, end, types) : UNSURE;
    PyBuffer_Release(&view);
    return finish(&o, rc);
}

/* Float fields of a math literal (tscn.real for each, joined by ", "): repr with Godot's
 * 18-digit rule, an integral value without its ".0".  Items other than floats, and nan/inf
 * (each version's own keyword): not sure. */
static PyObject *py_reals(PyObject *self, PyObject *args) {
    PyObject *numbers;
    int godot;
    Out o = {{NULL, 0, 0}, 0};
    if (!PyArg_ParseTuple(args, "Oi:reals", &numbers, &godot))
        return NULL;
    if (version(godot, &o) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(numbers, "reals: numbers must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    int rc = 0;
    for (Py_ssize_t k = 0; k < n && rc == 0; k++) {
        if (!PyFloat_CheckExact(items[k])) {
            rc = UNSURE;
            break;
        }
        if (k > 0 && out_put(&o, ", ", 2) < 0) {
            rc = -1;
            break;
        }
        rc = put_double(&o, PyFloat_AS_DOUBLE(items[k]));
        if (rc == 0 && o.b.len >= 2 && o.b.p[o.b.len - 2] == '.' && o.b.p[o.b.len - 1] == '0')
            o.b.len -= 2;
    }
    Py_DECREF(seq);
    if (rc == 0 && o.b.p == NULL)
        return PyUnicode_FromStringAndSize("", 0);
    return finish(&o, rc);
}

/* --- a slot's own members, as the model reads them --------------------------------------- */

static int ascii(const unsigned char *s, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k < n; k++)
        if (s[k] >= 0x80)
            return 0;
    return 1;
}

/* A decoded value, or NULL: *unsure set when not sure (no error), else a Python error. */
static PyObject *utf8_or_unsure(const unsigned char *s, Py_ssize_t n, int *unsure) {
    PyObject *text = PyUnicode_DecodeUTF8((const char *)s, n, NULL);
    if (text == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        PyErr_Clear();
        *unsure = 1;
    }
    return text;
}

/* The type of the Data value [*ds, *de) of a member document in the engine layout
 * {ID: string, Data: x}, those two in that order (raw.member_data's rule); 0 for another
 * layout. */
static int member_data(const unsigned char *b, Py_ssize_t start, Py_ssize_t end, Py_ssize_t *ds,
                       Py_ssize_t *de) {
    Py_ssize_t stop = end - 1, klen, vs, ve;
    if (!doc_spans(b, start, end) || start + 4 >= stop || b[start + 4] != 0x02 ||
        element_at(b, start + 4, stop, &klen, &vs, &ve) != 0 || klen != 2 ||
        memcmp(b + start + 5, "ID", 2) != 0 || ve >= stop ||
        element_at(b, ve, stop, &klen, ds, de) != 0 || klen != 4 ||
        memcmp(b + ve + 1, "Data", 4) != 0 || *de != stop)
        return 0;
    return b[ve];
}

/* Appends item (a new reference, NULL after a failed allocation) to list, giving it up; -1
 * with an error set on failure. */
static int append_new(PyObject *list, PyObject *item) {
    int rc = item == NULL ? -1 : PyList_Append(list, item);
    Py_XDECREF(item);
    return rc;
}

/* What Slot's member properties (slot.py _member_property) read from a member document in the
 * engine layout {ID: string, Data: x}, those two in that order: a string, int32, null, bool
 * or double as itself, an array of doubles as a list of floats.  Any other layout or type
 * (which the model reads through a Member view, or pymongo): not sure. */
static PyObject *member_value(const unsigned char *b, Py_ssize_t start, Py_ssize_t end,
                              int *unsure) {
    Py_ssize_t ds, de;
    int etype = member_data(b, start, end, &ds, &de);
    *unsure = 0;
    switch (etype) {
    case 0x01: {
        return PyFloat_FromDouble(f64(b + ds));
    }
    case 0x02:
        if (!string_spans(b, ds, de))
            break;
        return utf8_or_unsure(b + ds + 4, de - ds - 5, unsure);
    case 0x08: return PyBool_FromLong(b[ds] != 0);
    case 0x0A: return Py_NewRef(Py_None);
    case 0x10: return PyLong_FromLong((long)(int32_t)i32(b + ds));
    case 0x04: {
        if (!doc_spans(b, ds, de))
            break;
        PyObject *list = PyList_New(0);
        if (list == NULL)
            return NULL;
        Py_ssize_t pos = ds + 4, last = de - 1, kl, is, ie;
        while (pos < last) {
            if (b[pos] != 0x01 || element_at(b, pos, last, &kl, &is, &ie) != 0 ||
                !ascii(b + pos + 1, kl)) { /* keys the decoder reads: plain ones only */
                Py_DECREF(list);
                *unsure = 1;
                return NULL;
            }
            if (append_new(list, PyFloat_FromDouble(f64(b + is))) < 0) {
                Py_DECREF(list);
                return NULL;
            }
            pos = ie;
        }
        if (pos == last)
            return list;
        Py_DECREF(list);
        break;
    }
    default:
        break;
    }
    *unsure = 1;
    return NULL;
}

/* The Type of each component in a Components member {ID, Data: [{Type: int32, ...}, ...]}, as
 * a tuple of ints; None (not an error) for any other layout (the model's path decides). */
static PyObject *component_types(const unsigned char *b, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t ds, de;
    if (member_data(b, start, end, &ds, &de) != 0x04 || !doc_spans(b, ds, de))
        return Py_NewRef(Py_None);
    PyObject *found = PyList_New(0);
    if (found == NULL)
        return NULL;
    Py_ssize_t pos = ds + 4, last = de - 1;
    while (pos < last) {
        Py_ssize_t is, ie;
        if (doc_item(b, pos, last, &is, &ie) != 1 || !ascii(b + pos + 1, is - pos - 2))
            goto none; /* the model's item reader refuses a key that is not UTF-8 */
        /* its Type, what Component.type_index reads in place, negative or not: the
         * first element, an int32 (the engine's layout) or an int64 (other writers') */
        int64_t type;
        if (!leading_type(b, is, ie, 1, &type))
            goto none;
        if (append_new(found, PyLong_FromLongLong((long long)type)) < 0) {
            Py_DECREF(found);
            return NULL;
        }
        pos = ie;
    }
    if (pos != last)
        goto none;
    PyObject *tuple = PyList_AsTuple(found);
    Py_DECREF(found);
    return tuple;
none:
    Py_DECREF(found);
    return Py_NewRef(Py_None);
}

static const char *const HEAD_KEYS[] = {"ID", "Name", "Tag", "Active", "Position",
                                        "Rotation", "Scale", "Components"};
#define HEAD_SIZE 8

/* head(buf, start, end): (ID, Name, Tag, Active, Position, Rotation, Scale, component Types)
 * of an unedited slot document, each as the model's properties read it (slot.id, slot.name,
 * ..., a missing key None; the Types a tuple of ints, or None for another layout); None when
 * not sure of any of them (duplicate keys, other layouts or types). */
static PyObject *py_head(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t start, end;
    if (!PyArg_ParseTuple(args, "y*nn:head", &view, &start, &end))
        return NULL;
    const unsigned char *b = view.buf;
    PyObject *values[HEAD_SIZE] = {NULL};
    const unsigned char *keys[MAX_KEYS];
    Py_ssize_t key_lens[MAX_KEYS];
    int nkeys = 0, unsure = 0, failed = 0;
    if (!span_ok(&view, start, end) || !doc_spans(b, start, end)) {
        unsure = 1;
        goto done;
    }
    Py_ssize_t pos = start + 4, stop = end - 1;
    while (pos < stop && !unsure && !failed) {
        int etype = b[pos];
        Py_ssize_t klen, vs, ve;
        if (element_at(b, pos, stop, &klen, &vs, &ve) != 0) {
            unsure = 1;
            break;
        }
        const unsigned char *key = b + pos + 1;
        pos = ve;
        if (!ascii(key, klen)) { /* the model's index refuses a key that is not UTF-8 */
            PyObject *text = utf8_or_unsure(key, klen, &unsure);
            if (text == NULL && !unsure) {
                failed = 1;
                break;
            }
            Py_XDECREF(text);
        }
        for (int j = 0; j < nkeys; j++)
            if (key_lens[j] == klen && memcmp(keys[j], key, (size_t)klen) == 0)
                unsure = 1;
        if (unsure || nkeys == MAX_KEYS) {
            unsure = 1;
            break;
        }
        keys[nkeys] = key;
        key_lens[nkeys++] = klen;
        int which = -1;
        for (int k = 0; k < HEAD_SIZE; k++)
            if ((Py_ssize_t)strlen(HEAD_KEYS[k]) == klen &&
                memcmp(HEAD_KEYS[k], key, (size_t)klen) == 0)
                which = k;
        PyObject *value = NULL;
        if (which == 0) { /* slot.id: the ID when a string, else None */
            if (etype != 0x02)
                value = Py_NewRef(Py_None);
            else if (!string_spans(b, vs, ve))
                unsure = 1;
            else
                value = utf8_or_unsure(b + vs + 4, ve - vs - 5, &unsure);
        } else if (which == 7) {
            value = etype == 0x03 ? component_types(b, vs, ve) : Py_NewRef(Py_None);
        } else if (which > 0) {
            if (etype == 0x03)
                value = member_value(b, vs, ve, &unsure);
            else
                unsure = 1;
        } else {
            continue;
        }
        if (value == NULL && !unsure)
            failed = 1;
        values[which] = value;
    }
    if (!unsure && !failed && pos != stop)
        unsure = 1;
done:
    PyBuffer_Release(&view);
    PyObject *result = NULL;
    if (!failed && unsure) {
        result = Py_NewRef(Py_None);
    } else if (!failed) {
        result = PyTuple_New(HEAD_SIZE);
        for (int k = 0; result != NULL && k < HEAD_SIZE; k++) {
            PyTuple_SET_ITEM(result, k, values[k] != NULL ? values[k] : Py_NewRef(Py_None));
            values[k] = NULL;
        }
    }
    for (int k = 0; k < HEAD_SIZE; k++)
        Py_XDECREF(values[k]);
    if (failed && !PyErr_Occurred())
        PyErr_NoMemory();
    return result;
}

#include "_tscnnode.h" /* node(): a whole node's piece, from the writers above */

static PyMethodDef methods[] = {
    {"value", py_value, METH_VARARGS,
     "value(buf, etype, start, end, godot): the BSON value at [start, end) as Godot 3 or 4 "
     "text, or None."},
    {"slot", py_slot, METH_VARARGS,
     "slot(buf, start, end, godot): a slot's metadata fields (no Children, Components without "
     "Data) as Godot 3 or 4 text, or None."},
    {"head", py_head, METH_VARARGS,
     "head(buf, start, end): a slot's ID, Name, Tag, Active, Position, Rotation, Scale and "
     "component Types as the model reads them, or None."},
    {"reals", py_reals, METH_VARARGS,
     "reals(numbers, godot): float fields of a math literal, joined by ', ', or None."},
    {"components", py_components, METH_VARARGS,
     "components(types, buf, start, end, godot): the components of the array at [start, end) "
     "as Godot 3 or 4 text (type names by index from types), or None."},
    {"node", py_node, METH_VARARGS,
     "node(buf, start, end, godot, types, head, name, parent, kind, extra, last): the piece of "
     "a streamed scene's node for the slot at [start, end), or None."},
    {NULL, NULL, 0, NULL},
};

BRSON_MODULE(_tscnc, "Godot 3 and 4 metadata text from BSON bytes (see brson/godot/export.py).");

PyMODINIT_FUNC PyInit__tscnc(void) { return PyModule_Create(&module); }
