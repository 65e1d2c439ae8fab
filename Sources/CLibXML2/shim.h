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

/// The bytes libxml2 is parsing from (its input buffer), or NULL. An attribute value that lies in
/// them is the text as written, without a reference: libxml2 copies out every value it decodes.
static inline const xmlChar *cx_xml_input_base(xmlParserCtxtPtr ctxt) {
  return (ctxt && ctxt->input) ? ctxt->input->base : NULL;
}

static inline const xmlChar *cx_xml_input_end(xmlParserCtxtPtr ctxt) {
  return (ctxt && ctxt->input) ? ctxt->input->end : NULL;
}

/// Whether the start tag whose startElementNs callback is running ends in the bytes libxml2 holds.
/// libxml2 calls startElementNs before it looks for the tag's `>` or `/>`; at the end of a truncated
/// input it calls it for a tag cut in the middle and reports "Couldn't find end of Start Tag" only
/// afterwards. Such a tag is not an element.
static inline int cx_xml_start_tag_closed(xmlParserCtxtPtr ctxt) {
  if (!ctxt || !ctxt->input || !ctxt->input->cur || !ctxt->input->end) return 1;
  const xmlChar *cur = ctxt->input->cur, *end = ctxt->input->end;
  if (cur >= end) return 0;
  if (cur[0] == '>') return 1;
  return cur[0] == '/' && cur + 1 < end && cur[1] == '>';
}

/// Drops a message of libxml2's generic error channel.
static inline void cx_xml_discard(void *context, const char *message, ...) {
  (void)context;
  (void)message;
}

/// Some errors (an encoding the input's bytes do not convert from, `xmlParseChunk: encoder
/// error`) go to the calling thread's generic error channel, stderr by default, instead of to the
/// parser's handler; the handler still gets the parse's own error. Per thread, as libxml2 keeps it.
static inline void cx_xml_silence_generic_errors(void) {
  xmlSetGenericErrorFunc(NULL, cx_xml_discard);
}

#endif
