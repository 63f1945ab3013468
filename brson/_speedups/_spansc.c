/* The walk of brson/model/spans.py's ComponentSpans in C: every slot under a tree's Object
 * and every component's value span, in one pass over the bytes.
 *
 * The Python walk indexes each slot (raw.index_like), each Components member
 * (raw.member_index) and each Data / Children array (raw.array_items): ~6 us a slot, the
 * largest piece of extract after the ID scan.  This does the same in one
 * call and returns None for anything it is not sure of (an element type outside the common
 * ones, a key that is not ASCII, a duplicate key, an array holding anything but documents, a
 * length that the Python functions would refuse): the caller then walks in Python, which
 * answers or raises the precise error, so errors have one source.  Every read is checked
 * against the span it lies in before it is made.
 *
 * walk(buf: bytes, start, end[, names]) -> (components, slots[, names]) | None: ``components``
 * the int64 triples (value start, value end, slot number) sorted by start; ``slots`` the int64
 * triples (start, end, parent number) in walk order (a stack: the last child pushed is walked
 * first, as the Python walk pops them); with ``names`` true, each slot's name as int64 triples
 * (start, size, 0) of its UTF-8 bytes, start -1 where table's name is None (a reader of many
 * slots' names decodes them from there without a second walk).
 *
 * table(buf: bytes, start, end) -> (slot columns, component columns, names) | None: the same
 * walk as brson/model/spans.py's SlotTable holds it (DataTree.walk makes every slot's children
 * and components from it), so that a walk of a big world makes no per-slot tables in Python:
 * the int64 columns (start, end, first child, next sibling, first component, component
 * stop) of every slot in walk order, (start, end, leading type) of every component by start,
 * and each slot's name where its Name member holds a string in the engine's layout (None
 * elsewhere).  spans.table_columns_py is its reference.
 *
 * runs(buf, columns, offsets, mode): a whole reference listing's offsets cut into runs of one
 * anchor, each with paths()'s rows, and in the kinds modes model/ids/kinds.py's answers read
 * from the elements on each path (see runs below); ComponentSpans.runs_py and kinds.py are
 * its references.
 *
 * numbers_at(starts, ends, offsets): ComponentSpans.at of many offsets in one call (extract's
 * closure, a round's definitions); ComponentSpans.numbers_at_py is its reference.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "_bsonwire.h"
#include "_grow.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t a, b, c;
} Triple;

typedef struct {
    Triple *items;
    Py_ssize_t count, size;
} Triples;

/* (The walk runs without the GIL: PyMem_Raw's, and no exception set here.) */
static int push(Triples *t, int64_t a, int64_t b, int64_t c) {
    if (t->count == t->size) {
        Py_ssize_t size = grown_cap(t->size, t->count + 1, sizeof(Triple));
        if (size < 0) return -1;
        Triple *grown = PyMem_RawRealloc(t->items, (size_t)size * sizeof(Triple));
        if (grown == NULL) return -1;
        t->items = grown;
        t->size = size;
    }
    t->items[t->count].a = a;
    t->items[t->count].b = b;
    t->items[t->count].c = c;
    t->count++;
    return 0;
}

/* One indexed element: type, key span, value span. */
typedef struct {
    unsigned char etype;
    Py_ssize_t key, key_end, vstart, vend;
} Elem;

#define MAX_KEYS 64

/* The elements of the document buf[start:end] as raw.index_py reads them, or -1 where it
 * would raise or where C is not sure (non-ASCII key, rare types, more than MAX_KEYS keys). */
