/* Key paths, reference kinds and anchor runs, for _spansc.c (header-only, one module
 * includes it after its indexer: it uses that module's includes, Elem and index_doc). */
#ifndef BRSON_SPANPATHS_H
#define BRSON_SPANPATHS_H

/* -- paths: the key paths of offsets inside one anchor (model/ids/locate.py's _paths) ------
 *
 * paths(buf, start, end, offsets, chains, slot) -> [(offset, path, chain), ...] | None: for
 * each offset (sorted) inside the document [start, end) (a component, or a slot's own
 * elements), the key path down to the element starting there, as locate._paths gives it
 * (keys as str, array positions as int, an ``ID`` key naming the document holding it), and
 * with ``chains`` the elements on the way ((type, start, value start, value end) each; else
 * ()); offsets that start no element are left out.  With ``slot``, offsets in the anchor's
 * own Children array are left out (they belong to no child: locate._slot_found drops them).
 * Each level entered is checked whole once, stricter than raw.index reads it (framing,
 * ASCII keys, no key twice, an array's keys its positions): None when any is not, and
 * Python answers or raises.  Sorted offsets enter each level once and resume where the last
 * one stopped, so the cost is the levels' sizes plus the depth per offset. */
#define MAX_DEPTH 256
/* What a row holds after its path: nothing, the chain of elements, kinds.py's answers. */
enum { PATHS, CHAINS, SOURCE_KINDS, TARGET_KINDS };
#define LEVEL_KEYS 256
#define KEY_SLOTS 512

typedef struct {
    Py_ssize_t start, end; /* the level's value span */
    Py_ssize_t pos, index; /* where the last search stopped (an element start) */
} Level;

typedef struct {
    Py_ssize_t pos, vstart, vend, index;
    int etype;
} Step;

/* Whether key [k, k + n) spells the decimal number i. */
static int is_position(const unsigned char *k, Py_ssize_t n, Py_ssize_t i) {
    char digits[24];
    int d = 0;
    do {
        digits[d++] = (char)('0' + i % 10);
        i /= 10;
    } while (i > 0);
    if (n != d) return 0;
    for (int j = 0; j < d; j++)
        if (k[j] != (unsigned char)digits[d - 1 - j]) return 0;
    return 1;
}

/* 0 when the level [start, end) reads as described above, -1 when unsure. */
static int check_level(const unsigned char *b, Py_ssize_t start, Py_ssize_t end, int array) {
    if (!doc_spans(b, start, end)) return -1;
    Py_ssize_t last = end - 1, pos = start + 4, n = 0;
    Py_ssize_t keys[LEVEL_KEYS], sizes[LEVEL_KEYS];
    int16_t table[KEY_SLOTS];
    if (!array) memset(table, 0xff, sizeof table);
    while (pos < last) {
        Py_ssize_t vstart, vend = element_end(b, pos, last, &vstart);
        if (vend < 0) return -1;
        Py_ssize_t klen = vstart - pos - 2;
        const unsigned char *key = b + pos + 1;
        if (!all_ascii(key, klen)) return -1;
        if (array) {
            if (!is_position(key, klen, n)) return -1;
        } else {
            if (n >= LEVEL_KEYS) return -1;
            uint32_t h = 2166136261u;
            for (Py_ssize_t j = 0; j < klen; j++) h = (h ^ key[j]) * 16777619u;
            uint32_t at = h & (KEY_SLOTS - 1);
            while (table[at] >= 0) {
                int other = table[at];
                if (sizes[other] == klen && memcmp(b + keys[other], key, (size_t)klen) == 0)
                    return -1;
                at = (at + 1) & (KEY_SLOTS - 1);
            }
            table[at] = (int16_t)n;
            keys[n] = pos + 1;
            sizes[n] = klen;
        }
        pos = vend;
        n++;
    }
    return pos == last ? 0 : -1;
}

static PyObject *element_tuple(const Step *step) {
    return Py_BuildValue("(innn)", step->etype, step->pos, step->vstart, step->vend);
}

