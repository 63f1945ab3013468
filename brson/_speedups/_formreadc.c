/* The JSON form read back: its tags replaced and its numbers given their recorded types, in
 * one walk over what json.loads built. The compiled twin of two pure-Python passes,
 * brson/document/jsonform.py's ``_untag`` (each tagged object replaced by its value, each
 * ``{"$document": {...}}`` by what it holds) and brson/document/numberrecord.py's ``restore``
 * (each element's numbers given the types of its ``$numbers`` entry): the same replacements,
 * the same counts, the same element IDs reported in the same order. The tags themselves are
 * read by the Python functions handed in (``from_tag``, ``document_of``: rare, and one
 * statement of their rules), so their errors are the Python path's own.
 *
 * An explicit stack, not recursion (JSON up to the form's nesting limit); each element's
 * number places are held until it closes (its signature applies only when the counts match),
 * then let go. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "_grow.h"

typedef struct {
    PyObject *holder; /* a dict or list of the tree (borrowed: the tree holds it) */
    PyObject *key;    /* the dict's key (borrowed), or NULL for a list */
    Py_ssize_t index; /* the list's index */
    PyObject *value;  /* the number there (borrowed: only its scope's close replaces it) */
} Place;

typedef struct {
    PyObject *ident; /* the element's ID (a new reference), NULL for the numbers outside */
    Py_ssize_t order; /* the element's rank in document order (the report's order) */
    Py_ssize_t first; /* where its places start in the place stack */
} Scope;

typedef struct {
    PyObject *container;
    Py_ssize_t pos; /* PyDict_Next's position, or the list's next index */
    int untag;      /* whether its values' tags are replaced (not inside a tag's value) */
    int element;    /* 1: it opened a scope; 2: it may be an element once its ID is untagged */
} Frame;

typedef struct {
    Place *places;
    Py_ssize_t nplaces, cplaces;
    Scope *scopes;
    Py_ssize_t nscopes, cscopes;
    Frame *frames;
    Py_ssize_t nframes, cframes;
    Py_ssize_t opened;
    int restoring;
    PyObject *root, *elements, *from_tag, *document_of;
    PyObject *id_key, *document_key;
    /* the report: numberrecord.Restored's fields; ids as (order, ID) pairs, sorted at the end */
    Py_ssize_t doubles, widened, unknown, ambiguous;
    PyObject *unknown_ids, *ambiguous_ids;
} Walk;

static int add_place(Walk *w, PyObject *holder, PyObject *key, Py_ssize_t index,
                     PyObject *value) {
    if (grow_array((void **)&w->places, &w->cplaces, w->nplaces + 1, sizeof(Place)) < 0)
        return -1;
    w->places[w->nplaces++] = (Place){holder, key, index, value};
    return 0;
}

/* holder[key] = float(holder[key]). */
static int place_to_double(const Place *p) {
    PyObject *f = PyNumber_Float(p->value);
    if (f == NULL)
        return -1;
    if (p->key) {
        int rc = PyDict_SetItem(p->holder, p->key, f);
        Py_DECREF(f);
        return rc;
    }
    return PyList_SetItem(p->holder, p->index, f);
}

static int report(PyObject *ids, Py_ssize_t order, PyObject *ident) {
    PyObject *pair = Py_BuildValue("(nO)", order, ident);
    if (pair == NULL)
        return -1;
    int rc = PyList_Append(ids, pair);
    Py_DECREF(pair);
    return rc;
}

static int all_of(const char *sig, Py_ssize_t n, char kind) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (sig[i] != kind)
            return 0;
    return 1;
}

/* numberrecord._apply and _unknown for the scope on top, then the scope closed. */
static int close_scope(Walk *w) {
    Scope *s = &w->scopes[w->nscopes - 1];
    Place *places = w->places + s->first;
    Py_ssize_t n = w->nplaces - s->first, ints = 0, i;
    int rc = 0;
    for (i = 0; i < n; i++)
        ints += PyLong_CheckExact(places[i].value);
    PyObject *signature = w->root;
    if (s->ident != NULL) {
        signature = PyDict_GetItemWithError(w->elements, s->ident);
        if (signature == NULL) {
            if (PyErr_Occurred()) {
                rc = -1;
            } else if (ints) { /* an element the record does not know */
                w->unknown += ints;
                rc = report(w->unknown_ids, s->order, s->ident);
            }
            goto done;
        }
    }
    const char *sig = NULL;
    Py_ssize_t len = 0;
    if (signature != Py_None) {
        sig = PyUnicode_AsUTF8AndSize(signature, &len);
        if (sig == NULL) {
            rc = -1;
            goto done;
        }
    }
    if (sig != NULL && len == n) {
        for (i = 0; i < n && rc == 0; i++) {
            PyObject *value = places[i].value;
            if (sig[i] == 'd' && PyLong_CheckExact(value)) {
                rc = place_to_double(&places[i]);
                w->doubles++;
            } else if (sig[i] == 'i' && PyFloat_CheckExact(value)) {
                w->widened++;
            }
        }
    } else if (len > 0 && all_of(sig, len, 'd')) { /* grown or shrunk, but only doubles */
        for (i = 0; i < n && rc == 0; i++) {
            if (PyLong_CheckExact(places[i].value)) {
                rc = place_to_double(&places[i]);
                w->doubles++;
            }
        }
    } else if (len > 0 && all_of(sig, len, 'i')) {
        w->widened += n - ints;
    } else if (ints) {
        w->ambiguous += ints;
        PyObject *name = s->ident;
        if (name == NULL) {
            name = PyUnicode_FromString("(outside elements)");
            if (name == NULL) {
                rc = -1;
                goto done;
            }
            rc = report(w->ambiguous_ids, s->order, name);
            Py_DECREF(name);
        } else {
            rc = report(w->ambiguous_ids, s->order, name);
        }
    }
done:
    w->nplaces = s->first;
    Py_XDECREF(s->ident);
    w->nscopes--;
    return rc;
}

