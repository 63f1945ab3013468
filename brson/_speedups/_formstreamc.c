/* The JSON form read straight into BSON: one pass over the text, no Python object per value.
 *
 * The compiled twin of what from-json does on its pure-Python path
 * (brson/document/formstream.py: ``json.loads``, the form's tags replaced, the ``$numbers``
 * record applied, ``bson.encode``). The BSON goes into one growable bytes object (each
 * document's length written when it closes); each number's BSON type is chosen as it is
 * written, from the record's signature of the element it belongs to, which is read first from
 * the end of the text (to-json writes the record last). The input may be a read-only file
 * mapping: then the pages already read are handed back to the kernel as the pass goes, so
 * the text is never resident whole.
 *
 * Whatever it is not sure of, it leaves to the Python path by answering None: any syntax or
 * encoding error, duplicate keys, lone surrogates, NUL in a string, NaN/Infinity literals,
 * integers past int64, floats past the double range, tags other than the form's own spelled
 * the form's way, nesting past MAX_NESTING, a record missing, malformed or not last, an ID
 * key after other numbers of its object, and an element whose number count changed in a way
 * its record cannot type without undoing what was written. So every refusal and its message
 * are the Python path's own. */
#include "_formtext.h"

/* ---- scopes (numberrecord's elements) ------------------------------------------------ */

static int open_scope(State *s, Py_ssize_t id, Py_ssize_t idlen, int root) {
    if (grow_array((void **)&s->scopes, &s->cscopes, s->nscopes + 1, sizeof(Scope)) < 0)
        return -1;
    Scope sc;
    memset(&sc, 0, sizeof sc);
    sc.order = s->opened++;
    sc.id = id;
    sc.idlen = idlen;
    if (root) {
        sc.known = 1;
        sc.sig = s->rec.root;
        sc.siglen = s->rec.rootlen;
    } else {
        uint64_t h = hash_bytes(s->buf + id, idlen);
        Entry *e = record_find(&s->rec, s->buf + id, idlen, h);
        if (e != NULL && e->hash) {
            sc.known = 1;
            if (e->sig >= 0) {
                sc.sig = s->rec.arena + e->sig;
                sc.siglen = e->siglen;
            }
        }
    }
    if (sc.sig != NULL && sc.siglen > 0) {
        sc.all_d = sc.all_i = 1;
        for (Py_ssize_t i = 0; i < sc.siglen; i++) {
            sc.all_d &= sc.sig[i] == 'd';
            sc.all_i &= sc.sig[i] == 'i';
        }
    }
    s->scopes[s->nscopes++] = sc;
    return 0;
}

static int report(State *s, PyObject *ids, Py_ssize_t order, Py_ssize_t id, Py_ssize_t idlen) {
    PyObject *name = id < 0 ? PyUnicode_FromString("(outside elements)")
                            : PyUnicode_DecodeUTF8(s->buf + id, idlen, "strict");
    if (name == NULL)
        return -1;
    PyObject *pair = Py_BuildValue("(nN)", order, name);
    if (pair == NULL)
        return -1;
    int rc = PyList_Append(ids, pair);
    Py_DECREF(pair);
    return rc;
}

/* numberrecord._apply / _unknown for the scope on top, which closes. */
static int close_scope(State *s) {
    Scope *sc = &s->scopes[--s->nscopes];
    if (!sc->known)
        return sc->ints ? (s->unknown += sc->ints, report(s, s->unknown_ids, sc->order, sc->id,
                                                           sc->idlen))
                        : 0;
    if (sc->sig != NULL && sc->siglen == sc->n) {
        s->doubles += sc->converted;
        s->widened += sc->widen;
    } else if (sc->all_d) {
        s->doubles += sc->converted;
    } else if (sc->all_i) {
        s->widened += sc->n - sc->ints;
    } else if (sc->converted) {
        return UNSURE; /* typed by position, but the count changed: the Python path decides */
    } else if (sc->ints) {
        s->ambiguous += sc->ints;
        return report(s, s->ambiguous_ids, sc->order, sc->id, sc->idlen);
    }
    return 0;
}