/* How many of steps[0..count) make the path: an ID key names the document holding it. */
static Py_ssize_t path_count(const unsigned char *b, const Step *steps, Py_ssize_t count,
                             const char *arrays) {
    const Step *last = &steps[count - 1];
    if (!arrays[count - 1] && last->vstart - last->pos == 4 &&
        memcmp(b + last->pos + 1, "ID", 3) == 0)
        count--;
    return count;
}

/* The (offset, path, third) of one found element: steps[0..count) lead to it (count from
 * path_count); ``third`` its chain when ``third`` is NULL and ``mode`` is CHAINS, else
 * ``third`` itself (an answer, or the empty tuple). */
static PyObject *found_row(const unsigned char *b, PyObject *offset, const Step *steps,
                           Py_ssize_t count, const char *arrays, int mode, PyObject *third) {
    int chains = third == NULL && mode == CHAINS;
    PyObject *path = PyTuple_New(count);
    PyObject *chain = chains ? PyTuple_New(count) : Py_NewRef(third);
    PyObject *row = NULL;
    if (path == NULL || chain == NULL) goto done;
    for (Py_ssize_t j = 0; j < count; j++) {
        const Step *step = &steps[j];
        PyObject *part;
        if (arrays[j]) {
            part = PyLong_FromSsize_t(step->index);
        } else {
            const char *key = (const char *)b + step->pos + 1;
            part = PyUnicode_FromStringAndSize(key, (Py_ssize_t)strlen(key));
        }
        if (part == NULL) goto done;
        PyTuple_SET_ITEM(path, j, part);
        if (chains) {
            PyObject *elem = element_tuple(step);
            if (elem == NULL) goto done;
            PyTuple_SET_ITEM(chain, j, elem);
        }
    }
    row = PyTuple_Pack(3, offset, path, chain);
done:
    Py_XDECREF(path);
    Py_XDECREF(chain);
    return row;
}

/* -- kinds: model/ids/kinds.py's rules read from the steps of a found element -------------
 *
 * What source_kind and target_kind answer from a path's elements, with the documents they
 * look into checked whole first (check_level): C answers only where every document read is
 * one the Python index reads the same way, and is unsure (the caller asks the nodes, which
 * kinds.py's answers equal) anywhere else. */
enum { KIND_SLOT, KIND_COMPONENT, KIND_MEMBER, KIND_ID, KIND_NONE };
static PyObject *kind_names[4];

#define UNSURE (-1)

/* Whether step's key spells ``name``. */
static int key_is(const unsigned char *b, const Step *step, const char *name) {
    size_t length = strlen(name);
    return (size_t)(step->vstart - step->pos - 2) == length &&
           memcmp(b + step->pos + 1, name, length) == 0;
}

/* The element keyed ``name`` in the document value of ``doc``: 1 (in *found), 0 for none,
 * UNSURE where the document is not one C reads as the Python index does (``checked``: the
 * path entered it, and check_level read it whole then). */
static int doc_key(const unsigned char *b, const Step *doc, const char *name, Step *found,
                   int checked) {
    if (doc->etype != 0x03 || (!checked && check_level(b, doc->vstart, doc->vend, 0) < 0))
        return UNSURE;
    Py_ssize_t pos = doc->vstart + 4, last = doc->vend - 1;
    size_t length = strlen(name);
    while (pos < last) { /* checked: every read lies within the document */
        Py_ssize_t key_end = find_nul(b, pos + 1, last);
        Py_ssize_t vend = value_end(b, b[pos], key_end + 1, last);
        if ((size_t)(key_end - pos - 1) == length && memcmp(b + pos + 1, name, length) == 0) {
            found->pos = pos;
            found->vstart = key_end + 1;
            found->vend = vend;
            found->etype = b[pos];
            found->index = 0;
            return 1;
        }
        pos = vend;
    }
    return 0;
}

/* A member's ID from its ID element as kinds._id_text reads it: a new str, UNSURE (NULL with
 * *unsure set) for a value that is no string or no UTF-8. */
static PyObject *id_text(const unsigned char *b, const Step *id, int *unsure) {
    if (id->etype != 0x02) {
        *unsure = 1;
        return NULL;
    }
    PyObject *text = PyUnicode_DecodeUTF8((const char *)b + id->vstart + 4,
                                          id->vend - 1 - (id->vstart + 4), NULL);
    if (text == NULL) {
        PyErr_Clear();
        *unsure = 1;
    }
    return text;
}

