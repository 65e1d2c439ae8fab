#ifndef HEALTHPORT_CLIBXML2_SHIM_H
#define HEALTHPORT_CLIBXML2_SHIM_H

// libxml2's headers pull in ICU when LIBXML_ICU_ENABLED is set, and Swift then
// sees two different definitions of UErrorCode (Foundation ships its own ICU).
// Include the version header first and switch ICU off before anything else.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

/// Current line of the parser's input (1-based).
static inline int cx_xml_line(xmlParserCtxtPtr ctxt) {
  return (ctxt && ctxt->input) ? ctxt->input->line : 0;
}

/// Current column of the parser's input (1-based).
static inline int cx_xml_column(xmlParserCtxtPtr ctxt) {
  return (ctxt && ctxt->input) ? ctxt->input->col : 0;
}

#endif
