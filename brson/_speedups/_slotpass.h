/* validate's slot pass, for _fieldsc.c (header-only, one module includes it, where the
 * slot rules begin: it uses that module's includes and readers). */
#ifndef BRSON_SLOTPASS_H
#define BRSON_SLOTPASS_H

/* ---- slots(): the slot rules over a tree's bytes, a verdict per slot ----

   slots(buf, rows, table, shape, members, names, ntypes, flux, referenced)
       -> (verdicts, used, flux, refs, widths, transforms)

   For each slot of `rows` (the compiled slot walk's int64 triples: start, end, parent), whether
   the slot rules can find nothing in it, read from its bytes without decoding it.  A verdict is
   CLEAN (nothing to report), TRANSFORM (only the transform rule must look: a transform that is
   not three or four finite doubles, a zero in a scale, a rotation whose norm is not plainly 1)
   or UNSURE (the Python path decodes the slot and runs every rule on it: anything else, which
   includes every finding and every shape this loop does not read).  For the slots not UNSURE:
   `used` marks each type index a component uses (a byte per index), `flux` lists the
   components whose index `flux` marks (int64 triples: start, end, row), and `refs` the
   (row, slot ID or None, ParentReference or None) of each slot whose ID or link is in
   `referenced` (the IDs some reference names), and `widths` the (row, count) of the int64
   Types and UpdateOrders of each slot that has some (the width rule counts them), and
   `transforms` the elements (int64 triples: start, end, row) of the transform members of
   each TRANSFORM slot, all that it has (what the transform rule reads of it), and of its
   Name member (what the path of a finding reads), in the slot's order.

   The keys come from the caller (ops/validate: the one statement of the rules): `members` the
   slot's member keys with what their Data must be (MEMBER_*), `names` (ID, ParentReference,
   Persistent-ID, Components, Children, Data, Type, UpdateOrder, the suffix of ID keys).  Only
   for a Resonite tree (a Types table of `ntypes` names) without a `$ref` key: pymongo reads
   every value this loop accepts as it reads it (strings as strict UTF-8, booleans 0 or 1, the
   engine's element types, nesting to NEST), so the Python path would decode what it saw. */

#define MEMBER_ANY 0
#define MEMBER_TEXT 1   /* a string or null */
#define MEMBER_BOOL 2
#define MEMBER_INT64 3  /* an integer of Resonite's width for it */
#define MEMBER_VECTOR 4 /* a transform: Data an array of finite doubles */
#define MEMBER_SCALE 5  /* the same, with no zero */
#define MEMBER_QUAT 6   /* four doubles of norm 1 */

#define CLEAN 0
#define TRANSFORM 1
#define UNSURE 2

#define NEST 64
#define KEYS 128
#define NAMES 9

typedef struct {
    const unsigned char *text;
    Py_ssize_t len;
} Name;

enum { N_ID, N_PARENT, N_PERSISTENT, N_COMPONENTS, N_CHILDREN, N_DATA, N_TYPE, N_ORDER, N_SUFFIX };

typedef struct {
    const unsigned char *b;
    Form form;
    Name names[NAMES];
    Name member_keys[16];
    int member_kinds[16];
    int nmembers;
    Py_ssize_t ntypes;
    const unsigned char *flux;
    unsigned char *used;
    PyObject *referenced;
    /* Integers of another width than Resonite's in the slot being read: an int64 Type or
       UpdateOrder (the width rule counts them). */
    Py_ssize_t widths;
} Pass;

typedef struct {
    unsigned char etype;
    Py_ssize_t key, klen, v, vend;
} Item;

/* A growing run of int64 (start, end, row) triples. */
typedef struct {
    int64_t *at;
    Py_ssize_t count, cap;
} Spans;

static int add_span(Spans *s, int64_t start, int64_t end, int64_t row) {
    if (s->count + 3 > s->cap) {
        Py_ssize_t cap = s->cap ? 2 * s->cap : 768;
        int64_t *grown = PyMem_Realloc(s->at, (size_t)cap * sizeof(int64_t));
        if (grown == NULL)
            return -1;
        s->at = grown;
        s->cap = cap;
    }
    s->at[s->count++] = start;
    s->at[s->count++] = end;
    s->at[s->count++] = row;
    return 0;
}

