/* What validate's ProtoFlux rules keep of a node component, read from its bytes, for
 * _fieldsc.c (header-only, included after _slotpass.h: it uses that header's readers). */
#ifndef BRSON_FLUXNODES_H
#define BRSON_FLUXNODES_H

/* ---- nodes(): a ProtoFlux node's connectable members, without decoding it ----

   nodes(buf, spans, table, shape, names, mask, referenced) -> list[tuple | None]

   For each component of `spans` (int64 triples: start, end, anything; the slot pass's `flux`
   list), what brson.flux.model.connectable reads of the component decoded: (its Type index,
   its Data's ID, [(member key, the member's ID or None, what it holds or None), ...]), or
   None where the caller must decode it (a Type that is no index `mask` marks, a Data that is
   no document, an ID that is no GUID, or bytes this loop does not read exactly as pymongo
   would).  A member is listed when its ID is a str in `referenced` or it holds a GUID (its
   Data a GUID string) or a list (its Data an array: per item the GUID its Data holds, or
   None).  `names`: the keys ID, Data and Type (from the Python side, the one statement of
   them).  The bytes are read as decode_bytes reads them: strings strict UTF-8, the engine's
   element types, nesting to NEST, keys of a document distinct (an array's are ignored, as
   pymongo ignores them), `$ref` a key like any other. */

#define FLUX_NAMES 3

/* A member's or list item's Data as connectable holds it: a GUID str, else None (new
   reference; NULL with an error set). */
static PyObject *guid_or_none(const Pass *p, const Item *data) {
    if (data != NULL && is_guid_at(p, data))
        return text_of(p->b, data);
    Py_RETURN_NONE;
}

/* The GUIDs an array's items hold (their Data), None for an item that holds none: a new list,
   Py_None when the array is not read exactly (new reference), NULL with an error set. */
static PyObject *held_list(const Pass *p, const Item *array, int depth) {
    const unsigned char *b = p->b;
    Item inner[KEYS];
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    Py_ssize_t pos = array->v + 4, last = array->vend - 1;
    while (pos < last) {
        int etype = b[pos];
        Py_ssize_t k = find_nul(b, pos + 1, last), vend;
        if (k < 0)
            goto unsure;
        int ok = value_ok(b, etype, k + 1, last, depth, 0, &vend);
        if (ok < 0)
            goto fail;
        if (!ok || vend <= pos)
            goto unsure;
        PyObject *held;
        if (etype == 0x03) {
            int count = items_of(b, k + 1, vend, depth + 1, 0, 0, inner);
            if (count == -1)
                goto fail;
            if (count < 0)
                goto unsure;
            held = guid_or_none(p, find(b, inner, count, &p->names[N_DATA]));
        } else {
            held = Py_NewRef(Py_None);
        }
        if (held == NULL)
            goto fail;
        int failed = PyList_Append(out, held);
        Py_DECREF(held);
        if (failed < 0)
            goto fail;
        pos = vend;
    }
    if (pos == last)
        return out;
unsure:
    Py_DECREF(out);
    Py_RETURN_NONE;
fail:
    Py_DECREF(out);
    return NULL;
}

/* One member document's entry (key, ID or None, held or None): a new tuple, Py_None when it
   is not listed or not read exactly (*unsure set), NULL with an error set. */
static PyObject *member_entry(const Pass *p, const Item *field, int *unsure) {
    const unsigned char *b = p->b;
    Item inner[KEYS];
    int count = items_of(b, field->v, field->vend, 4, 0, 0, inner);
    if (count == -1)
        return NULL;
    if (count < 0) {
        *unsure = 1;
        Py_RETURN_NONE;
    }
    PyObject *held = NULL, *out = NULL;
    const Item *id = find(b, inner, count, &p->names[N_ID]);
    PyObject *member_id =
        id != NULL && id->etype == 0x02 ? referenced_text(p, id) : Py_NewRef(Py_None);
    if (member_id == NULL)
        return NULL;
    const Item *data = find(b, inner, count, &p->names[N_DATA]);
    if (data != NULL && data->etype == 0x04) {
        held = held_list(p, data, 5);
        if (held == Py_None)
            *unsure = 1;
    } else {
        held = guid_or_none(p, data);
    }
    if (held == NULL || *unsure || (member_id == Py_None && held == Py_None)) {
        out = held == NULL ? NULL : Py_NewRef(Py_None);
        goto done;
    }
    PyObject *key = PyUnicode_DecodeASCII((const char *)b + field->key, field->klen, NULL);
    if (key != NULL)
        out = PyTuple_Pack(3, key, member_id, held);
    Py_XDECREF(key);
done:
    Py_DECREF(member_id);
    Py_XDECREF(held);
    return out;
}