static int index_doc(const unsigned char *buf, Py_ssize_t start, Py_ssize_t end, Elem *out) {
    Py_ssize_t pos = start + 4, last = end - 1;
    int count = 0;
    while (pos < last) {
        if (count == MAX_KEYS) return -1;
        unsigned char etype = buf[pos];
        /* Regex, DBPointer, code with scope: rare, the Python walk's. */
        if (etype == 0x0B || etype == 0x0C || etype == 0x0F) return -1;
        Py_ssize_t vstart, vend = element_end(buf, pos, last, &vstart);
        if (vend < 0) return -1;
        Py_ssize_t key = pos + 1, k = vstart - 1, length = k - key;
        if (!all_ascii(buf + key, length)) return -1;
        for (int i = 0; i < count; i++) {
            if (out[i].key_end - out[i].key == length &&
                memcmp(buf + out[i].key, buf + key, (size_t)length) == 0)
                return -1; /* duplicate key: index_py raises */
        }
        out[count].etype = etype;
        out[count].key = key;
        out[count].key_end = k;
        out[count].vstart = vstart;
        out[count].vend = vend;
        count++;
        pos = vend;
    }
    if (pos != last) return -1;
    return count;
}

static const Elem *find_key(const unsigned char *buf, const Elem *elems, int count,
                            const char *name) {
    size_t length = strlen(name);
    for (int i = 0; i < count; i++) {
        if ((size_t)(elems[i].key_end - elems[i].key) == length &&
            memcmp(buf + elems[i].key, name, length) == 0)
            return &elems[i];
    }
    return NULL;
}

/* The document items of the array buf[start:end] as raw.array_items_py's loop reads them
 * (value spans, tagged with ``tag``); -1 for an item that is not a document (Python indexes
 * the whole array then) or a length it would refuse. */
static int array_docs(const unsigned char *buf, Py_ssize_t start, Py_ssize_t end, int64_t tag,
                      Triples *into) {
    Py_ssize_t pos = start + 4, last = end - 1;
    while (pos < last) {
        Py_ssize_t vstart, vend;
        if (doc_item(buf, pos, last, &vstart, &vend) != 1) return -1;
        if (push(into, vstart, vend, tag) < 0) return -2;
        pos = vend;
    }
    if (pos != last) return -1;
    return 0;
}

static int by_start(const void *x, const void *y) {
    int64_t a = ((const Triple *)x)->a, b = ((const Triple *)y)->a;
    return (a > b) - (a < b);
}

/* Where the string a slot's ``Name`` member holds lies (``*at``, ``*size``: the UTF-8 bytes
 * Slot.name decodes), for the member document buf[start:end] in the engine's {ID, Data}
 * layout whose Data is a string, as raw.member_data_py finds it; *at stays -1 for anything
 * else (another layout, another type, an empty or unterminated string): the model reads it. */
static void name_span(const unsigned char *buf, Py_ssize_t start, Py_ssize_t end, int64_t *at,
                      int64_t *size) {
    if (end - start <= 21 || memcmp(buf + start + 4, "\x02ID\x00", 4) != 0) return;
    Py_ssize_t n = i32(buf + start + 8), data_at = start + 12 + n;
    if (n <= 0 || data_at + 6 > end || buf[data_at - 1] != 0 || buf[data_at] != 0x02 ||
        memcmp(buf + data_at + 1, "Data\x00", 5) != 0)
        return;
    Py_ssize_t vstart = data_at + 6;
    if (vstart + 4 > end) return;
    Py_ssize_t length = i32(buf + vstart), vend = vstart + 4 + length;
    if (length < 1 || vend != end - 1 || buf[vend - 1] != 0) return;
    *at = vstart + 4;
    *size = length - 1;
}

/* 1 done, 0 not sure (the caller walks in Python), -1 out of memory.  With ``names``, a
 * (start, size, 0) triple per slot in ``slots``' order: its name's bytes (start -1: none). */