/* ---- values -------------------------------------------------------------------------- */

/* The element's type byte and key: an array index, or the key already in the output. */
static int array_key(State *s, Frame *f) {
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%zd", f->count);
    int rc = emit_byte(s, 0);
    if (!rc)
        rc = emit(s, digits, n + 1);
    return rc;
}

static int write_number(State *s, Py_ssize_t type_at, Number *num) {
    Frame *f = &s->frames[s->nframes - 1];
    Scope *sc = &s->scopes[f->scope];
    Py_ssize_t i = sc->n++;
    char kind = 'i';
    if (sc->known && sc->sig != NULL) {
        if (i < sc->siglen)
            kind = sc->sig[i];
        else if (sc->all_d)
            kind = 'd';
    }
    int rc;
    if (num->is_float) {
        if (kind == 'i' && i < sc->siglen)
            sc->widen++;
    } else {
        sc->ints++;
        if (kind == 'd') {
            sc->converted++;
            num->is_float = 1;
            num->d = (double)num->i;
        }
    }
    if (num->is_float) {
        uint64_t bits;
        memcpy(&bits, &num->d, 8);
        s->buf[type_at] = 0x01;
        if ((rc = reserve(s, 8)))
            return rc;
        put_u64(s->buf + s->len, bits);
        s->len += 8;
    } else if (num->i >= INT32_MIN && num->i <= INT32_MAX) {
        s->buf[type_at] = 0x10;
        if ((rc = reserve(s, 4)))
            return rc;
        put_i32(s->buf + s->len, (int32_t)num->i);
        s->len += 4;
    } else {
        s->buf[type_at] = 0x12;
        if ((rc = reserve(s, 8)))
            return rc;
        put_u64(s->buf + s->len, (uint64_t)num->i);
        s->len += 8;
    }
    return 0;
}

static int push_frame(State *s, int kind, int may_be_element) {
    if (s->nframes >= MAX_NESTING)
        return UNSURE;
    if (grow_array((void **)&s->frames, &s->cframes, s->nframes + 1, sizeof(Frame)) < 0)
        return -1;
    Frame f;
    memset(&f, 0, sizeof f);
    f.kind = kind;
    f.keys = s->nkeys;
    f.scope = s->nframes ? s->frames[s->nframes - 1].scope : 0;
    f.may_be_element = may_be_element;
    f.places_at_open = s->scopes[f.scope].n;
    f.opened_at_open = s->opened;
    s->frames[s->nframes++] = f;
    return 0;
}

/* A document opens: its length goes in when it closes. */
static int open_document(State *s, int kind, int may_be_element) {
    int rc = push_frame(s, kind, may_be_element);
    if (rc)
        return rc;
    s->frames[s->nframes - 1].start = s->len;
    return emit(s, "\0\0\0\0", 4);
}

static int close_document(State *s) {
    Frame *f = &s->frames[s->nframes - 1];
    int rc = emit_byte(s, 0);
    if (rc)
        return rc;
    put_i32(s->buf + f->start, (int32_t)(s->len - f->start));
    if (f->owns_scope && (rc = close_scope(s)))
        return rc;
    PyMem_Free(f->set);
    s->nkeys = f->keys;
    s->nframes--;
    return 0;
}

static int set_insert(State *s, Frame *f, Py_ssize_t key_at) {
    const char *key = s->buf + key_at;
    uint64_t h = hash_bytes(key, (Py_ssize_t)strlen(key));
    Py_ssize_t mask = f->setcap - 1, i = (Py_ssize_t)(h & (uint64_t)mask);
    while (f->set[i]) {
        if (strcmp(s->buf + f->set[i] - 1, key) == 0)
            return UNSURE;
        i = (i + 1) & mask;
    }
    f->set[i] = key_at + 1;
    return 0;
}