/* kinds._members for the SyncList whose Data array is ``data``: 1 when every item is a
 * member with an ID, 0 when the list has none to give (another value, no items, an item
 * without an ID), UNSURE otherwise.  ``data``'s level was checked when the path entered it. */
static int list_members(const unsigned char *b, const Step *data) {
    if (data->etype != 0x04 || data->vend - data->vstart <= 5 || b[data->vstart + 4] != 0x03)
        return 0;
    Py_ssize_t pos = data->vstart + 4, last = data->vend - 1;
    while (pos < last) {
        Step item, id;
        if (b[pos] != 0x03) return UNSURE;
        item.pos = pos;
        item.etype = 0x03;
        item.vstart = find_nul(b, pos + 1, last) + 1;
        item.vend = value_end(b, 0x03, item.vstart, last);
        int has = doc_key(b, &item, "ID", &id, 0);
        if (has != 1) return has;
        pos = item.vend;
    }
    return 1;
}

/* Per depth, the last list judged there (its Data array's start and the answer): the items
 * of one list are found one after another, so each list is read once. */
typedef struct {
    Py_ssize_t at;
    int answer;
} Judged;

/* Per depth, the last member on a path whose ID was looked up, and the answer: the values
 * of one member (a SyncList's) are found one after another, so its keys are read once. */
typedef struct {
    Py_ssize_t at;
    int has;
    Step id;
} Known;

/* doc_key(b, doc, "ID", found, 1) for steps[depth] of a path, through ``memo``. */
static int path_id(const unsigned char *b, const Step *doc, Known *memo, Step *found) {
    if (memo->at != doc->pos) {
        memo->at = doc->pos;
        memset(&memo->id, 0, sizeof memo->id);
        memo->has = doc_key(b, doc, "ID", &memo->id, 1);
    }
    *found = memo->id;
    return memo->has;
}

static int judged(const unsigned char *b, const Step *data, Judged *memo,
                  int (*judge)(const unsigned char *, const Step *)) {
    if (memo->at != data->pos) {
        memo->at = data->pos;
        memo->answer = judge(b, data);
    }
    return memo->answer;
}

/* kinds.source_kind for steps[0..count): (kind, member ID), Py_None when unsure, NULL on an
 * error. */
static PyObject *source_answer(const unsigned char *b, int component, const Step *steps,
                               Py_ssize_t count, const char *arrays, Judged *memo,
                               Known *ids) {
    const Step *best = NULL, *entered = NULL;
    Step known;
    int has_known = 0, fields = 0, unsure = 0;
    for (Py_ssize_t j = 0; j + 1 < count; j++) {
        const Step *step = &steps[j];
        int key = !arrays[j];
        if (entered != NULL) {
            int items = judged(b, &steps[j - 1], &memo[j], list_members);
            if (items == UNSURE) Py_RETURN_NONE;
            if (items == 0 || key) break;
            best = step, has_known = 0, entered = NULL;
        } else if (best != NULL) {
            if (!key || !key_is(b, step, "Data")) break;
            entered = best;
        } else if (component) {
            if (key && key_is(b, step, "Data") && !fields) {
                fields = 1;
            } else if (fields && key && step->etype == 0x03) {
                int has = path_id(b, step, &ids[j], &known);
                if (has == UNSURE) Py_RETURN_NONE;
                if (has == 0) break;
                has_known = 1;
                best = step;
            } else {
                break;
            }
        } else if (key && step->etype == 0x03) {
            int has = path_id(b, step, &ids[j], &known);
            if (has == UNSURE) Py_RETURN_NONE;
            if (has == 0) break; /* a slot's member names itself by its ID */
            PyObject *text = id_text(b, &known, &unsure);
            if (text == NULL) {
                if (unsure) Py_RETURN_NONE;
                return NULL;
            }
            Py_DECREF(text);
            has_known = 1;
            best = step;
        } else {
            break;
        }
    }
    if (best == NULL)
        return PyTuple_Pack(2, kind_names[component ? KIND_COMPONENT : KIND_SLOT], Py_None);
    if (!has_known) {
        int has = path_id(b, best, &ids[best - steps], &known);
        if (has == UNSURE) Py_RETURN_NONE;
        if (has == 0) return PyTuple_Pack(2, kind_names[KIND_MEMBER], Py_None);
    }
    PyObject *text = id_text(b, &known, &unsure);
    if (text == NULL) {
        if (unsure) Py_RETURN_NONE;
        return NULL;
    }
    PyObject *out = PyTuple_Pack(2, kind_names[KIND_MEMBER], text);
    Py_DECREF(text);
    return out;
}

