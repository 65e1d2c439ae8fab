/*
 * sax_floor: the speed floor for healthport's benchmark.
 *
 * A bare libxml2 SAX2 push-parser loop over a file: read() in 1 MiB chunks, xmlParseChunk(),
 * startElementNs/endElementNs callbacks that only count elements. No entity substitution, no
 * DTD loading or validation (XML_PARSE_NONET | XML_PARSE_HUGE). Whatever healthport does on top
 * of parsing is measured against this.
 *
 * Build: cc -O2 sax_floor.c -o sax_floor $(pkg-config --cflags --libs libxml-2.0)
 * Usage: sax_floor FILE        prints the number of elements (the root included)
 * Exit:  0 ok, 1 cannot read the file, 65 not well-formed XML.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#define CHUNK (1 << 20)

struct counts {
    unsigned long long elements;
    unsigned long long ends;
};

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                     int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
                     const xmlChar **attributes) {
    (void)localname; (void)prefix; (void)uri; (void)nb_namespaces; (void)namespaces;
    (void)nb_attributes; (void)nb_defaulted; (void)attributes;
    ((struct counts *)ctx)->elements++;
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
    (void)localname; (void)prefix; (void)uri;
    ((struct counts *)ctx)->ends++;
}

static void on_error(void *ctx, const xmlError *error) {
    (void)ctx;
    if (error && error->level >= XML_ERR_ERROR)
        fprintf(stderr, "sax_floor: line %d, column %d: %s", error->line, error->int2,
                error->message ? error->message : "error\n");
}

/* Parses one file; returns 0, or the exit status for the failure. */
static int parse_file(const char *path, char *buf, xmlSAXHandler *sax, struct counts *counts) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "sax_floor: %s: %s\n", path, strerror(errno));
        return 1;
    }
    ssize_t n = read(fd, buf, CHUNK);
    if (n < 0) {
        fprintf(stderr, "sax_floor: %s: %s\n", path, strerror(errno));
        return 1;
    }
    /* The first bytes go to the constructor so the encoding is detected from them. */
    xmlParserCtxtPtr ctxt = xmlCreatePushParserCtxt(sax, counts, buf, (int)n, path);
    if (!ctxt) {
        fprintf(stderr, "sax_floor: cannot create the parser\n");
        return 1;
    }
    xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_HUGE);

    int rc;
    do {
        n = read(fd, buf, CHUNK);
        if (n < 0) {
            fprintf(stderr, "sax_floor: %s: %s\n", path, strerror(errno));
            return 1;
        }
        rc = xmlParseChunk(ctxt, buf, (int)n, n == 0); /* n == 0: end of input, terminate */
    } while (rc == 0 && n > 0);
    int well_formed = ctxt->wellFormed;
    xmlFreeParserCtxt(ctxt);
    close(fd);
    if (rc != 0 || !well_formed) {
        fprintf(stderr, "sax_floor: %s: not well-formed (code %d)\n", path, rc);
        return 65;
    }
    return 0;
}

/* sax_floor FILE...: parses each file in turn (an export, or a bundle's GPX routes) and prints
   the number of elements of all of them. */
int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: sax_floor FILE...\n");
        return 64;
    }
    char *buf = malloc(CHUNK);
    if (!buf) {
        fprintf(stderr, "sax_floor: out of memory\n");
        return 1;
    }

    xmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = on_start;
    sax.endElementNs = on_end;
    sax.serror = (xmlStructuredErrorFunc)on_error;

    struct counts counts = {0, 0};
    for (int i = 1; i < argc; i++) {
        int status = parse_file(argv[i], buf, &sax, &counts);
        if (status != 0) return status;
    }
    free(buf);
    printf("%llu\n", counts.elements);
    return 0;
}
