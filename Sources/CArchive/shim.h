#ifndef HEALTHPORT_CARCHIVE_SHIM_H
#define HEALTHPORT_CARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>

#endif
