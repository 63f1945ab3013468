/* BSON's wire framing, shared by brson's C accelerators that read or write BSON bytes (_rawc.c,
 * _spansc.c, _jsonformc.c, _tscnc.c, _fieldsc.c, _formstreamc.c): one C statement of rules
 * whose Python statement is brson/document/raw.py (the differential tests hold both to them).
 * Header-only: each extension is its own module. Parsing, and the little-endian writers the
 * readers mirror: what a caller does with a refusal (defer to Python, return None) stays the
 * caller's. Include after <Python.h>. */
#ifndef BRSON_BSONWIRE_H
#define BRSON_BSONWIRE_H

#include <stdint.h>
#include <string.h>

/* The little-endian int32 at p (every BSON length and int32 value); the caller has checked
 * that p + 4 lies within its span. */
static inline int32_t i32(const unsigned char *p) {
    uint32_t u = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
                 ((uint32_t)p[3] << 24);
    return (int32_t)u;
}

/* v written at p as the little-endian int32 i32 reads (every length a writer back-patches);
 * the caller has room for 4 bytes. */
static inline void put_i32(void *at, int32_t v) {
    unsigned char *p = at;
    uint32_t u = (uint32_t)v;
    p[0] = (unsigned char)u;
    p[1] = (unsigned char)(u >> 8);
    p[2] = (unsigned char)(u >> 16);
    p[3] = (unsigned char)(u >> 24);
}

/* u written at p as the little-endian 8 bytes i64 reads (an int64 value, a double's bits). */
static inline void put_u64(void *at, uint64_t u) {
    unsigned char *p = at;
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(u >> (8 * i));
}

/* The little-endian int64 at p (an int64 value, a double's bits); the caller has checked that
 * p + 8 lies within its span. */
static inline int64_t i64(const unsigned char *p) {
    uint64_t u = 0;
    for (int k = 7; k >= 0; k--)
        u = (u << 8) | p[k];
    return (int64_t)u;
}

