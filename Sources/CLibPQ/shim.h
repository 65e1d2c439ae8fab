#ifndef HEALTHPORT_CLIBPQ_SHIM_H
#define HEALTHPORT_CLIBPQ_SHIM_H

#include <libpq-fe.h>

#endif