static int run(const unsigned char *buf, Py_ssize_t start, Py_ssize_t end, Triples *found,
               Triples *slots, Triples *names) {
    Triples pending = {NULL, 0, 0};
    Elem elems[MAX_KEYS], held[MAX_KEYS];
    int result = 1;
    if (push(&pending, start, end, -1) < 0) return -1;
    while (pending.count) {
        Triple slot = pending.items[--pending.count];
        int64_t number = slots->count;
        if (push(slots, slot.a, slot.b, slot.c) < 0) { result = -1; break; }
        int count = index_doc(buf, (Py_ssize_t)slot.a, (Py_ssize_t)slot.b, elems);
        if (count < 0) { result = 0; break; }
        if (names != NULL) {
            int64_t at = -1, size = 0;
            const Elem *name = find_key(buf, elems, count, "Name");
            if (name != NULL && name->etype == 0x03) name_span(buf, name->vstart, name->vend, &at, &size);
            if (push(names, at, size, 0) < 0) { result = -1; break; }
        }
        const Elem *components = find_key(buf, elems, count, "Components");
        if (components != NULL && components->etype == 0x03) {
            int inner = index_doc(buf, components->vstart, components->vend, held);
            if (inner < 0) { result = 0; break; }
            const Elem *data = find_key(buf, held, inner, "Data");
            if (data != NULL && data->etype == 0x04) {
                int got = array_docs(buf, data->vstart, data->vend, number, found);
                if (got < 0) { result = got == -2 ? -1 : 0; break; }
            }
        }
        const Elem *kids = find_key(buf, elems, count, "Children");
        if (kids != NULL && kids->etype == 0x04) {
            int got = array_docs(buf, kids->vstart, kids->vend, number, &pending);
            if (got < 0) { result = got == -2 ? -1 : 0; break; }
        }
    }
    PyMem_RawFree(pending.items);
    return result;
}

/* walk's and table's arguments (buf: bytes, start, end, and walk's optional flag ``names``
 * where ``names`` is given a place): 1 with the bytes, 0 where they are not bytes or the span
 * lies outside them (the caller answers None), -1 on a Python error. */
static int span_args(PyObject *args, const unsigned char **buf, Py_ssize_t *start,
                     Py_ssize_t *end, int *names) {
    PyObject *data;
    if (names == NULL ? !PyArg_ParseTuple(args, "Onn", &data, start, end)
                      : !PyArg_ParseTuple(args, "Onn|p", &data, start, end, names))
        return -1;
    if (!PyBytes_CheckExact(data)) return 0;
    if (*start < 0 || *end > PyBytes_GET_SIZE(data) || *end - *start < 5) return 0;
    *buf = (const unsigned char *)PyBytes_AS_STRING(data);
    return 1;
}

static PyObject *walk(PyObject *self, PyObject *args) {
    const unsigned char *buf;
    Py_ssize_t start, end;
    int with_names = 0;
    int given = span_args(args, &buf, &start, &end, &with_names);
    if (given <= 0) return given < 0 ? NULL : Py_NewRef(Py_None);
    Triples found = {NULL, 0, 0}, slots = {NULL, 0, 0}, names = {NULL, 0, 0};
    int done;
    Py_BEGIN_ALLOW_THREADS
    done = run(buf, start, end, &found, &slots, with_names ? &names : NULL);
    if (done == 1 && found.count > 1)
        qsort(found.items, (size_t)found.count, sizeof(Triple), by_start);
    Py_END_ALLOW_THREADS
    PyObject *out = NULL;
    if (done < 0) {
        PyErr_NoMemory();
    } else if (done == 0) {
        Py_INCREF(Py_None);
        out = Py_None;
    } else {
        /* y# makes None of a NULL pointer: an empty list of triples is b"". */
        const char *none = "";
        out = Py_BuildValue(with_names ? "(y#y#y#)" : "(y#y#)",
                            found.items ? (const char *)found.items : none,
                            found.count * (Py_ssize_t)sizeof(Triple),
                            slots.items ? (const char *)slots.items : none,
                            slots.count * (Py_ssize_t)sizeof(Triple),
                            names.items ? (const char *)names.items : none,
                            names.count * (Py_ssize_t)sizeof(Triple));
    }
    PyMem_RawFree(found.items);
    PyMem_RawFree(slots.items);
    PyMem_RawFree(names.items);
    return out;
}


#include "_spanpaths.h"

/* The component buf[start:end]'s ``Type`` index for the table: its leading Type as the
 * Python reader reads it (room for an empty Data after it), when it is not negative; -1 for
 * anything else (the model reads it). */
static int64_t table_type(const unsigned char *buf, int64_t start, int64_t end) {
    int64_t value;
    return leading_type(buf, start, end, 12, &value) && value >= 0 ? value : -1;
}