/* The little-endian double at p, bits as they are (NaN payloads kept); p + 8 within the span. */
static inline double f64(const unsigned char *p) {
    uint64_t u = (uint64_t)i64(p);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* The integer ``Type`` that leads the component document b[start:end) (every writer puts it
 * first: int32 as the engine does, int64 as others do), as Component's leading_type reads it
 * in place: 1 with the value as written in *value (negative ones too: each caller has its own
 * rule for those) when the first element is an int32 or int64 named Type and at least
 * ``room`` bytes of the document follow its value (1: the terminator; 12: also an empty Data,
 * the Python reader's bound); 0 otherwise.  The caller has framed the document. */
static inline int leading_type(const unsigned char *b, Py_ssize_t start, Py_ssize_t end,
                               Py_ssize_t room, int64_t *value) {
    if (end - start < 10 || memcmp(b + start + 5, "Type", 5) != 0)
        return 0;
    int width = b[start + 4] == 0x10 ? 4 : b[start + 4] == 0x12 ? 8 : 0;
    if (width == 0 || end - start < 10 + width + room)
        return 0;
    *value = width == 4 ? i32(b + start + 10) : i64(b + start + 10);
    return 1;
}

/* Fixed payload size of element type ``etype`` (-1: not a fixed-size type). */
static inline int fixed_size(int etype) {
    switch (etype) {
    case 0x01: return 8;
    case 0x06: return 0;
    case 0x07: return 12;
    case 0x08: return 1;
    case 0x09: return 8;
    case 0x0A: return 0;
    case 0x10: return 4;
    case 0x11: return 8;
    case 0x12: return 8;
    case 0x13: return 16;
    case 0x7F: return 0;
    case 0xFF: return 0;
    default: return -1;
    }
}

/* bytes.find(b"\x00", lo, hi) for 0 <= lo, hi <= len: the offset of the NUL ending a key or
 * cstring, or -1. */
static inline Py_ssize_t find_nul(const unsigned char *b, Py_ssize_t lo, Py_ssize_t hi) {
    if (lo >= hi)
        return -1;
    const unsigned char *p = memchr(b + lo, 0, (size_t)(hi - lo));
    return p ? (Py_ssize_t)(p - b) : -1;
}

/* Whether the n bytes at s are ASCII (a key C decodes itself, or compares as Python's str). */
static inline int all_ascii(const unsigned char *s, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (s[i] >= 0x80)
            return 0;
    return 1;
}

/* The end of the embedded document or array whose value starts at vstart, in a parent whose
 * terminator is at last: vstart + its int32 size when the size lies before last, is at least
 * 5 (itself and the terminator), ends the document at or before last, and its last byte is
 * 0x00; -1 when raw.index would refuse it. */
static inline Py_ssize_t doc_end(const unsigned char *b, Py_ssize_t vstart, Py_ssize_t last) {
    if (vstart + 4 > last)
        return -1;
    Py_ssize_t vend = vstart + i32(b + vstart);
    if (vend < vstart + 5 || vend > last || b[vend - 1] != 0)
        return -1;
    return vend;
}

/* Whether [start, end) frames a document on its own: its int32 size is end - start (at least
 * 5) and its last byte is 0x00. */
static inline int doc_spans(const unsigned char *b, Py_ssize_t start, Py_ssize_t end) {
    return end - start >= 5 && i32(b + start) == end - start && b[end - 1] == 0;
}

/* Whether the string value b[start:end) is framed on its own: its int32 counts the bytes
 * after it (at least the NUL) and the last of them is 0x00. */
static inline int string_spans(const unsigned char *b, Py_ssize_t start, Py_ssize_t end) {
    return end - start >= 5 && i32(b + start) == end - start - 4 && b[end - 1] == 0;
}

/* The end of the value of type etype starting at vstart, in a document whose terminator is
 * at last, as raw.index sizes it (every type it reads); -1 for a type it does not read or a
 * size it refuses (negative, too short, or past last). */
static inline Py_ssize_t value_end(const unsigned char *b, int etype, Py_ssize_t vstart,
                                   Py_ssize_t last) {
    Py_ssize_t vend, n;
    int fixed = fixed_size(etype);
    if (fixed >= 0) {
        vend = vstart + fixed;
    } else if (etype == 0x03 || etype == 0x04) {
        return doc_end(b, vstart, last);
    } else if (etype == 0x02) {
        if (vstart + 4 > last)
            return -1;
        n = i32(b + vstart);
        if (n < 1)
            return -1;
        vend = vstart + 4 + n;
    } else if (etype == 0x05 || etype == 0x0D || etype == 0x0E || etype == 0x0F ||
               etype == 0x0C) {
        if (vstart + 4 > last)
            return -1;
        n = i32(b + vstart);
        if (n < 0)
            return -1;
        if (etype == 0x0F)
            vend = vstart + n;
        else if (etype == 0x0C)
            vend = vstart + 4 + n + 12;
        else
            vend = vstart + (etype == 0x05 ? 5 : 4) + n;
    } else if (etype == 0x0B) {
        Py_ssize_t p = find_nul(b, vstart, last);
        p = p >= 0 ? find_nul(b, p + 1, last) : -1;
        if (p < 0)
            return -1;
        vend = p + 1;
    } else {
        return -1;
    }
    return vend > last ? -1 : vend;
}

/* The element at pos (< last) of a document whose terminator is at last: the end of its
 * value, whose start goes to *vstart; -1 when its key has no NUL before last or value_end
 * refuses the value. */
static inline Py_ssize_t element_end(const unsigned char *b, Py_ssize_t pos, Py_ssize_t last,
                                     Py_ssize_t *vstart) {
    Py_ssize_t key_end = find_nul(b, pos + 1, last);
    if (key_end < 0)
        return -1;
    *vstart = key_end + 1;
    return value_end(b, b[pos], *vstart, last);
}

/* The item at pos (< last) of an array of documents whose terminator is at last, as
 * raw.array_items reads it: 1 with the item's value span in *vstart, *vend; 0 when the item
 * is not a document (type byte not 0x03); -1 when its key or size is refused. */
static inline int doc_item(const unsigned char *b, Py_ssize_t pos, Py_ssize_t last,
                           Py_ssize_t *vstart, Py_ssize_t *vend) {
    if (b[pos] != 0x03)
        return 0;
    Py_ssize_t key_end = find_nul(b, pos + 1, last);
    if (key_end < 0)
        return -1;
    *vstart = key_end + 1;
    *vend = doc_end(b, *vstart, last);
    return *vend < 0 ? -1 : 1;
}

/* s[0:n] quoted as json's C encoder writes a string with ensure_ascii=False ('"', '\\' and
 * control characters escaped, everything else as it is) into w, which has room for 6n + 2
 * bytes; the end written. NULL at a DEL when refuse_del: the TSCN writer escapes it, JSON
 * does not, so that writer leaves such a string to its Python reference. */
static inline char *json_quote(char *w, const unsigned char *s, Py_ssize_t n, int refuse_del) {
    static const char hex[] = "0123456789abcdef";
    *w++ = '"';
    for (Py_ssize_t k = 0; k < n; k++) {
        unsigned char c = s[k];
        if (c >= 0x20 && c != '"' && c != '\\') {
            if (c == 0x7f && refuse_del)
                return NULL;
            *w++ = (char)c;
            continue;
        }
        *w++ = '\\';
        switch (c) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '\n': *w++ = 'n'; break;
        case '\r': *w++ = 'r'; break;
        case '\t': *w++ = 't'; break;
        case '\b': *w++ = 'b'; break;
        case '\f': *w++ = 'f'; break;
        default:
            *w++ = 'u'; *w++ = '0'; *w++ = '0';
            *w++ = hex[c >> 4]; *w++ = hex[c & 15];
        }
    }
    *w++ = '"';
    return w;
}

#endif