/* One node component's (index, ID, entries): a new tuple, Py_None when the caller decodes it,
   NULL with an error set. */
static PyObject *node_of(const Pass *p, Py_ssize_t start, Py_ssize_t end) {
    const unsigned char *b = p->b;
    Item top[KEYS], fields[KEYS];
    /* Checked whole (nested documents too): pymongo decodes every byte of it. */
    int count = items_of(b, start, end, 2, 0, 1, top);
    if (count == -1)
        return NULL;
    if (count < 0)
        Py_RETURN_NONE;
    const Item *type = find(b, top, count, &p->names[N_TYPE]);
    const Item *data = find(b, top, count, &p->names[N_DATA]);
    if (type == NULL || (type->etype != 0x10 && type->etype != 0x12) || data == NULL ||
        data->etype != 0x03)
        Py_RETURN_NONE;
    int64_t index = i32(b + type->v);
    if (type->etype == 0x12)
        index = (int64_t)((uint64_t)(uint32_t)index | ((uint64_t)(uint32_t)i32(b + type->v + 4) << 32));
    if (index < 0 || index >= p->ntypes || !p->flux[index])
        Py_RETURN_NONE;
    int n = items_of(b, data->v, data->vend, 3, 0, 0, fields);
    if (n == -1)
        return NULL;
    const Item *id = n < 0 ? NULL : find(b, fields, n, &p->names[N_ID]);
    if (id == NULL || !is_guid_at(p, id))
        Py_RETURN_NONE;
    PyObject *entries = PyList_New(0);
    if (entries == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        if (fields[i].etype != 0x03)
            continue; /* no member: connectable skips it */
        int unsure = 0;
        PyObject *entry = member_entry(p, &fields[i], &unsure);
        if (entry == NULL) {
            Py_DECREF(entries);
            return NULL;
        }
        if (unsure) {
            Py_DECREF(entry);
            Py_DECREF(entries);
            Py_RETURN_NONE;
        }
        int failed = entry != Py_None && PyList_Append(entries, entry) < 0;
        Py_DECREF(entry);
        if (failed) {
            Py_DECREF(entries);
            return NULL;
        }
    }
    PyObject *out = NULL, *node_id = text_of(b, id);
    if (node_id != NULL)
        out = Py_BuildValue("(LOO)", (long long)index, node_id, entries);
    Py_XDECREF(node_id);
    Py_DECREF(entries);
    return out;
}

static PyObject *
nodes(PyObject *self, PyObject *args)
{
    PyObject *data, *spans, *table, *shape, *names, *mask, *referenced;
    if (!PyArg_ParseTuple(args, "SSSSO!SO!", &data, &spans, &table, &shape, &PyTuple_Type, &names,
                          &mask, &PySet_Type, &referenced))
        return NULL;
    if (PyBytes_GET_SIZE(table) != 256 || PyBytes_GET_SIZE(shape) < 1 ||
        PyBytes_GET_SIZE(shape) > GUID_MAX || PyTuple_GET_SIZE(names) != FLUX_NAMES ||
        PyBytes_GET_SIZE(spans) % 24 != 0) {
        PyErr_SetString(PyExc_ValueError, "nodes: malformed arguments");
        return NULL;
    }
    Pass p;
    memset(&p, 0, sizeof p);
    p.b = (const unsigned char *)PyBytes_AS_STRING(data);
    p.form.map = (const unsigned char *)PyBytes_AS_STRING(table);
    p.form.want = (const unsigned char *)PyBytes_AS_STRING(shape);
    p.form.size = PyBytes_GET_SIZE(shape);
    const int slots[FLUX_NAMES] = {N_ID, N_DATA, N_TYPE};
    for (int i = 0; i < FLUX_NAMES; i++)
        if (!name_of(PyTuple_GET_ITEM(names, i), &p.names[slots[i]]))
            return NULL;
    p.ntypes = PyBytes_GET_SIZE(mask);
    p.flux = (const unsigned char *)PyBytes_AS_STRING(mask);
    p.referenced = referenced;
    Py_ssize_t size = PyBytes_GET_SIZE(data), count = PyBytes_GET_SIZE(spans) / 24;
    const char *at = PyBytes_AS_STRING(spans);
    PyObject *out = PyList_New(count);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        int64_t span[3];
        memcpy(span, at + 24 * i, sizeof span);
        PyObject *got;
        if (span[0] < 0 || span[1] > size || span[1] - span[0] < 5 ||
            !doc_spans(p.b, (Py_ssize_t)span[0], (Py_ssize_t)span[1]))
            got = Py_NewRef(Py_None);
        else
            got = node_of(&p, (Py_ssize_t)span[0], (Py_ssize_t)span[1]);
        if (got == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, got);
    }
    return out;
}

#endif /* BRSON_FLUXNODES_H */