static int same(const unsigned char *b, const Item *it, const Name *n) {
    return it->klen == n->len && memcmp(b + it->key, n->text, (size_t)n->len) == 0;
}

/* A string value's text: 1 when it is strict UTF-8 (as pymongo decodes it), 0 otherwise;
   -1 with an error set. */
static int text_ok(const unsigned char *s, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        if (s[i] >= 0x80) {
            PyObject *u = PyUnicode_DecodeUTF8((const char *)s, n, NULL);
            if (u == NULL) {
                if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
                    PyErr_Clear();
                    return 0;
                }
                return -1;
            }
            Py_DECREF(u);
            return 1;
        }
    }
    return 1;
}

/* The elements of the document [start, end) into items (at most KEYS, keys ASCII and
   distinct, types the engine writes, each value read as pymongo reads it): their count, or
   -2 where the Python path must decide, -1 with an error set. With `deep`, nested documents
   are checked too (to NEST levels, depth counting this one); without, only framed: the
   caller reads or checks each itself (every byte is read once). */
static int items_of(const unsigned char *b, Py_ssize_t start, Py_ssize_t end, int depth,
                    int array, int deep, Item *out);

/* Whether the value at v of type etype is one pymongo reads as this loop assumes: 1 yes,
   0 no, -1 with an error set; *vend its end. */
static int value_ok(const unsigned char *b, int etype, Py_ssize_t v, Py_ssize_t last, int depth,
                    int deep, Py_ssize_t *vend) {
    switch (etype) {
    case 0x01:
    case 0x12:
        *vend = v + 8;
        break;
    case 0x10:
        *vend = v + 4;
        break;
    case 0x0A:
        *vend = v;
        break;
    case 0x08:
        *vend = v + 1;
        if (*vend <= last && b[v] > 1)
            return 0;
        break;
    case 0x02: {
        *vend = value_end(b, etype, v, last);
        if (*vend < 0 || b[*vend - 1] != 0)
            return 0;
        return text_ok(b + v + 4, *vend - v - 5);
    }
    case 0x03:
    case 0x04: {
        *vend = doc_end(b, v, last);
        if (*vend < 0 || depth >= NEST)
            return 0;
        if (!deep)
            return 1;
        int got = items_of(b, v, *vend, depth + 1, etype == 0x04, 1, NULL);
        return got == -1 ? -1 : got >= 0;
    }
    default:
        return 0;
    }
    return *vend <= last;
}

static int items_of(const unsigned char *b, Py_ssize_t start, Py_ssize_t end, int depth,
                    int array, int deep, Item *out) {
    Py_ssize_t pos = start + 4, last = end - 1;
    int count = 0;
    while (pos < last) {
        int etype = b[pos];
        Py_ssize_t key = pos + 1, k = find_nul(b, key, last);
        if (k < 0)
            return -2;
        for (Py_ssize_t i = key; i < k; i++)
            if (b[i] >= 0x80)
                return -2;
        Py_ssize_t vend;
        int ok = value_ok(b, etype, k + 1, last, depth, deep, &vend);
        if (ok < 0)
            return -1;
        if (!ok || vend <= pos)
            return -2;
        if (out != NULL) {
            if (count == KEYS)
                return -2;
            for (int i = 0; i < count; i++)
                if (out[i].klen == k - key && memcmp(b + out[i].key, b + key, (size_t)(k - key)) == 0)
                    return -2; /* pymongo keeps one of them: Python decides */
            out[count] = (Item){(unsigned char)etype, key, k - key, k + 1, vend};
        }
        count++;
        pos = vend;
    }
    return pos == last ? count : -2;
}

/* The nested documents among items checked (items_of without `deep` framed them): 1 when
   all are as pymongo reads them, 0 not, -1 with an error set. */
static int nested_ok(const unsigned char *b, const Item *items, int count, int depth) {
    for (int i = 0; i < count; i++) {
        if (items[i].etype != 0x03 && items[i].etype != 0x04)
            continue;
        int got = items_of(b, items[i].v, items[i].vend, depth + 1, items[i].etype == 0x04, 1, NULL);
        if (got < 0)
            return got == -1 ? -1 : 0;
    }
    return 1;
}