/* The key just written at key_at (NUL-terminated in the output) is new in its object. */
static int check_key(State *s, Frame *f, Py_ssize_t key_at) {
    Py_ssize_t count = s->nkeys - f->keys;
    int rc;
    if (count < LINEAR_KEYS) {
        for (Py_ssize_t i = f->keys; i < s->nkeys; i++)
            if (strcmp(s->buf + s->keys[i], s->buf + key_at) == 0)
                return UNSURE;
    } else {
        if ((count + 1) * 2 > f->setcap) { /* (re)built from every key of the object */
            PyMem_Free(f->set);
            f->setcap = f->setcap ? f->setcap * 2 : 4 * LINEAR_KEYS;
            f->set = PyMem_Calloc((size_t)f->setcap, sizeof(Py_ssize_t));
            if (f->set == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            for (Py_ssize_t i = f->keys; i < s->nkeys; i++)
                set_insert(s, f, s->keys[i]);
        }
        if ((rc = set_insert(s, f, key_at)))
            return rc;
    }
    if (grow_array((void **)&s->keys, &s->ckeys, s->nkeys + 1, sizeof(Py_ssize_t)) < 0)
        return -1;
    s->keys[s->nkeys++] = key_at;
    return 0;
}

/* {"$numberLong": "..."} after its key: an int64. */
static int tag_long(State *s, Py_ssize_t type_at) {
    Py_ssize_t at, n;
    int rc;
    if ((rc = expect(s, ':')))
        return rc;
    skip_ws(s);
    if ((rc = scratch_string(s, &at, &n)) || (rc = expect(s, '}')))
        return rc;
    const char *d = s->buf + at;
    int neg = n > 0 && d[0] == '-';
    Py_ssize_t nd = n - neg;
    if (nd < 1 || nd > 19)
        return UNSURE;
    uint64_t mag = 0;
    for (Py_ssize_t i = neg; i < n; i++) {
        if (d[i] < '0' || d[i] > '9')
            return UNSURE;
        mag = mag * 10 + (uint64_t)(d[i] - '0');
    }
    if (nd == 19 && mag > (neg ? (1ULL << 63) : (1ULL << 63) - 1))
        return UNSURE;
    s->buf[type_at] = 0x12;
    if ((rc = reserve(s, 8)))
        return rc;
    put_u64(s->buf + s->len, neg ? 0 - mag : mag);
    s->len += 8;
    return 0;
}

/* {"$numberDouble": "NaN" | "Infinity" | "-Infinity"[, "$bits": "16 hex digits"]}: a double,
 * one of its element's numbers. */
static int tag_double(State *s, Py_ssize_t type_at) {
    Py_ssize_t at, n;
    int rc;
    uint64_t bits;
    if ((rc = expect(s, ':')))
        return rc;
    skip_ws(s);
    if ((rc = scratch_string(s, &at, &n)))
        return rc;
    const char *v = s->buf + at;
    if (n == 3 && memcmp(v, "NaN", 3) == 0)
        bits = 0x7ff8000000000000ULL;
    else if (n == 8 && memcmp(v, "Infinity", 8) == 0)
        bits = 0x7ff0000000000000ULL;
    else if (n == 9 && memcmp(v, "-Infinity", 9) == 0)
        bits = 0xfff0000000000000ULL;
    else
        return UNSURE;
    skip_ws(s);
    if (s->p < s->end && *s->p == ',') {
        s->p++;
        skip_ws(s);
        if ((rc = scratch_string(s, &at, &n)))
            return rc;
        if (n != 5 || memcmp(s->buf + at, "$bits", 5) != 0 || (rc = expect(s, ':')))
            return UNSURE;
        skip_ws(s);
        if ((rc = scratch_string(s, &at, &n)))
            return rc;
        if (n != 16)
            return UNSURE;
        bits = 0;
        for (int i = 0; i < 16; i++) {
            int h = hexval(s->buf[at + i]);
            if (h < 0)
                return UNSURE;
            bits = bits << 4 | (uint64_t)h;
        }
    }
    if ((rc = expect(s, '}')))
        return rc;
    Number num = {1, 0.0, 0};
    memcpy(&num.d, &bits, 8);
    return write_number(s, type_at, &num);
}

/* A value whose element header (type byte at type_at, then its key) is written. Containers
 * are opened (pushed) and left for the main loop. */
static int value(State *s, Py_ssize_t type_at) {
    skip_ws(s);
    if (s->p >= s->end)
        return UNSURE;
    char c = *s->p;
    int rc;
    if (c == '"') {
        s->buf[type_at] = 0x02;
        Py_ssize_t len_at = s->len;
        if ((rc = emit(s, "\0\0\0\0", 4)) || (rc = read_string(s)) || (rc = emit_byte(s, 0)))
            return rc;
        put_i32(s->buf + len_at, (int32_t)(s->len - len_at - 4));
        return 0;
    }
    if (c == '{') {
        s->p++;
        skip_ws(s);
        if (s->p + 1 < s->end && *s->p == '"' && s->p[1] == '\\')
            return UNSURE; /* an escaped first key may spell a tag: the Python path reads it */
        if (s->p + 1 < s->end && *s->p == '"' && s->p[1] == '$') {
            Py_ssize_t at, n;
            if ((rc = scratch_string(s, &at, &n)))
                return rc;
            const char *k = s->buf + at;
            if (n == 11 && memcmp(k, "$numberLong", 11) == 0)
                return tag_long(s, type_at);
            if (n == 13 && memcmp(k, "$numberDouble", 13) == 0)
                return tag_double(s, type_at);
            if (n != 9 || memcmp(k, "$document", 9) != 0 || (rc = expect(s, ':')) ||
                (rc = expect(s, '{')))
                return UNSURE;
            s->buf[type_at] = 0x03;
            if ((rc = push_frame(s, 'w', 0)))
                return rc;
            return open_document(s, 'o', 1);
        }
        s->buf[type_at] = 0x03;
        return open_document(s, 'o', 1);
    }
    if (c == '[') {
        s->p++;
        s->buf[type_at] = 0x04;
        return open_document(s, 'a', 0);
    }
    if (c == 't' || c == 'f') {
        s->buf[type_at] = 0x08;
        if ((rc = literal(s, c == 't' ? "true" : "false")))
            return rc;
        return emit_byte(s, c == 't' ? 1 : 0);
    }
    if (c == 'n') {
        s->buf[type_at] = 0x0A;
        return literal(s, "null");
    }
    Number num;
    if ((rc = read_number(s, &num)))
        return rc;
    return write_number(s, type_at, &num);
}

/* An object's key and its value; the "ID" of an element opens its scope. */
static int member(State *s) {
    Py_ssize_t type_at = s->len;
    int rc = emit_byte(s, 0);
    if (rc)
        return rc;
    Py_ssize_t key_at = s->len;
    skip_ws(s);
    const char *key_text = s->p;
    if ((rc = read_string(s)))
        return rc;
    if (memchr(s->buf + key_at, 0, (size_t)(s->len - key_at)) != NULL)
        return UNSURE;
    if ((rc = emit_byte(s, 0)))
        return rc;
    Frame *f = &s->frames[s->nframes - 1];
    if (s->nframes == 1) { /* the top object: the record, "_id" (pymongo moves it first), a
                            * second "$container" */
        if (key_text - s->base == s->record_at) {
            s->len = type_at;
            s->p = s->base + s->record_end;
            return 1;
        }
        const char *k = s->buf + key_at;
        if (strcmp(k, "$numbers") == 0 || strcmp(k, "_id") == 0 ||
            (s->container_at >= 0 && strcmp(k, "$container") == 0))
            return UNSURE; /* json.loads keeps a repeated key's last value at its first place */
    }
    if ((rc = check_key(s, f, key_at)) || (rc = expect(s, ':')))
        return rc;
    f = &s->frames[s->nframes - 1];
    skip_ws(s);
    if (f->may_be_element && !f->owns_scope && s->len - key_at == 3 &&
        memcmp(s->buf + key_at, "ID", 2) == 0 && s->p < s->end && *s->p == '"') {
        if (s->scopes[f->scope].n != f->places_at_open || s->opened != f->opened_at_open)
            return UNSURE; /* numbers before the ID: their scope was not known */
        if ((rc = value(s, type_at)))
            return rc;
        f = &s->frames[s->nframes - 1];
        Py_ssize_t id = key_at + 3 + 4;
        if ((rc = open_scope(s, id, s->len - 1 - id, 0)))
            return rc;
        f->owns_scope = 1;
        f->scope = s->nscopes - 1;
        return 0;
    }
    return value(s, type_at);
}

/* The top object's "$container" value, a flat object of strings: its text's span, for the
 * Python side to read. */
static int container(State *s) {
    Py_ssize_t at, n;
    int rc;
    if ((rc = expect(s, ':')))
        return rc;
    skip_ws(s);
    s->container_at = s->p - s->base;
    if ((rc = expect(s, '{')))
        return rc;
    skip_ws(s);
    if (s->p < s->end && *s->p == '}') {
        s->p++;
    } else {
        for (;;) {
            skip_ws(s);
            if ((rc = scratch_string(s, &at, &n)) || (rc = expect(s, ':')))
                return rc;
            skip_ws(s);
            if ((rc = scratch_string(s, &at, &n)))
                return rc;
            skip_ws(s);
            if (s->p < s->end && *s->p == ',') {
                s->p++;
                continue;
            }
            if ((rc = expect(s, '}')))
                return rc;
            break;
        }
    }
    s->container_end = s->p - s->base;
    return 0;
}

/* The whole text: the top object, a "$container" first, the document or its $document
 * wrapper, the record at record_at; then only whitespace. */
static int read_form(State *s) {
    int rc;
    if ((rc = open_scope(s, -1, 0, 1)) || (rc = expect(s, '{')))
        return rc;
    skip_ws(s);
    int wrapped = 0;
    if (s->p < s->end && *s->p == '"') {
        const char *key_start = s->p;
        Py_ssize_t at, n;
        if ((rc = scratch_string(s, &at, &n)))
            return rc;
        if (n == 10 && memcmp(s->buf + at, "$container", 10) == 0) {
            if ((rc = container(s)))
                return rc;
            skip_ws(s);
            if (s->p < s->end && *s->p == ',')
                s->p++;
            else if (s->p < s->end && *s->p == '}')
                return UNSURE; /* no record */
            skip_ws(s);
            key_start = s->p;
            if ((rc = scratch_string(s, &at, &n)))
                return rc;
        }
        if (n == 9 && memcmp(s->buf + at, "$document", 9) == 0) {
            if ((rc = expect(s, ':')) || (rc = expect(s, '{')))
                return rc;
            wrapped = 1;
        } else {
            if (n > 0 && s->buf[at] == '$' && key_start - s->base != s->record_at)
                return UNSURE; /* a tag for the whole document */
            s->p = key_start;
        }
    }
    if ((rc = open_document(s, 'o', 0)))
        return rc;
    int first = 1;
    for (;;) { /* one item, or one container's end, a turn */
        Frame *f = &s->frames[s->nframes - 1];
        release_read(s);
        skip_ws(s);
        if (s->p >= s->end)
            return UNSURE;
        char c = *s->p;
        char closer = f->kind == 'a' ? ']' : '}';
        if (c == closer && first) {
            s->p++;
        } else if (!first && c == closer) {
            s->p++;
        } else {
            if (!first) {
                if (c != ',')
                    return UNSURE;
                s->p++;
            }
            Py_ssize_t before = s->nframes;
            if (f->kind == 'a') {
                Py_ssize_t type_at = s->len;
                if ((rc = array_key(s, f)) || (rc = value(s, type_at)))
                    return rc;
                s->frames[before - 1].count++;
            } else {
                rc = member(s);
                if (rc < 0)
                    return rc;
                if (rc == 1) { /* the record: the top object ends there */
                    if (s->nframes != 1 || wrapped)
                        return UNSURE;
                    break;
                }
                s->frames[before - 1].count++;
            }
            first = s->nframes == before ? 0 : 1;
            continue;
        }
        /* the container closes */
        if (s->nframes == 1) {
            if (!wrapped)
                return UNSURE; /* the top object ended before the record */
            skip_ws(s);
            if (s->p < s->end && *s->p == ',') {
                s->p++;
                skip_ws(s);
                if (s->p - s->base != s->record_at)
                    return UNSURE;
                s->p = s->base + s->record_end;
                break;
            }
            return UNSURE; /* the wrapper's end and no record */
        }
        if ((rc = close_document(s)))
            return rc;
        if (s->frames[s->nframes - 1].kind == 'w') { /* the wrapper holds nothing else */
            if ((rc = expect(s, '}')))
                return rc;
            s->nframes--;
        }
        first = 0;
    }
    /* the top document ends; its record was read; the text's end was checked with it */
    if ((rc = close_document(s)))
        return rc;
    if (s->nscopes != 1)
        return UNSURE;
    return close_scope(s);
}

static PyObject *read_text(PyObject *Py_UNUSED(module), PyObject *args) {
    Py_buffer view;
    int release = 0;
    if (!PyArg_ParseTuple(args, "y*|p:read", &view, &release))
        return NULL;
    State s;
    memset(&s, 0, sizeof s);
    s.base = s.p = view.buf;
    s.end = s.base + view.len;
    s.release = release;
    s.record_at = s.container_at = -1;
    PyObject *result = NULL;
    int rc = UNSURE;
    s.cap = 1 << 16;
    s.out = PyBytes_FromStringAndSize(NULL, s.cap);
    s.unknown_ids = PyList_New(0);
    s.ambiguous_ids = PyList_New(0);
    if (s.out != NULL && s.unknown_ids != NULL && s.ambiguous_ids != NULL) {
        s.buf = PyBytes_AS_STRING(s.out);
        /* json.loads reads UTF-16 and -32 too, and skips a UTF-8 BOM: those go to it */
        if (view.len >= 4 && s.base[0] != 0 && s.base[1] != 0 && (rc = read_record(&s)) == 0)
            rc = read_form(&s);
    }
    if (rc == 0 && _PyBytes_Resize(&s.out, s.len) == 0) {
        PyObject *span = s.container_at < 0 ? Py_NewRef(Py_None)
                                            : Py_BuildValue("(nn)", s.container_at,
                                                            s.container_end);
        if (span != NULL)
            result = Py_BuildValue("(ON(nnnOnO))", s.out, span, s.doubles, s.widened,
                                   s.unknown, s.unknown_ids, s.ambiguous, s.ambiguous_ids);
    } else if (rc == UNSURE) {
        PyErr_Clear();
        result = Py_NewRef(Py_None);
    }
    for (Py_ssize_t i = 0; i < s.nframes; i++)
        PyMem_Free(s.frames[i].set);
    Py_XDECREF(s.out);
    Py_XDECREF(s.unknown_ids);
    Py_XDECREF(s.ambiguous_ids);
    PyMem_Free(s.frames);
    PyMem_Free(s.scopes);
    PyMem_Free(s.keys);
    PyMem_Free(s.rec.arena);
    PyMem_Free(s.rec.slots);
    PyMem_Free(s.rec.root);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"read", read_text, METH_VARARGS,
     "read(text, release=False) -> None | (bson, container_span, (doubles, widened, unknown, "
     "unknown_ids, ambiguous, ambiguous_ids)): the JSON form's BSON, or None when the Python "
     "path must decide; the IDs as (rank in document order, ID) pairs, unsorted. release: "
     "text is a read-only file mapping whose read pages may go."},
    {NULL, NULL, 0, NULL},
};

BRSON_MODULE(_formstreamc, "The JSON form read straight into BSON (brson/document/formstream.py).");

PyMODINIT_FUNC PyInit__formstreamc(void) { return PyModule_Create(&module); }