/* kinds._documents: 1 when the array ``listing`` holds only documents, else UNSURE (the
 * model decodes the other items).  Its level was checked when the path entered it. */
static int only_documents(const unsigned char *b, const Step *listing) {
    if (listing->etype != 0x04) return UNSURE;
    Py_ssize_t pos = listing->vstart + 4, last = listing->vend - 1;
    while (pos < last) {
        if (b[pos] != 0x03) return UNSURE;
        pos = value_end(b, 0x03, find_nul(b, pos + 1, last) + 1, last);
    }
    return 1;
}

/* kinds.target_kind for steps[0..count): (kind,), Py_None when unsure, NULL on an error. */
static PyObject *target_answer(const unsigned char *b, int component, const Step *steps,
                               Py_ssize_t count, const char *arrays, Judged *memo) {
    int kind = component ? KIND_COMPONENT : KIND_SLOT;
    enum { COMPONENT, SLOT, DATA, MEMBER } node = component ? COMPONENT : SLOT;
    int through = 0;
    if (count == 0) goto answer;
    if (component && count == 1 && !arrays[0] && key_is(b, &steps[0], "Data")) goto answer;
    for (Py_ssize_t j = 0; j < count; j++) {
        const Step *step = &steps[j];
        int data = !arrays[j] && key_is(b, step, "Data");
        if (arrays[j]) {
            if (node != MEMBER) {
                kind = KIND_NONE;
                goto answer;
            }
            if (!through || judged(b, &steps[j - 1], &memo[j], only_documents) != 1)
                Py_RETURN_NONE;
            node = MEMBER, through = 0;
        } else if (data && node == COMPONENT) {
            if (step->etype != 0x03) Py_RETURN_NONE;
            node = DATA;
        } else if (data && node == MEMBER) {
            if (through) Py_RETURN_NONE;
            through = 1;
        } else if (through) {
            Py_RETURN_NONE;
        } else if (step->etype == 0x02) {
            kind = j == count - 1 ? KIND_ID : KIND_NONE;
            goto answer;
        } else if (step->etype != 0x03) {
            kind = KIND_NONE;
            goto answer;
        } else {
            node = MEMBER;
        }
    }
    kind = node == DATA ? KIND_NONE : node == MEMBER ? KIND_MEMBER : kind;
answer:
    return PyTuple_Pack(1, kind == KIND_NONE ? Py_None : kind_names[kind]);
}

/* The rows of offsets[lo:hi] (a list of ints, sorted) inside the anchor [start, end) of b:
 * a new list, Py_None (a new reference) where C is unsure, NULL on an error. */