static int is_guid_at(const Pass *p, const Item *it) {
    if (it->etype != 0x02 || it->vend - it->v - 5 != p->form.size)
        return 0;
    const unsigned char *s = p->b + it->v + 4;
    for (Py_ssize_t i = 0; i < p->form.size; i++)
        if (p->form.map[s[i]] != p->form.want[i])
            return 0;
    return 1;
}

static const Item *find(const unsigned char *b, const Item *items, int count, const Name *n) {
    for (int i = 0; i < count; i++)
        if (same(b, &items[i], n))
            return &items[i];
    return NULL;
}

/* A transform's Data: CLEAN when it is `size` finite doubles (no zero for a scale, a norm
   plainly 1 for a rotation), else TRANSFORM. */
static int transform(const Pass *p, const Item *data, int kind) {
    int size = kind == MEMBER_QUAT ? 4 : 3;
    if (data == NULL || data->etype != 0x04)
        return TRANSFORM;
    const unsigned char *b = p->b;
    Py_ssize_t pos = data->v + 4, last = data->vend - 1;
    double sum = 0.0;
    int n = 0;
    while (pos < last) {
        if (b[pos] != 0x01 || n == size)
            return TRANSFORM;
        Py_ssize_t k = find_nul(b, pos + 1, last);
        if (k < 0 || k + 9 > last)
            return TRANSFORM;
        double d = f64(b + k + 1);
        if (!isfinite(d) || (kind == MEMBER_SCALE && d == 0.0))
            return TRANSFORM;
        sum += d * d;
        n++;
        pos = k + 9;
    }
    if (n != size)
        return TRANSFORM;
    /* The rule's tolerance on the norm is 1e-3; float32 rounding leaves ~1e-7. */
    if (kind == MEMBER_QUAT && !(fabs(sum - 1.0) < 1e-6))
        return TRANSFORM;
    return CLEAN;
}

/* A member document {ID: a GUID, Data: ...}: its Data item (NULL when it has none) in *data;
   1, 0 when it is no such member, -1 with an error set. */
static int member(const Pass *p, const Item *it, int depth, const Item **data, Item *items) {
    if (it->etype != 0x03)
        return 0;
    int count = items_of(p->b, it->v, it->vend, depth, 0, 0, items);
    if (count == -1)
        return -1;
    if (count < 0)
        return 0;
    int nested = nested_ok(p->b, items, count, depth);
    if (nested <= 0)
        return nested;
    const Item *id = find(p->b, items, count, &p->names[N_ID]);
    if (id == NULL || !is_guid_at(p, id))
        return 0;
    *data = find(p->b, items, count, &p->names[N_DATA]);
    return 1;
}

/* One component: CLEAN or UNSURE (-1 with an error set); marks its type used and lists it
   when it is a ProtoFlux one. */
