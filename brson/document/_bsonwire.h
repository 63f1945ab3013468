/* BSON's wire framing, shared by brson's C accelerators that read BSON bytes
 * (brson/document/_rawc.c, brson/graph/_spansc.c, brson/godot/_tscnc.c): one C statement of
 * rules whose Python statement is brson/document/raw.py (the differential tests hold both to
 * them). Header-only: each extension is its own module. Parsing only: what a caller does with
 * a refusal (defer to Python, return None) stays the caller's. Include after <Python.h>. */
#ifndef BRSON_BSONWIRE_H
#define BRSON_BSONWIRE_H

#include <stdint.h>

/* The little-endian int32 at p (every BSON length and int32 value); the caller has checked
 * that p + 4 lies within its span. */
static inline int32_t i32(const unsigned char *p) {
    uint32_t u = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
                 ((uint32_t)p[3] << 24);
    return (int32_t)u;
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

#endif
