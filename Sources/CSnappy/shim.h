#ifndef HEALTHPORT_CSNAPPY_SHIM_H
#define HEALTHPORT_CSNAPPY_SHIM_H

// libsnappy's C API (raw block format, which is what Parquet's SNAPPY codec means; not the framed format).
#include <snappy-c.h>

#endif