static int open_scope(Walk *w, PyObject *ident) {
    if (grow_array((void **)&w->scopes, &w->cscopes, w->nscopes + 1, sizeof(Scope)) < 0)
        return -1;
    Py_XINCREF(ident);
    w->scopes[w->nscopes++] = (Scope){ident, w->opened++, w->nplaces};
    return 0;
}

/* Replace container[key or index] by a new value; the new value (borrowed) or NULL. */
static PyObject *replace(PyObject *container, PyObject *key, Py_ssize_t index,
                         PyObject *value) {
    if (value == NULL)
        return NULL;
    if (key != NULL) {
        int rc = PyDict_SetItem(container, key, value);
        Py_DECREF(value);
        return rc < 0 ? NULL : value;
    }
    return PyList_SetItem(container, index, value) < 0 ? NULL : value; /* steals value */
}

/* A dict's ID when it makes the dict an element (a string), else NULL (borrowed). */
static PyObject *element_id(Walk *w, PyObject *dict) {
    PyObject *ident = PyDict_GetItemWithError(dict, w->id_key);
    return ident != NULL && PyUnicode_CheckExact(ident) ? ident : NULL;
}

/* Whether value is a tagged object _untag replaces. */
static int tagged(PyObject *value) {
    if (!PyDict_CheckExact(value) || PyDict_GET_SIZE(value) == 0)
        return 0;
    Py_ssize_t pos = 0;
    PyObject *first, *ignored;
    PyDict_Next(value, &pos, &first, &ignored);
    return PyUnicode_Check(first) && PyUnicode_GET_LENGTH(first) > 0 &&
           PyUnicode_READ_CHAR(first, 0) == '$';
}

/* _untag's step for one value of a container: a tagged object replaced by its value (the
 * new value, borrowed), *untag cleared inside a tag's value; the value itself otherwise. */
static PyObject *untag_value(Walk *w, PyObject *container, PyObject *key, Py_ssize_t index,
                             PyObject *value, int *untag) {
    if (!tagged(value))
        return value;
    Py_ssize_t pos = 0;
    PyObject *first, *ignored;
    PyDict_Next(value, &pos, &first, &ignored);
    PyObject *old = value;
    Py_INCREF(old);
    if (PyUnicode_Compare(first, w->document_key) == 0) {
        value = PyObject_CallOneArg(w->document_of, old);
    } else {
        value = PyObject_CallOneArg(w->from_tag, old);
        *untag = 0; /* a tag's value is read as it is */
    }
    value = replace(container, key, index, value);
    Py_DECREF(old);
    return value;
}

/* Enter a dict or list value: an element (a dict whose ID is a string once untagged) opens
 * its scope when restoring, unless it is the top object. A dict whose ID is still tagged
 * opens one too, which its close keeps (the ID became a string) or hands to the enclosing
 * scope (its places stay where they are, in document order). */
static int enter(Walk *w, PyObject *value, int untag, int may_open) {
    Frame frame = {value, 0, untag, 0};
    if (w->restoring && may_open && PyDict_CheckExact(value)) {
        PyObject *ident = element_id(w, value);
        if (ident == NULL && PyErr_Occurred())
            return -1;
        if (ident != NULL) {
            frame.element = 1;
        } else if (untag) {
            PyObject *maybe = PyDict_GetItemWithError(value, w->id_key);
            if (maybe != NULL && tagged(maybe))
                frame.element = 2;
        }
        if (frame.element && open_scope(w, ident) < 0)
            return -1;
    }
    if (grow_array((void **)&w->frames, &w->cframes, w->nframes + 1, sizeof(Frame)) < 0)
        return -1;
    w->frames[w->nframes++] = frame;
    return 0;
}

/* The scope a frame opened, closed as it leaves. */
static int leave(Walk *w, const Frame *f) {
    if (f->element == 2) {
        Scope *s = &w->scopes[w->nscopes - 1];
        PyObject *ident = element_id(w, f->container);
        if (ident == NULL) {
            if (PyErr_Occurred())
                return -1;
            w->nscopes--; /* no element: its places are the enclosing scope's */
            return 0;
        }
        Py_INCREF(ident);
        s->ident = ident;
    }
    return close_scope(w);
}