static PyObject *anchor_rows(const unsigned char *b, Py_ssize_t start, Py_ssize_t end,
                             PyObject *offsets, Py_ssize_t lo, Py_ssize_t hi, int mode,
                             int slot, PyObject *empty) {
    Level levels[MAX_DEPTH];
    Step steps[MAX_DEPTH];
    char arrays[MAX_DEPTH];
    Judged memo[MAX_DEPTH];
    Known ids[MAX_DEPTH];
    for (int j = 0; j < MAX_DEPTH; j++) memo[j].at = ids[j].at = -1;
    Py_ssize_t cached = 0, previous = -1;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (Py_ssize_t n = lo; n < hi; n++) {
        PyObject *item = PyList_GET_ITEM(offsets, n);
        if (!PyLong_CheckExact(item)) goto unsure;
        Py_ssize_t offset = PyLong_AsSsize_t(item);
        if (offset == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            goto unsure;
        }
        if (offset < previous) goto unsure;
        previous = offset;
        Py_ssize_t s = start, e = end, depth = 0;
        int array = 0;
        for (;;) {
            if (depth >= MAX_DEPTH) goto unsure;
            Level *level = &levels[depth];
            if (depth >= cached || level->start != s || level->end != e) {
                if (check_level(b, s, e, array) < 0) goto unsure;
                level->start = s;
                level->end = e;
                level->pos = s + 4;
                level->index = 0;
            }
            cached = depth + 1;
            Py_ssize_t pos = level->pos, index = level->index, last = e - 1, vstart = 0, vend = 0;
            int hit = 0;
            while (pos < last) { /* checked above: every read lies within the level */
                vend = element_end(b, pos, last, &vstart);
                if (offset < vend) {
                    hit = offset >= pos;
                    break;
                }
                pos = vend;
                index++;
            }
            level->pos = pos;
            level->index = index;
            if (!hit) break;
            Step *step = &steps[depth];
            step->pos = pos;
            step->vstart = vstart;
            step->vend = vend;
            step->index = index;
            step->etype = b[pos];
            arrays[depth] = (char)array;
            if (slot && depth == 0 && step->etype == 0x04 && vstart - pos == 10 &&
                memcmp(b + pos + 1, "Children", 9) == 0)
                break; /* the Children array's own bytes: no child holds the offset */
            if (offset == pos) {
                Py_ssize_t count = path_count(b, steps, depth + 1, arrays);
                PyObject *third = mode == SOURCE_KINDS
                                      ? source_answer(b, !slot, steps, count, arrays, memo, ids)
                                  : mode == TARGET_KINDS
                                      ? target_answer(b, !slot, steps, count, arrays, memo)
                                  : mode == CHAINS ? NULL
                                                   : Py_NewRef(empty);
                if (third == NULL && mode != CHAINS) {
                    Py_DECREF(out);
                    return NULL;
                }
                PyObject *row = found_row(b, item, steps, count, arrays, mode, third);
                Py_XDECREF(third);
                if (row == NULL || PyList_Append(out, row) < 0) {
                    Py_XDECREF(row);
                    Py_DECREF(out);
                    return NULL;
                }
                Py_DECREF(row);
                break;
            }
            if (step->etype != 0x03 && step->etype != 0x04) break;
            s = vstart;
            e = vend;
            array = step->etype == 0x04;
            depth++;
        }
    }
    return out;
unsure:
    Py_DECREF(out);
    Py_RETURN_NONE;
}

static PyObject *paths(PyObject *self, PyObject *args) {
    PyObject *data, *offsets;
    Py_ssize_t start, end;
    int chains, slot;
    if (!PyArg_ParseTuple(args, "OnnOpp", &data, &start, &end, &offsets, &chains, &slot))
        return NULL;
    if (!PyBytes_CheckExact(data) || !PyList_CheckExact(offsets)) Py_RETURN_NONE;
    Py_ssize_t size = PyBytes_GET_SIZE(data);
    if (start < 0 || end > size || end - start < 5) Py_RETURN_NONE;
    const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(data);
    PyObject *empty = PyTuple_New(0);
    if (empty == NULL) return NULL;
    PyObject *out = anchor_rows(b, start, end, offsets, 0, PyList_GET_SIZE(offsets),
                                chains ? CHAINS : PATHS, slot, empty);
    Py_DECREF(empty);
    return out;
}

/* -- runs: many anchors' paths in one call (model/spans.py's ComponentSpans.runs) ---------
 *
 * runs(buf, columns, offsets, chains) -> [(number, slot, type, lo, hi, rows), ...] | None:
 * ``columns`` the int64 arrays (component starts, ends and slots by start; slot starts, ends
 * and parents in walk order; slot numbers by start and those starts) of a ComponentSpans,
 * ``offsets`` sorted ints.  The offsets cut into runs of one anchor as
 * ComponentSpans.runs_py cuts them (a component's, or a slot's own elements: ``number`` -1),
 * offsets[lo:hi] each run's, ``type`` a component's leading Type index (None: none; the
 * model reads it) and ``rows`` what paths() gives for the run (None where it is unsure:
 * Python answers for that run).  None when the columns do not read as a ComponentSpans'
 * (lengths, numbers out of range) or the offsets are not sorted ints. */
