#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
#include <zlib.h>

// deflateInit2/inflateInit2 are macros over the *_ functions.
static inline int rt_deflateInit2(z_streamp s, int level, int method, int windowBits, int memLevel, int strategy) {
    return deflateInit2(s, level, method, windowBits, memLevel, strategy);
}
static inline int rt_inflateInit2(z_streamp s, int windowBits) { return inflateInit2(s, windowBits); }

#endif
