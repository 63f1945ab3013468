/* A whole node of a streamed scene in one call (included by _tscnc.c, after its writers).
 *
 * Why: the streamed export (brson/godot/stream.py) wrote each node's piece from several calls
 * (the transform's twelve numbers, the slot's fields, its components) and Python strings
 * between them (quoting, the header, the metadata lines); on a world of many small slots that
 * Python per node cost more than the text.  Here one call writes the piece its Python reference
 * (StreamedScene.node_text) writes for a slot read through its SlotHead: the header, the
 * transform composed from the head's vectors (the products of model/transform.compose, in its
 * order: the same bits), the visible flag, the mesh lines given, and the metadata lines.  As
 * the rest of this writer: None when not sure (a vector that is not a list of floats, nan/inf,
 * a Components member other than {..., Data: array}, DEL in a string, text that is not UTF-8),
 * and the caller runs the reference. */

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off") /* a fused multiply-add would change the bits */
#endif

/* A str as tscn.quote writes it (json_quote's escapes; DEL: not sure). */
static int put_quoted(Out *o, PyObject *text) {
    if (!PyUnicode_Check(text))
        return UNSURE;
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    if (s == NULL) {
        PyErr_Clear();
        return UNSURE;
    }
    return put_string(o, (const unsigned char *)s, n);
}

/* One of the head's vectors (position, rotation, scale) as slothead.head_vectors takes it: None
 * is the identity's, else a list of n floats (what _tscnc.head reads); anything else is the
 * reference's to judge. */
static int head_vector(PyObject *value, Py_ssize_t n, const double *identity, double *out) {
    if (value == Py_None) {
        memcpy(out, identity, (size_t)n * sizeof *out);
        return 0;
    }
    if (!PyList_CheckExact(value) || PyList_GET_SIZE(value) != n)
        return UNSURE;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PyList_GET_ITEM(value, k);
        if (!PyFloat_CheckExact(item))
            return UNSURE;
        out[k] = PyFloat_AS_DOUBLE(item);
    }
    return 0;
}

/* transform.compose's T * R * S (rotation_matrix's products in its order), as the twelve numbers
 * SceneText.transform writes: the basis rows, then the origin. */
static void compose(const double *p, const double *q, const double *s, double *m) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double n = x * x + y * y + z * z + w * w;
    double r[9] = {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
    if (n != 0.0) {
        double f = 2.0 / n;
        double xx = x * x * f, yy = y * y * f, zz = z * z * f;
        double xy = x * y * f, xz = x * z * f, yz = y * z * f;
        double wx = w * x * f, wy = w * y * f, wz = w * z * f;
        double rot[9] = {1.0 - (yy + zz), xy - wz,         xz + wy,
                         xy + wz,         1.0 - (xx + zz), yz - wx,
                         xz - wy,         yz + wx,         1.0 - (xx + yy)};
        memcpy(r, rot, sizeof r);
    }
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 3; col++)
            m[row * 3 + col] = r[row * 3 + col] * s[col];
    m[9] = p[0];
    m[10] = p[1];
    m[11] = p[2];
}

/* tscn.real of each number, joined by ", " (py_reals' rule: repr, an integral value without
 * its ".0"). */
static int put_reals(Out *o, const double *numbers, int count) {
    for (int k = 0; k < count; k++) {
        if (k > 0 && out_put(o, ", ", 2) < 0)
            return -1;
        int rc = put_double(o, numbers[k]);
        if (rc != 0)
            return rc;
        if (o->b.len >= 2 && o->b.p[o->b.len - 2] == '.' && o->b.p[o->b.len - 1] == '0')
            o->b.len -= 2;
    }
    return 0;
}

/* The first element named key (klen bytes) of the document [start, end): 1 found (its type,
 * value span), 0 absent, 2 for framing element_at refuses.  (Duplicate keys: the writers
 * called after it refuse them.) */
static int find_key(const unsigned char *b, Py_ssize_t start, Py_ssize_t end, const char *key,
                    Py_ssize_t klen, int *etype, Py_ssize_t *vs, Py_ssize_t *ve) {
    Py_ssize_t pos = start + 4, stop = end - 1, kl;
    while (pos < stop) {
        if (element_at(b, pos, stop, &kl, vs, ve) != 0)
            return 2;
        if (kl == klen && memcmp(b + pos + 1, key, (size_t)klen) == 0) {
            *etype = b[pos];
            return 1;
        }
        pos = *ve;
    }
    return 0;
}

/* One metadata entry: Godot 3's "\"key\": " inside __meta__ (after ",\n" but for the first),
 * Godot 4's "\nmetadata/key = " line. */
static int put_meta_key(Out *o, const char *key, int first) {
    Py_ssize_t n = (Py_ssize_t)strlen(key);
    if (o->godot3)
        return (first ? 0 : out_put(o, ",\n", 2)) < 0 || out_put(o, "\"", 1) < 0 ||
                       out_put(o, key, n) < 0 || out_put(o, "\": ", 3) < 0
                   ? -1
                   : 0;
    return out_put(o, "\nmetadata/", 10) < 0 || out_put(o, key, n) < 0 ||
                   out_put(o, " = ", 3) < 0
               ? -1
               : 0;
}

