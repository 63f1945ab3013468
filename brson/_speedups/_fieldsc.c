/* The per-field loop of validate's component checks, compiled (brson/ops/validate/context.py).

   A world has ~47 component fields and ~65 IDs a slot; the Python loop over the fields
   (`_fields`) and the joined-text GUID test (`all_guids`) were about a tenth of validate's
   time.  These functions answer the same questions over the same decoded dicts:

   guids(values, table, shape) -> bool
       all_guids: every value is a str whose characters, mapped through `table` (256 bytes:
       the shape class of each ASCII character), spell `shape` (one GUID's shape).  The shape
       and the table come from context.py, built from ids.forms.GUID_PATTERN.

   scan_all(datas, table, shape, id_key, suffix) -> list[list[str]] | None
       For a slot's components' `Data` dicts: the keys that are not members of each, when
       every ID among them (a member's `id_key`, a non-null value under `id_key` or a key
       ending with `suffix`) is a GUID; None otherwise, and None for anything unexpected (a
       key that is not an exact str, a data that is not an exact dict): the Python path then
       decides, so it is the one source of every finding.  The keys come from ids.forms
       (`ID_KEY`, `DEFINING_KEY_SUFFIX`: the rule is `ids.forms.holds_own_id`), not from here.

   CPython C API only; no reference is borrowed across a call that could run Python code. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

#include "_bsonwire.h"
#include "_grow.h"

#define GUID_MAX 64

/* Whether `value` is a str spelling `shape` through `table`: 1 yes, 0 no. */
static int
is_guid(PyObject *value, const unsigned char *table, const unsigned char *shape, Py_ssize_t size)
{
    /* Exactly str: BSON JavaScript code decodes to a str subclass, and is no ID. */
    if (!PyUnicode_CheckExact(value) || PyUnicode_READY(value) < 0) {
        PyErr_Clear();
        return 0;
    }
    if (PyUnicode_GET_LENGTH(value) != size || !PyUnicode_IS_ASCII(value)) {
        return 0;
    }
    const unsigned char *text = (const unsigned char *)PyUnicode_DATA(value);
    for (Py_ssize_t i = 0; i < size; i++) {
        if (table[text[i]] != shape[i]) {
            return 0;
        }
    }
    return 1;
}

/* The GUID form both entry points take: a 256-byte table mapping each byte to its class and
   the shape one GUID maps to. */
typedef struct {
    const unsigned char *map;
    const unsigned char *want;
    Py_ssize_t size;
} Form;

/* The keys holding a component's own IDs (ids.forms.holds_own_id): `id` itself, and every key
   ending with `suffix`; both ASCII.  `id` is also the key of a member's ID. */
typedef struct {
    PyObject *id;
    const unsigned char *id_text;
    Py_ssize_t id_len;
    const unsigned char *suffix;
    Py_ssize_t suffix_len;
} Keys;

/* An exact, ASCII str's bytes and length (exact: the member lookup by `id` then runs no
   Python code): 1, or 0 with an exception set. */
static int
ascii_text(PyObject *text, const unsigned char **out, Py_ssize_t *len)
{
    if (!PyUnicode_CheckExact(text) || PyUnicode_READY(text) < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "id_key and suffix must be str");
        }
        return 0;
    }
    if (!PyUnicode_IS_ASCII(text) || PyUnicode_GET_LENGTH(text) < 1) {
        PyErr_SetString(PyExc_ValueError, "id_key and suffix must be non-empty ASCII");
        return 0;
    }
    *out = PyUnicode_1BYTE_DATA(text);
    *len = PyUnicode_GET_LENGTH(text);
    return 1;
}

/* Parses (list, table, shape), followed by (id_key, suffix) when `keys` is not NULL: 1, or 0
   with an exception set. */
static int
parse_args(PyObject *args, PyObject **list, Form *form, Keys *keys)
{
    PyObject *table, *shape, *id_key = NULL, *suffix = NULL;
    int parsed = keys == NULL
        ? PyArg_ParseTuple(args, "O!OO", &PyList_Type, list, &table, &shape)
        : PyArg_ParseTuple(args, "O!OOUU", &PyList_Type, list, &table, &shape, &id_key, &suffix);
    if (!parsed) {
        return 0;
    }
    if (!PyBytes_CheckExact(table) || PyBytes_GET_SIZE(table) != 256 || !PyBytes_CheckExact(shape)
        || PyBytes_GET_SIZE(shape) < 1 || PyBytes_GET_SIZE(shape) > GUID_MAX) {
        PyErr_SetString(PyExc_ValueError, "table must be 256 bytes and shape 1-64 bytes");
        return 0;
    }
    form->map = (const unsigned char *)PyBytes_AS_STRING(table);
    form->want = (const unsigned char *)PyBytes_AS_STRING(shape);
    form->size = PyBytes_GET_SIZE(shape);
    if (keys != NULL) {
        keys->id = id_key;
        if (!ascii_text(id_key, &keys->id_text, &keys->id_len)
            || !ascii_text(suffix, &keys->suffix, &keys->suffix_len)) {
            return 0;
        }
    }
    return 1;
}