static int component(Pass *p, Py_ssize_t start, Py_ssize_t end, int64_t row, Spans *flux) {
    const unsigned char *b = p->b;
    Item top[KEYS], fields[KEYS], inner[KEYS];
    int count = items_of(b, start, end, 2, 0, 0, top);
    if (count == -1)
        return -1;
    if (count < 0)
        return UNSURE;
    const Item *type = find(b, top, count, &p->names[N_TYPE]);
    const Item *data = find(b, top, count, &p->names[N_DATA]);
    if (type == NULL || (type->etype != 0x10 && type->etype != 0x12) || data == NULL ||
        data->etype != 0x03)
        return UNSURE;
    for (int i = 0; i < count; i++) {
        if (&top[i] == data)
            continue;
        int nested = nested_ok(b, &top[i], 1, 2);
        if (nested <= 0)
            return nested < 0 ? -1 : UNSURE;
    }
    int64_t index = type->etype == 0x12 ? i64(b + type->v) : i32(b + type->v);
    if (type->etype == 0x12)
        p->widths++;
    if (index < 0 || index >= p->ntypes)
        return UNSURE;
    int n = items_of(b, data->v, data->vend, 3, 0, 0, fields);
    if (n == -1)
        return -1;
    if (n < 0)
        return UNSURE;
    int has_id = 0;
    const Name *suffix = &p->names[N_SUFFIX];
    for (int i = 0; i < n; i++) {
        const Item *f = &fields[i];
        const Item *held = NULL;
        if (f->etype == 0x03) {
            int got = member(p, f, 4, &held, inner);
            if (got < 0)
                return -1;
            if (!got)
                return UNSURE; /* a document that is no member, or a member ID not a GUID */
            if (same(b, f, &p->names[N_ORDER]) && held != NULL && held->etype == 0x12)
                p->widths++;
            continue;
        }
        int own = same(b, f, &p->names[N_ID]);
        int id_key = own || (f->klen >= suffix->len &&
                             memcmp(b + f->key + f->klen - suffix->len, suffix->text,
                                    (size_t)suffix->len) == 0);
        if (!id_key)
            return UNSURE; /* a field that is not a member */
        if (f->etype == 0x0A && !own)
            continue;
        if (!is_guid_at(p, f))
            return UNSURE;
        has_id |= own;
    }
    if (!has_id)
        return UNSURE;
    p->used[index] = 1;
    if (p->flux[index] && add_span(flux, start, end, row) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return CLEAN;
}

/* The value of a string item as str (NULL with an error set). */
static PyObject *text_of(const unsigned char *b, const Item *it) {
    return PyUnicode_DecodeUTF8((const char *)b + it->v + 4, it->vend - it->v - 5, NULL);
}

/* A string item's text when it is in `referenced`, else None (new reference; NULL with an
   error set). */
static PyObject *referenced_text(const Pass *p, const Item *it) {
    PyObject *text = text_of(p->b, it);
    if (text == NULL)
        return NULL;
    int found = PySet_Contains(p->referenced, text);
    if (found > 0)
        return text;
    Py_DECREF(text);
    if (found < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* Appends (row, the ID or None, the link or None) when either is referenced: 0, -1 error. */
static int note_refs(Pass *p, int64_t row, const Item *id, const Item *link, PyObject *refs) {
    PyObject *values[2] = {NULL, NULL};
    const Item *items[2] = {id, link};
    int result = -1;
    for (int i = 0; i < 2; i++) {
        values[i] = items[i] == NULL ? Py_NewRef(Py_None) : referenced_text(p, items[i]);
        if (values[i] == NULL)
            goto done;
    }
    result = 0;
    if (values[0] != Py_None || values[1] != Py_None) {
        PyObject *entry = Py_BuildValue("(LOO)", (long long)row, values[0], values[1]);
        if (entry == NULL || PyList_Append(refs, entry) < 0)
            result = -1;
        Py_XDECREF(entry);
    }
done:
    Py_XDECREF(values[0]);
    Py_XDECREF(values[1]);
    return result;
}

/* One slot's verdict (-1 with an error set). */
static int slot(Pass *p, Py_ssize_t start, Py_ssize_t end, int64_t row, Spans *flux,
                Spans *moves, PyObject *refs, PyObject *widths) {
    const unsigned char *b = p->b;
    Item own[KEYS], inner[KEYS];
    Py_ssize_t pos = start + 4, last = end - 1;
    Py_ssize_t moved[16][2]; /* the transform members' and the name's element spans */
    int count = 0, verdict = CLEAN, has_name = 0, nmoved = 0;
    const Item *id = NULL, *link = NULL, *components = NULL;
    p->widths = 0;
    /* The slot's own elements; Children is the next rows' (the walk read its items). */
    while (pos < last) {
        int etype = b[pos];
        Py_ssize_t key = pos + 1, k = find_nul(b, key, last), vend;
        if (k < 0 || count == KEYS)
            return UNSURE;
        for (Py_ssize_t i = key; i < k; i++)
            if (b[i] >= 0x80)
                return UNSURE;
        Item it = {(unsigned char)etype, key, k - key, k + 1, -1};
        for (int i = 0; i < count; i++)
            if (own[i].klen == it.klen && memcmp(b + own[i].key, b + key, (size_t)it.klen) == 0)
                return UNSURE;
        if (same(b, &it, &p->names[N_CHILDREN])) {
            if (etype != 0x04)
                return UNSURE;
            vend = doc_end(b, it.v, last);
        } else {
            /* Documents framed only: members and Components are read below, anything else
               checked there whole. */
            int ok = value_ok(b, etype, it.v, last, 1, 0, &vend);
            if (ok < 0)
                return -1;
            if (!ok)
                return UNSURE;
        }
        if (vend < 0 || vend <= pos)
            return UNSURE;
        it.vend = vend;
        own[count++] = it;
        pos = vend;
    }
    if (pos != last)
        return UNSURE;
    for (int i = 0; i < count; i++) {
        const Item *it = &own[i];
        if (same(b, it, &p->names[N_ID])) {
            if (!is_guid_at(p, it))
                return UNSURE;
            id = it;
        } else if (same(b, it, &p->names[N_PARENT]) || same(b, it, &p->names[N_PERSISTENT])) {
            if (it->etype == 0x0A)
                continue;
            if (!is_guid_at(p, it))
                return UNSURE;
            if (same(b, it, &p->names[N_PARENT]))
                link = it;
        } else if (same(b, it, &p->names[N_COMPONENTS])) {
            components = it;
        } else if (!same(b, it, &p->names[N_CHILDREN])) {
            int m = 0;
            for (; m < p->nmembers; m++) {
                if (!same(b, it, &p->member_keys[m]))
                    continue;
                const Item *data = NULL;
                int got = member(p, it, 2, &data, inner);
                if (got < 0)
                    return -1;
                if (!got)
                    return UNSURE;
                int kind = p->member_kinds[m], etype = data ? data->etype : 0x0A;
                if (m == 0) {
                    has_name = 1;
                    moved[nmoved][0] = it->key - 1;
                    moved[nmoved++][1] = it->vend;
                }
                if ((kind == MEMBER_TEXT && etype != 0x02 && etype != 0x0A) ||
                    (kind == MEMBER_BOOL && etype != 0x08) ||
                    (kind == MEMBER_INT64 && etype != 0x12))
                    return UNSURE;
                if (kind >= MEMBER_VECTOR) {
                    moved[nmoved][0] = it->key - 1;
                    moved[nmoved++][1] = it->vend;
                    if (transform(p, data, kind) != CLEAN)
                        verdict = TRANSFORM;
                }
                break;
            }
            if (m == p->nmembers) {
                int nested = nested_ok(b, it, 1, 1);
                if (nested <= 0)
                    return nested < 0 ? -1 : UNSURE;
            }
        }
    }
    if (id == NULL || !has_name || components == NULL || components->etype != 0x03)
        return UNSURE;
    /* Components in the engine's member layout, {ID: a string, Data: an array} (the walk's
       own reading of it, elements.member_data), holding documents. */
    Py_ssize_t cs = components->v, ce = components->vend;
    Item head[KEYS];
    int n = items_of(b, cs, ce, 2, 0, 0, head);
    if (n == -1)
        return -1;
    if (n != 2 || !same(b, &head[0], &p->names[N_ID]) || head[0].etype != 0x02 ||
        !same(b, &head[1], &p->names[N_DATA]) || head[1].etype != 0x04)
        return UNSURE;
    Py_ssize_t listed = flux->count;
    Py_ssize_t at = head[1].v + 4, stop = head[1].vend - 1;
    while (at < stop) {
        Py_ssize_t vs, ve;
        if (doc_item(b, at, stop, &vs, &ve) != 1)
            goto unsure;
        int got = component(p, vs, ve, row, flux);
        if (got < 0)
            return -1;
        if (got != CLEAN)
            goto unsure;
        at = ve;
    }
    if (note_refs(p, row, id, link, refs) < 0)
        return -1;
    if (p->widths) {
        PyObject *entry = Py_BuildValue("(Ln)", (long long)row, p->widths);
        int failed = entry == NULL || PyList_Append(widths, entry) < 0;
        Py_XDECREF(entry);
        if (failed)
            return -1;
    }
    for (int i = 0; verdict == TRANSFORM && i < nmoved; i++) {
        if (add_span(moves, moved[i][0], moved[i][1], row) < 0) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return verdict;
unsure:
    flux->count = listed;
    return UNSURE;
}

static int name_of(PyObject *o, Name *n) {
    if (!PyBytes_Check(o) || PyBytes_GET_SIZE(o) < 1) {
        PyErr_SetString(PyExc_TypeError, "names must be non-empty bytes");
        return 0;
    }
    n->text = (const unsigned char *)PyBytes_AS_STRING(o);
    n->len = PyBytes_GET_SIZE(o);
    return 1;
}

static PyObject *
slots(PyObject *self, PyObject *args)
{
    PyObject *data, *rows, *table, *shape, *members, *names, *flux_mask, *referenced;
    Py_ssize_t ntypes;
    if (!PyArg_ParseTuple(args, "SSSSO!O!nSO!", &data, &rows, &table, &shape, &PyTuple_Type,
                          &members, &PyTuple_Type, &names, &ntypes, &flux_mask, &PySet_Type,
                          &referenced))
        return NULL;
    Pass p;
    if (PyBytes_GET_SIZE(table) != 256 || PyBytes_GET_SIZE(shape) < 1 ||
        PyBytes_GET_SIZE(shape) > GUID_MAX || PyTuple_GET_SIZE(names) != NAMES ||
        PyTuple_GET_SIZE(members) < 1 || PyTuple_GET_SIZE(members) > 16 || ntypes < 0 ||
        PyBytes_GET_SIZE(flux_mask) != ntypes || PyBytes_GET_SIZE(rows) % 24 != 0) {
        PyErr_SetString(PyExc_ValueError, "slots: malformed arguments");
        return NULL;
    }
    p.b = (const unsigned char *)PyBytes_AS_STRING(data);
    p.form.map = (const unsigned char *)PyBytes_AS_STRING(table);
    p.form.want = (const unsigned char *)PyBytes_AS_STRING(shape);
    p.form.size = PyBytes_GET_SIZE(shape);
    for (int i = 0; i < NAMES; i++)
        if (!name_of(PyTuple_GET_ITEM(names, i), &p.names[i]))
            return NULL;
    p.nmembers = (int)PyTuple_GET_SIZE(members);
    for (int i = 0; i < p.nmembers; i++) {
        PyObject *pair = PyTuple_GET_ITEM(members, i);
        int kind;
        PyObject *key;
        if (!PyArg_ParseTuple(pair, "Oi", &key, &kind) || !name_of(key, &p.member_keys[i]))
            return NULL;
        p.member_kinds[i] = kind;
    }
    p.ntypes = ntypes;
    p.flux = (const unsigned char *)PyBytes_AS_STRING(flux_mask);
    p.referenced = referenced;
    Py_ssize_t size = PyBytes_GET_SIZE(data), count = PyBytes_GET_SIZE(rows) / 24;
    PyObject *verdicts = PyBytes_FromStringAndSize(NULL, count);
    PyObject *used = PyBytes_FromStringAndSize(NULL, ntypes);
    PyObject *refs = PyList_New(0), *widths = PyList_New(0);
    PyObject *out = NULL;
    Spans flux = {NULL, 0, 0}, moves = {NULL, 0, 0};
    if (verdicts == NULL || used == NULL || refs == NULL || widths == NULL)
        goto done;
    p.used = (unsigned char *)PyBytes_AS_STRING(used);
    memset(p.used, 0, (size_t)ntypes);
    unsigned char *v = (unsigned char *)PyBytes_AS_STRING(verdicts);
    const char *spans = PyBytes_AS_STRING(rows);
    for (Py_ssize_t row = 0; row < count; row++) {
        int64_t span[3];
        memcpy(span, spans + 24 * row, sizeof span);
        if (span[0] < 0 || span[1] > size ||
            !doc_spans(p.b, (Py_ssize_t)span[0], (Py_ssize_t)span[1])) {
            v[row] = UNSURE;
            continue;
        }
        int got = slot(&p, (Py_ssize_t)span[0], (Py_ssize_t)span[1], row, &flux, &moves, refs,
                       widths);
        if (got < 0)
            goto done;
        v[row] = (unsigned char)got;
    }
    {
        const char *none = "";
        PyObject *listed = PyBytes_FromStringAndSize(flux.at ? (const char *)flux.at : none,
                                                     flux.count * (Py_ssize_t)sizeof(int64_t));
        PyObject *members = PyBytes_FromStringAndSize(moves.at ? (const char *)moves.at : none,
                                                      moves.count * (Py_ssize_t)sizeof(int64_t));
        if (listed != NULL && members != NULL)
            out = PyTuple_Pack(6, verdicts, used, listed, refs, widths, members);
        Py_XDECREF(listed);
        Py_XDECREF(members);
    }
done:
    PyMem_Free(flux.at);
    PyMem_Free(moves.at);
    Py_XDECREF(verdicts);
    Py_XDECREF(used);
    Py_XDECREF(refs);
    Py_XDECREF(widths);
    return out;
}

#endif /* BRSON_SLOTPASS_H */