#define TRY(call)                                                                              \
    do {                                                                                       \
        int rc_ = (call);                                                                      \
        if (rc_ != 0)                                                                          \
            return rc_;                                                                        \
    } while (0)

/* The metadata lines of export.metadata_lines_at (keys in sorted order), after a newline. */
static int put_node_metadata(Out *o, const unsigned char *b, Py_ssize_t start, Py_ssize_t end,
                             PyObject *types, PyObject *head) {
    int etype;
    Py_ssize_t ms, me, ds, de;
    /* stream._metadata: Components a document whose Data is an array, else the reference */
    if (find_key(b, start, end, "Components", 10, &etype, &ms, &me) != 1 || etype != 0x03 ||
        !doc_spans(b, ms, me) || find_key(b, ms, me, "Data", 4, &etype, &ds, &de) != 1 ||
        etype != 0x04 || types == Py_None || !PyTuple_CheckExact(types))
        return UNSURE;
    PyObject *id = PyTuple_GET_ITEM(head, 0), *name = PyTuple_GET_ITEM(head, 1),
             *tag = PyTuple_GET_ITEM(head, 2);
    if (id != Py_None && !PyUnicode_Check(id))
        return UNSURE;
    if (o->godot3)
        TRY(out_put(o, "\n__meta__ = {\n", 14));
    TRY(put_meta_key(o, "resonite_components", 1));
    TRY(put_components(o, b, ds, de, types));
    if (id != Py_None) {
        TRY(put_meta_key(o, "resonite_id", 0));
        TRY(put_quoted(o, id));
    }
    if (PyUnicode_Check(name)) {
        TRY(put_meta_key(o, "resonite_name", 0));
        TRY(put_quoted(o, name));
    }
    TRY(put_meta_key(o, "resonite_slot", 0));
    TRY(put_container(o, b, start, end, 0, 0, "Children", "Data"));
    if (PyUnicode_Check(tag)) {
        TRY(put_meta_key(o, "resonite_tag", 0));
        TRY(put_quoted(o, tag));
    }
    return o->godot3 ? out_put(o, "\n}", 2) : 0;
}

static const double IDENTITY_POSITION[3] = {0.0, 0.0, 0.0};
static const double IDENTITY_ROTATION[4] = {0.0, 0.0, 0.0, 1.0};
static const double IDENTITY_SCALE[3] = {1.0, 1.0, 1.0};

static int put_node(Out *o, const unsigned char *b, Py_ssize_t start, Py_ssize_t end,
                    PyObject *types, PyObject *head, PyObject *name, PyObject *parent,
                    PyObject *kind, PyObject *extra, int last) {
    double p[3], q[4], s[3], m[12];
    if (PyTuple_GET_SIZE(head) != 8 || !doc_spans(b, start, end))
        return UNSURE;
    TRY(head_vector(PyTuple_GET_ITEM(head, 4), 3, IDENTITY_POSITION, p));
    TRY(head_vector(PyTuple_GET_ITEM(head, 5), 4, IDENTITY_ROTATION, q));
    TRY(head_vector(PyTuple_GET_ITEM(head, 6), 3, IDENTITY_SCALE, s));
    compose(p, q, s, m);
    /* tscn.node_header */
    TRY(out_put(o, "[node name=", 11));
    TRY(put_quoted(o, name));
    TRY(out_put(o, " type=", 6));
    TRY(put_quoted(o, kind));
    TRY(out_put(o, " parent=", 8));
    TRY(put_quoted(o, parent));
    TRY(out_put(o, "]\ntransform = ", 14));
    TRY(o->godot3 ? out_put(o, "Transform( ", 11) : out_put(o, "Transform3D(", 12));
    TRY(put_reals(o, m, 12));
    TRY(o->godot3 ? out_put(o, " )", 2) : out_put(o, ")", 1));
    if (PyTuple_GET_ITEM(head, 3) == Py_False)
        TRY(out_put(o, "\nvisible = false", 16));
    if (extra != Py_None) {
        Py_ssize_t n;
        const char *text = PyUnicode_Check(extra) ? PyUnicode_AsUTF8AndSize(extra, &n) : NULL;
        if (text == NULL) {
            PyErr_Clear();
            return UNSURE;
        }
        TRY(out_put(o, "\n", 1));
        TRY(out_put(o, text, n));
    }
    TRY(put_node_metadata(o, b, start, end, types, head));
    return last ? out_put(o, "\n", 1) : out_put(o, "\n\n", 2);
}

#undef TRY

/* node(buf, start, end, godot, types, head, name, parent, kind, extra, last): see put_node. */
static PyObject *py_node(PyObject *self, PyObject *args) {
    Py_buffer view;
    int godot, last;
    Py_ssize_t start, end;
    PyObject *types, *head, *name, *parent, *kind, *extra;
    Out o = {{NULL, 0, 0}, 0};
    if (!PyArg_ParseTuple(args, "y*nniOO!UUUOp:node", &view, &start, &end, &godot, &types,
                          &PyTuple_Type, &head, &name, &parent, &kind, &extra, &last))
        return NULL;
    if (version(godot, &o) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int rc = span_ok(&view, start, end) ? put_node(&o, view.buf, start, end, types, head, name,
                                                   parent, kind, extra, last)
                                        : UNSURE;
    PyBuffer_Release(&view);
    return finish(&o, rc);
}