/* One value of a container: a tag replaced, a number's place noted, a container entered. */
static int visit(Walk *w, Frame *f, PyObject *key, Py_ssize_t index, PyObject *value) {
    PyObject *container = f->container;
    int untag = f->untag;
    if (untag) {
        value = untag_value(w, container, key, index, value, &untag);
        if (value == NULL)
            return -1;
    }
    if (PyLong_CheckExact(value) || PyFloat_CheckExact(value))
        return w->restoring ? add_place(w, container, key, index, value) : 0;
    if (PyDict_CheckExact(value) || PyList_CheckExact(value))
        return enter(w, value, untag, 1);
    return 0;
}

static int walk(Walk *w, PyObject *doc) {
    if (w->restoring && open_scope(w, NULL) < 0)
        return -1;
    if (enter(w, doc, 1, 0) < 0)
        return -1;
    while (w->nframes > 0) {
        Py_ssize_t top = w->nframes - 1;
        PyObject *container = w->frames[top].container, *key, *value;
        int rc = 0;
        /* w->frames may move when a container is entered: indexed, never held */
        if (PyDict_CheckExact(container)) {
            while (rc == 0 && w->nframes == top + 1 &&
                   PyDict_Next(container, &w->frames[top].pos, &key, &value))
                rc = visit(w, &w->frames[top], key, 0, value);
        } else {
            while (rc == 0 && w->nframes == top + 1 &&
                   w->frames[top].pos < PyList_GET_SIZE(container)) {
                Py_ssize_t i = w->frames[top].pos++;
                rc = visit(w, &w->frames[top], NULL, i, PyList_GET_ITEM(container, i));
            }
        }
        if (rc < 0)
            return -1;
        if (w->nframes > top + 1)
            continue; /* a container entered: its items first */
        if (w->frames[top].element && leave(w, &w->frames[top]) < 0)
            return -1;
        w->nframes--;
    }
    if (w->restoring && close_scope(w) < 0)
        return -1;
    return 0;
}

/* The reported IDs in document order. */
static PyObject *ordered(PyObject *pairs) {
    if (PyList_Sort(pairs) < 0)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(pairs);
    PyObject *ids = PyList_New(n);
    if (ids == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *ident = PyTuple_GET_ITEM(PyList_GET_ITEM(pairs, i), 1);
        Py_INCREF(ident);
        PyList_SET_ITEM(ids, i, ident);
    }
    return ids;
}

static PyObject *untag_restore(PyObject *Py_UNUSED(module), PyObject *args) {
    Walk w;
    memset(&w, 0, sizeof w);
    PyObject *doc, *result = NULL;
    if (!PyArg_ParseTuple(args, "O!OOOO:untag_restore", &PyDict_Type, &doc, &w.root,
                          &w.elements, &w.from_tag, &w.document_of))
        return NULL;
    w.restoring = w.root != Py_None;
    if (w.restoring && (!PyUnicode_Check(w.root) || !PyDict_Check(w.elements))) {
        PyErr_SetString(PyExc_TypeError, "root must be a str and elements a dict");
        return NULL;
    }
    w.id_key = PyUnicode_InternFromString("ID");
    w.document_key = PyUnicode_InternFromString("$document");
    w.unknown_ids = PyList_New(0);
    w.ambiguous_ids = PyList_New(0);
    if (w.id_key && w.document_key && w.unknown_ids && w.ambiguous_ids && walk(&w, doc) == 0) {
        if (!w.restoring) {
            result = Py_NewRef(Py_None);
        } else {
            PyObject *unknown_ids = ordered(w.unknown_ids);
            PyObject *ambiguous_ids = unknown_ids ? ordered(w.ambiguous_ids) : NULL;
            if (ambiguous_ids != NULL)
                result = Py_BuildValue("(nnnNnN)", w.doubles, w.widened, w.unknown,
                                       unknown_ids, w.ambiguous, ambiguous_ids);
            else
                Py_XDECREF(unknown_ids);
        }
    }
    while (w.nscopes > 0) { /* after an error: the scopes' IDs let go */
        Py_XDECREF(w.scopes[w.nscopes - 1].ident);
        w.nscopes--;
    }
    Py_XDECREF(w.id_key);
    Py_XDECREF(w.document_key);
    Py_XDECREF(w.unknown_ids);
    Py_XDECREF(w.ambiguous_ids);
    PyMem_Free(w.places);
    PyMem_Free(w.scopes);
    PyMem_Free(w.frames);
    return result;
}

static PyMethodDef methods[] = {
    {"untag_restore", untag_restore, METH_VARARGS,
     "untag_restore(doc, root, elements, from_tag, document_of) -> None | (doubles, widened, "
     "unknown, unknown_ids, ambiguous, ambiguous_ids): doc's tags replaced in place and, "
     "unless root is None, its numbers given the record's types."},
    {NULL, NULL, 0, NULL},
};

BRSON_MODULE(_formreadc, "The JSON form's tags and number types restored in one walk "
                         "(brson/document/jsonform.py).");

PyMODINIT_FUNC PyInit__formreadc(void) { return PyModule_Create(&module); }
