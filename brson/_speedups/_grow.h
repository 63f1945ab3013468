/* Growable arrays and the growable text buffer of brson's C accelerators (header-only; include
 * after <Python.h>): one rule for how a capacity grows, so that a count read from hostile
 * input can never wrap a size, and one buffer for the writers that append text.  Every
 * accelerator includes it, so its module declaration (BRSON_MODULE) is here too. */
#ifndef BRSON_GROW_H
#define BRSON_GROW_H

#include <string.h>

/* The capacity for at least need items of size bytes, grown from cap by doubling (from 64);
 * -1 when that many bytes would not fit in a Py_ssize_t. */
static inline Py_ssize_t grown_cap(Py_ssize_t cap, Py_ssize_t need, size_t size) {
    Py_ssize_t n = cap > 0 ? cap : 64;
    while (n < need) {
        if (n > PY_SSIZE_T_MAX / 2)
            return -1;
        n *= 2;
    }
    return (size_t)n > (size_t)PY_SSIZE_T_MAX / size ? -1 : n;
}

/* *items (PyMem_Realloc's, so the GIL is held) resized to n items of size bytes: 0, or -1
 * with MemoryError set and *items as it was. */
static inline int resize_items(void **items, Py_ssize_t n, size_t size) {
    void *p = n < 0 ? NULL : PyMem_Realloc(*items, (size_t)n * size);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *items = p;
    return 0;
}

/* Room for need items of size bytes in *items, whose capacity is *cap items: 0, or -1 with
 * MemoryError set. */
static inline int grow_array(void **items, Py_ssize_t *cap, Py_ssize_t need, size_t size) {
    if (need <= *cap)
        return 0;
    Py_ssize_t n = grown_cap(*cap, need, size);
    if (resize_items(items, n, size) < 0)
        return -1;
    *cap = n;
    return 0;
}

/* Text written piece by piece (p is PyMem's; {NULL, 0, 0} is empty). */
typedef struct {
    char *p;
    Py_ssize_t len, cap;
} Buf;

static inline int buf_reserve(Buf *b, Py_ssize_t more) {
    return grow_array((void **)&b->p, &b->cap, b->len + more, 1);
}

static inline int put(Buf *b, const char *s, Py_ssize_t n) {
    if (buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->p + b->len, s, (size_t)n);
    b->len += n;
    return 0;
}

#define PUTS(b, lit) put((b), (lit), (Py_ssize_t)(sizeof(lit) - 1))

/* The module brson._speedups.<name> (its PyInit_<name> returns PyModule_Create(&module)), with
 * its docstring and the methods table the file defines before it. */
#define BRSON_MODULE(name, doc)                                                                 \
    static struct PyModuleDef module = {                                                       \
        PyModuleDef_HEAD_INIT, "brson._speedups." #name, doc, -1, methods, NULL, NULL, NULL, NULL}

#endif
