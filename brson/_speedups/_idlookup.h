/* The definition table's lookups, for _idscanc.c (header-only, one module includes it, after
 * the table's hashes): `scan` returns the table as bytes, and ids/scan.py's IdScan asks it
 * where an ID is first defined, one ID a call (lookup) or a list of them (lookups).  Python
 * answers what a lookup is unsure of (IdScan._python_offset, the bisection of the sorted
 * definitions, is the reference). */
#ifndef BRSON_IDLOOKUP_H
#define BRSON_IDLOOKUP_H

/* Probes one lookup() may spend with guid_hash before it leaves the answer to Python (a
 * bisection of the sorted definitions). */
#define LOOKUP_PROBES 64

/* A table from scan, as lookup reads it: its slots, their count (a power of two) and hash. */
typedef struct {
    const unsigned char *buf;
    Py_ssize_t len, plen, size;
    const uint32_t *slots;
    int seeded;
} Lookups;

/* The table in args[1] over buf args[0] and prefix args[3] (their types checked): 0, or -1
 * when it is not a table scan made (the caller answers None). */
static int read_lookups(PyObject *const *args, Lookups *t) {
    t->buf = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    t->len = PyBytes_GET_SIZE(args[0]);
    t->plen = PyBytes_GET_SIZE(args[3]);
    if (PyBytes_GET_SIZE(args[1]) % (Py_ssize_t)sizeof(uint32_t) != 0)
        return -1;
    t->size = PyBytes_GET_SIZE(args[1]) / (Py_ssize_t)sizeof(uint32_t) - 1;
    t->slots = (const uint32_t *)PyBytes_AS_STRING(args[1]);
    if (t->size <= 0 || (t->size & (t->size - 1)) != 0 || t->slots[t->size] > 1)
        return -1;
    t->seeded = (int)t->slots[t->size];
    return 0;
}

/* The element offset of the first definition of the ID text g (36 bytes), -1 when the table
 * holds none, -2 when unsure (Python answers). */
static Py_ssize_t find_definition(const Lookups *t, const unsigned char *g) {
    const unsigned char *buf = t->buf;
    Py_ssize_t len = t->len, size = t->size;
    Py_ssize_t at = (Py_ssize_t)(hash_of(t->seeded, g) & (uint64_t)(size - 1));
    for (Py_ssize_t probes = 0; probes < size; probes++) {
        probes_total++;
        if (!t->seeded && probes == LOOKUP_PROBES)
            return -2;
        uint32_t e = t->slots[at];
        if (e == 0)
            return -1;
        Py_ssize_t s = (Py_ssize_t)e - 1;
        /* the ID text follows the key's NUL and the rest of the prefix */
        const unsigned char *nul = s + 1 < len ? memchr(buf + s + 1, 0, (size_t)(len - s - 1)) : NULL;
        if (nul == NULL)
            return -2;
        Py_ssize_t guid = (nul - buf) + t->plen;
        if (guid + GUID_LEN > len)
            return -2;
        if (memcmp(buf + guid, g, GUID_LEN) == 0)
            return s;
        at = (at + 1) & (size - 1);
    }
    return -1;
}

/* lookup(buf, table, guid, prefix) -> element offset of the first definition of `guid` (36
 * ASCII bytes), -1 when the table holds none, None when unsure (Python answers). */
static PyObject *c_lookup(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Lookups t;
    if (nargs != 4 || !PyBytes_Check(args[0]) || !PyBytes_Check(args[1]) ||
        !PyBytes_Check(args[2]) || !PyBytes_Check(args[3]) || read_lookups(args, &t) < 0)
        Py_RETURN_NONE;
    if (PyBytes_GET_SIZE(args[2]) != GUID_LEN)
        return PyLong_FromLong(-1);
    Py_ssize_t found = find_definition(&t, (const unsigned char *)PyBytes_AS_STRING(args[2]));
    if (found == -2)
        Py_RETURN_NONE;
    return PyLong_FromSsize_t(found);
}

/* lookups(buf, table, ids, prefix) -> [offset or None] or None: lookup of each str of the
 * list `ids` in one call (a call and an encode per ID was most of the time a big closure
 * spent looking up its hundreds of thousands), None for an ID the table holds none of (a str
 * that is not 36 ASCII characters never is one) and -1 for one it is unsure of (Python
 * answers); None for the whole when some item is not exactly a str or the table is not
 * scan's. */
static PyObject *c_lookups(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    Lookups t;
    if (nargs != 4 || !PyBytes_Check(args[0]) || !PyBytes_Check(args[1]) ||
        !PyList_Check(args[2]) || !PyBytes_Check(args[3]) || read_lookups(args, &t) < 0)
        Py_RETURN_NONE;
    PyObject *ids = args[2];
    Py_ssize_t n = PyList_GET_SIZE(ids);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *id = PyList_GET_ITEM(ids, i);
        if (!PyUnicode_CheckExact(id) || PyUnicode_READY(id) < 0) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
    }
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    /* No Python code runs in the loop (an int is not tracked by the collector, so making one
     * never collects), so the list stays as checked. */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *id = PyList_GET_ITEM(ids, i);
        Py_ssize_t found = -1;
        if (PyUnicode_IS_ASCII(id) && PyUnicode_GET_LENGTH(id) == GUID_LEN)
            found = find_definition(&t, (const unsigned char *)PyUnicode_DATA(id));
        PyObject *item;
        if (found == -1) {
            item = Py_None;
            Py_INCREF(item);
        } else {
            item = PyLong_FromSsize_t(found == -2 ? -1 : found);
            if (item == NULL) {
                Py_DECREF(out);
                return NULL;
            }
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

#endif