/* SlotTable's columns from a finished walk, column after column: per slot (start, end, first
 * child, next sibling, first component, component stop), per component (start, end, type).
 * Children are linked in ascending row order: the walk numbers a slot's children last first,
 * so that puts them in array order.  A slot's components are one run of the components by
 * start (they lie in its Components member, which holds no other slot's). */
static void columns(const unsigned char *buf, const Triples *found, const Triples *slots,
                    int64_t *per_slot, int64_t *per_component) {
    Py_ssize_t n = slots->count, m = found->count;
    int64_t *starts = per_slot, *ends = per_slot + n, *first_kid = per_slot + 2 * n,
            *next_sibling = per_slot + 3 * n, *comp_first = per_slot + 4 * n,
            *comp_stop = per_slot + 5 * n;
    for (Py_ssize_t row = 0; row < n; row++) {
        starts[row] = slots->items[row].a;
        ends[row] = slots->items[row].b;
        first_kid[row] = next_sibling[row] = comp_first[row] = comp_stop[row] = -1;
    }
    for (Py_ssize_t row = 1; row < n; row++) {
        int64_t parent = slots->items[row].c; /* a row already pushed: 0 <= parent < row */
        next_sibling[row] = first_kid[parent];
        first_kid[parent] = row;
    }
    for (Py_ssize_t at = 0; at < m; at++) {
        const Triple *c = &found->items[at];
        per_component[at] = c->a;
        per_component[m + at] = c->b;
        per_component[2 * m + at] = table_type(buf, c->a, c->b);
        if (comp_first[c->c] < 0) comp_first[c->c] = at;
        comp_stop[c->c] = at + 1;
    }
}

/* Each slot's name (None where name_span found none, or its bytes are not UTF-8: the model
 * reads it and raises what it raises). */
static PyObject *slot_names(const unsigned char *buf, const Triples *names) {
    PyObject *out = PyList_New(names->count);
    if (out == NULL) return NULL;
    for (Py_ssize_t row = 0; row < names->count; row++) {
        const Triple *span = &names->items[row];
        PyObject *name = NULL;
        if (span->a >= 0) {
            name = PyUnicode_DecodeUTF8((const char *)buf + span->a, (Py_ssize_t)span->b, NULL);
            if (name == NULL) {
                if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
                    Py_DECREF(out);
                    return NULL;
                }
                PyErr_Clear();
            }
        }
        if (name == NULL) name = Py_NewRef(Py_None);
        PyList_SET_ITEM(out, row, name);
    }
    return out;
}

static PyObject *table(PyObject *self, PyObject *args) {
    const unsigned char *buf;
    Py_ssize_t start, end;
    int given = span_args(args, &buf, &start, &end, NULL);
    if (given <= 0) return given < 0 ? NULL : Py_NewRef(Py_None);
    Triples found = {NULL, 0, 0}, slots = {NULL, 0, 0}, names = {NULL, 0, 0};
    int64_t *per_slot = NULL, *per_component = NULL;
    int done;
    Py_BEGIN_ALLOW_THREADS
    done = run(buf, start, end, &found, &slots, &names);
    if (done == 1) {
        if (found.count > 1)
            qsort(found.items, (size_t)found.count, sizeof(Triple), by_start);
        /* Counts are bounded by the buffer's size (each row is a document of 5 bytes or
         * more), so these sizes cannot overflow. */
        per_slot = PyMem_RawMalloc((size_t)(6 * slots.count + 1) * sizeof(int64_t));
        per_component = PyMem_RawMalloc((size_t)(3 * found.count + 1) * sizeof(int64_t));
        if (per_slot == NULL || per_component == NULL)
            done = -1;
        else
            columns(buf, &found, &slots, per_slot, per_component);
    }
    Py_END_ALLOW_THREADS
    PyObject *out = NULL;
    if (done < 0) {
        PyErr_NoMemory();
    } else if (done == 0) {
        out = Py_NewRef(Py_None);
    } else {
        PyObject *names_list = slot_names(buf, &names);
        if (names_list != NULL)
            out = Py_BuildValue("(y#y#N)", (const char *)per_slot,
                                6 * slots.count * (Py_ssize_t)sizeof(int64_t),
                                (const char *)per_component,
                                3 * found.count * (Py_ssize_t)sizeof(int64_t), names_list);
    }
    PyMem_RawFree(per_slot);
    PyMem_RawFree(per_component);
    PyMem_RawFree(found.items);
    PyMem_RawFree(slots.items);
    PyMem_RawFree(names.items);
    return out;
}

