#ifndef HEALTHPORT_CZSTD_SHIM_H
#define HEALTHPORT_CZSTD_SHIM_H

#include <zstd.h>

#endif