typedef struct {
    const int64_t *starts, *ends, *slot_of, *slot_starts, *slot_ends, *parents, *order, *sorted;
    Py_ssize_t components, slots;
} Columns;

#define COLUMNS 8

/* The last index in [0, n) whose value is <= x (-1: none); ``values`` ascending. */
static Py_ssize_t last_at_or_before(const int64_t *values, Py_ssize_t n, int64_t x) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (values[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* ComponentSpans.at: the component holding ``offset``, or -1. */
static Py_ssize_t component_at(const Columns *c, int64_t offset) {
    Py_ssize_t at = last_at_or_before(c->starts, c->components, offset);
    return at >= 0 && offset < c->ends[at] ? at : -1;
}

/* ComponentSpans.slot_at: the innermost slot holding ``offset``, or -1; -2 when the parent
 * links lead out of the columns or round a loop (not a walk's). */
static int64_t slot_at(const Columns *c, int64_t offset) {
    Py_ssize_t at = last_at_or_before(c->sorted, c->slots, offset);
    int64_t slot = at >= 0 ? c->order[at] : -1;
    if (slot < -1 || slot >= c->slots) return -2;
    for (Py_ssize_t steps = 0; slot != -1 && offset >= c->slot_ends[slot]; steps++) {
        if (steps > c->slots) return -2;
        slot = c->parents[slot];
        if (slot < -1 || slot >= c->slots) return -2;
    }
    return slot;
}

/* The first index in [lo, hi) whose offset is >= x (bisect_left). */
static Py_ssize_t first_from(const Py_ssize_t *offsets, Py_ssize_t lo, Py_ssize_t hi,
                             int64_t x) {
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (offsets[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* 1 when every column reads as an int64 array of its table's length; 0 otherwise.  The
 * numbers they hold are checked as they are read: a call reads a batch of a listing, and
 * checking every row each time would cost the table's size per batch. */
static int columns_ok(const Py_buffer *views, Columns *c) {
    const int64_t *cols[COLUMNS];
    Py_ssize_t lengths[COLUMNS];
    for (int i = 0; i < COLUMNS; i++) {
        if (views[i].format == NULL || strcmp(views[i].format, "q") != 0 ||
            views[i].itemsize != 8)
            return 0;
        cols[i] = (const int64_t *)views[i].buf;
        lengths[i] = views[i].len / 8;
    }
    c->starts = cols[0], c->ends = cols[1], c->slot_of = cols[2];
    c->slot_starts = cols[3], c->slot_ends = cols[4], c->parents = cols[5];
    c->order = cols[6], c->sorted = cols[7];
    c->components = lengths[0], c->slots = lengths[3];
    if (lengths[1] != c->components || lengths[2] != c->components) return 0;
    for (int i = 4; i < COLUMNS; i++)
        if (lengths[i] != c->slots) return 0;
    return 1; /* the numbers in them are checked where read (a call reads a batch) */
}

/* The run starting at offsets[at]: its component (-1 for a slot's own elements), slot and
 * end; 0 when no anchor holds offsets[at] (left out, as runs_py leaves it), -1 when the
 * columns are not a walk's. */
static int cut_run(const Columns *c, const Py_ssize_t *offsets, Py_ssize_t at,
                   Py_ssize_t count, Py_ssize_t *number, int64_t *slot, Py_ssize_t *upto) {
    int64_t offset = offsets[at];
    *number = component_at(c, offset);
    if (*number >= 0) {
        *slot = c->slot_of[*number];
        if (*slot < -1 || *slot >= c->slots) return -1;
        *upto = first_from(offsets, at, count, c->ends[*number]);
        return 1;
    }
    *slot = slot_at(c, offset);
    if (*slot == -2) return -1;
    if (*slot == -1) return 0;
    *upto = at + 1;
    while (*upto < count && component_at(c, offsets[*upto]) < 0) {
        int64_t next = slot_at(c, offsets[*upto]);
        if (next == -2) return -1;
        if (next != *slot) break;
        (*upto)++;
    }
    return 1;
}

static PyObject *run_tuple(const unsigned char *b, Py_ssize_t size, const Columns *c,
                           PyObject *offsets, Py_ssize_t number, int64_t slot, Py_ssize_t lo,
                           Py_ssize_t hi, int mode, PyObject *empty) {
    int64_t start = number >= 0 ? c->starts[number] : c->slot_starts[slot];
    int64_t end = number >= 0 ? c->ends[number] : c->slot_ends[slot];
    PyObject *rows, *type;
    int64_t value;
    if (start < 0 || end > size || end - start < 5) {
        rows = Py_NewRef(Py_None); /* what paths() answers: Python reads it */
        type = Py_NewRef(Py_None);
    } else {
        rows = anchor_rows(b, start, end, offsets, lo, hi, mode, number < 0, empty);
        if (rows == NULL) return NULL;
        type = number >= 0 && leading_type(b, start, end, 12, &value)
                   ? PyLong_FromLongLong(value)
                   : Py_NewRef(Py_None);
        if (type == NULL) {
            Py_DECREF(rows);
            return NULL;
        }
    }
    return Py_BuildValue("(nLNnnN)", number, (long long)slot, type, lo, hi, rows);
}

static PyObject *runs(PyObject *self, PyObject *args) {
    PyObject *data, *given, *offsets;
    int mode;
    Py_ssize_t first, stop;
    if (!PyArg_ParseTuple(args, "OOOinn", &data, &given, &offsets, &mode, &first, &stop))
        return NULL;
    if (mode < PATHS || mode > TARGET_KINDS || !PyBytes_CheckExact(data) ||
        !PyTuple_CheckExact(given) ||
        PyTuple_GET_SIZE(given) != COLUMNS || !PyList_CheckExact(offsets))
        Py_RETURN_NONE;
    Py_buffer views[COLUMNS];
    int held = 0;
    PyObject *out = NULL, *empty = NULL;
    Py_ssize_t *at_offsets = NULL;
    for (; held < COLUMNS; held++) {
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(given, held), &views[held],
                               PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
            PyErr_Clear();
            goto unsure;
        }
    }
    Columns c;
    if (!columns_ok(views, &c)) goto unsure;
    if (first < 0 || stop > PyList_GET_SIZE(offsets) || first > stop) goto unsure;
    Py_ssize_t count = stop - first; /* at_offsets[n] is offsets[first + n] */
    at_offsets = PyMem_Malloc((size_t)(count + 1) * sizeof(Py_ssize_t));
    if (at_offsets == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t n = 0; n < count; n++) {
        PyObject *item = PyList_GET_ITEM(offsets, first + n);
        if (!PyLong_CheckExact(item)) goto unsure;
        at_offsets[n] = PyLong_AsSsize_t(item);
        if (at_offsets[n] == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            goto unsure;
        }
        if (n > 0 && at_offsets[n] < at_offsets[n - 1]) goto unsure;
    }
    const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(data);
    Py_ssize_t size = PyBytes_GET_SIZE(data);
    empty = PyTuple_New(0);
    out = PyList_New(0);
    if (empty == NULL || out == NULL) goto fail;
    Py_ssize_t at = 0;
    while (at < count) {
        Py_ssize_t number, upto;
        int64_t slot;
        int cut = cut_run(&c, at_offsets, at, count, &number, &slot, &upto);
        if (cut < 0) goto unsure;
        if (cut == 0) {
            at++;
            continue;
        }
        PyObject *row = run_tuple(b, size, &c, offsets, number, slot, first + at, first + upto,
                                  mode, empty);
        if (row == NULL || PyList_Append(out, row) < 0) {
            Py_XDECREF(row);
            goto fail;
        }
        Py_DECREF(row);
        at = upto;
    }
    goto done;
unsure:
    Py_XDECREF(out);
    out = Py_NewRef(Py_None);
    goto done;
fail:
    Py_CLEAR(out);
done:
    Py_XDECREF(empty);
    PyMem_Free(at_offsets);
    for (int i = 0; i < held; i++) PyBuffer_Release(&views[i]);
    return out;
}

#endif