static PyObject *
guids(PyObject *self, PyObject *args)
{
    PyObject *values;
    Form f;
    if (!parse_args(args, &values, &f, NULL)) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(values); i++) {
        if (!is_guid(PyList_GET_ITEM(values, i), f.map, f.want, f.size)) {
            Py_RETURN_FALSE;
        }
    }
    Py_RETURN_TRUE;
}

/* Whether the last `len` characters of a ready str of length `n` are `text`, compared from
   the end (most keys differ in their last character). */
static int
ends_with(PyObject *key, Py_ssize_t n, const unsigned char *text, Py_ssize_t len)
{
    if (n < len) {
        return 0;
    }
    int kind = PyUnicode_KIND(key);
    const void *data = PyUnicode_DATA(key);
    for (Py_ssize_t i = 1; i <= len; i++) {
        if (PyUnicode_READ(kind, data, n - i) != text[len - i]) {
            return 0;
        }
    }
    return 1;
}

/* ids.forms.holds_own_id of a ready, exact str key. */
static int
is_id_key(PyObject *key, const Keys *k)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(key);
    return (n == k->id_len && ends_with(key, n, k->id_text, k->id_len))
        || ends_with(key, n, k->suffix, k->suffix_len);
}

/* The odd keys of one Data dict, or NULL with no exception set when the IDs are not all
   GUIDs or something is unexpected (NULL with an exception on a real error). */
static PyObject *
scan_one(PyObject *data, const Form *f, const Keys *k)
{
    PyObject *odd = PyList_New(0);
    if (odd == NULL) {
        return NULL;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(data, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key) || PyUnicode_READY(key) < 0) {
            PyErr_Clear();
            goto unsure;
        }
        if (PyDict_CheckExact(value)) {
            /* Member values decoded by pymongo have str keys only: the lookup runs no
               Python code, so key and value stay valid. */
            PyObject *member_id = PyDict_GetItemWithError(value, k->id);
            if (member_id != NULL) {
                if (!is_guid(member_id, f->map, f->want, f->size)) {
                    goto unsure;
                }
                continue;
            }
            if (PyErr_Occurred()) {
                PyErr_Clear();
                goto unsure;
            }
        } else if (is_id_key(key, k)) {
            if (value == Py_None) {
                continue;
            }
            if (!is_guid(value, f->map, f->want, f->size)) {
                goto unsure;
            }
            continue;
        }
        if (PyList_Append(odd, key) < 0) {
            Py_DECREF(odd);
            return NULL;
        }
    }
    return odd;
unsure:
    Py_DECREF(odd);
    return NULL;
}

static PyObject *
scan_all(PyObject *self, PyObject *args)
{
    PyObject *datas;
    Form f;
    Keys k;
    if (!parse_args(args, &datas, &f, &k)) {
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(datas);
    PyObject *out = PyList_New(n);
    if (out == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *data = PyList_GET_ITEM(datas, i);
        PyObject *odd = PyDict_CheckExact(data) ? scan_one(data, &f, &k) : NULL;
        if (odd == NULL) {
            Py_DECREF(out);
            if (PyErr_Occurred()) {
                return NULL;
            }
            Py_RETURN_NONE;
        }
        PyList_SET_ITEM(out, i, odd);
    }
    return out;
}

#include "_slotpass.h"
#include "_fluxnodes.h"

static PyMethodDef methods[] = {
    {"guids", guids, METH_VARARGS, "Whether every value is a str of the GUID shape."},
    {"scan_all", scan_all, METH_VARARGS,
     "The non-member keys of each Data dict when every ID is a GUID, else None."},
    {"slots", slots, METH_VARARGS,
     "The slot rules' verdict on each slot of a walk, from the bytes: (verdicts, used, flux, refs, widths)."},
    {"nodes", nodes, METH_VARARGS,
     "Each ProtoFlux node component's (Type index, ID, connectable members), or None: decode it."},
    {NULL, NULL, 0, NULL},
};

BRSON_MODULE(_fieldsc, "validate's per-field loop, compiled.");

PyMODINIT_FUNC PyInit__fieldsc(void) { return PyModule_Create(&module); }
