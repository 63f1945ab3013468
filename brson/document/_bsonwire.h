/* BSON's fixed payload sizes, shared by brson's C accelerators (brson/document/_rawc.c,
 * brson/graph/_spansc.c): one C statement of the rule whose Python statement is raw._FIXED
 * (the differential tests hold both to it). Header-only: each extension is its own module. */
#ifndef BRSON_BSONWIRE_H
#define BRSON_BSONWIRE_H

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