/* numbers_at(starts, ends, offsets) -> [number or None] or None: ComponentSpans.at of each
 * item of the list `offsets` (an int, or None for None), over its int64 columns of component
 * starts and ends (a Python bisection per offset was most of a big closure's rounds).  None
 * when the columns are not two int64 arrays of one length or an item is neither None nor an
 * int64 (Python answers). */
static PyObject *numbers_at(PyObject *self, PyObject *args) {
    PyObject *given[2], *offsets;
    if (!PyArg_ParseTuple(args, "OOO", &given[0], &given[1], &offsets))
        return NULL;
    if (!PyList_CheckExact(offsets))
        Py_RETURN_NONE;
    Py_buffer views[2];
    int held = 0;
    PyObject *out = NULL;
    for (; held < 2; held++)
        if (PyObject_GetBuffer(given[held], &views[held], PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
            PyErr_Clear();
            goto unsure;
        }
    for (int i = 0; i < 2; i++)
        if (views[i].format == NULL || strcmp(views[i].format, "q") != 0 ||
            views[i].itemsize != 8 || views[i].len != views[0].len)
            goto unsure;
    const int64_t *starts = views[0].buf, *ends = views[1].buf;
    Py_ssize_t n = views[0].len / 8, count = PyList_GET_SIZE(offsets);
    out = PyList_New(count);
    if (out == NULL)
        goto done;
    /* No Python code runs in the loop (an int is not tracked by the collector, so making one
     * never collects), so the list stays as it was. */
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GET_ITEM(offsets, i);
        Py_ssize_t at = -1;
        if (item != Py_None) {
            if (!PyLong_CheckExact(item))
                goto unsure;
            int overflow;
            long long offset = PyLong_AsLongLongAndOverflow(item, &overflow);
            if (overflow)
                goto unsure;
            at = last_at_or_before(starts, n, offset);
            if (at >= 0 && offset >= ends[at])
                at = -1;
        }
        PyObject *number = at < 0 ? Py_NewRef(Py_None) : PyLong_FromSsize_t(at);
        if (number == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, number);
    }
    goto done;
unsure:
    Py_XDECREF(out);
    out = Py_NewRef(Py_None);
done:
    for (int i = 0; i < held; i++)
        PyBuffer_Release(&views[i]);
    return out;
}

static PyMethodDef methods[] = {
    {"walk", walk, METH_VARARGS,
     "walk(buf, start, end[, names]) -> (components, slots[, names]) int64 triples, or None: "
     "Python decides."},
    {"paths", paths, METH_VARARGS,
     "paths(buf, start, end, offsets, chains, slot) -> [(offset, path, chain)] or None."},
    {"runs", runs, METH_VARARGS,
     "runs(buf, columns, offsets, mode, first, stop) -> [(number, slot, type, lo, hi, rows)]"},
    {"table", table, METH_VARARGS,
     "table(buf, start, end) -> (slot columns, component columns, names), or None."},
    {"numbers_at", numbers_at, METH_VARARGS,
     "numbers_at(starts, ends, offsets) -> [component number or None], or None."},
    {NULL, NULL, 0, NULL},
};

BRSON_MODULE(_spansc, "ComponentSpans' walk in C.");

PyMODINIT_FUNC PyInit__spansc(void) {
    static const char *names[4] = {"slot", "component", "member", "id"};
    for (int i = 0; i < 4; i++) {
        if (kind_names[i] == NULL) kind_names[i] = PyUnicode_InternFromString(names[i]);
        if (kind_names[i] == NULL) return NULL;
    }
    return PyModule_Create(&module);
}
