#!/usr/bin/env python3
"""Keeps the library's public API to the declarations named in scripts/public-api.txt.

    scripts/narrow-public-api.py            rewrite: every `public`/`open` declaration of the library
                                            modules that the keep list does not name becomes `package`
    scripts/narrow-public-api.py --check    change nothing; exit 1 when a public declaration is not in
                                            the keep list or has no `///` comment, or when there are
                                            more than --limit (200) of them
    scripts/narrow-public-api.py --list     print every public declaration found, with its key

The modules are HealthPort, HealthPortSQLite and HealthPortParquet (the public API, counted against the
limit) and HealthPortPostgres (which the command line alone uses, so nothing in it stays public). The
command-line target, the examples, the fuzz targets and the tests are in the same package and see
`package` declarations.

A declaration's key is its type path and name, with argument labels for functions, initialisers and
subscripts: `ExportReader`, `ExportReader.init(path:options:)`, `ExportReader.read(into:)`,
`Record.type`, `StepTotals.Configuration.by`, `ExportSink.consume(_:)`. Extensions are named
`extension Type`; a `public extension` is kept when its type is.

What is counted: each declaration written `public` or `open`, each case of a public enum and each
requirement of a public protocol. Documented means a `///` (or `/** */`) comment right above it, past
its attributes. Swift source is read with a small lexer that skips comments and string literals
(interpolations and raw strings included), so that braces give each declaration's enclosing types.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PUBLIC_MODULES = ["HealthPort", "HealthPortSQLite", "HealthPortParquet"]
PACKAGE_ONLY_MODULES = ["HealthPortPostgres"]
KEEP_LIST = os.path.join(ROOT, "scripts", "public-api.txt")

MODIFIERS = (
    "public|open|package|internal|private|fileprivate|final|static|class|override|mutating|nonmutating|"
    "convenience|required|lazy|weak|unowned|indirect|nonisolated|dynamic|optional|consuming|borrowing|"
    "isolated|prefix|postfix|infix"
)
KINDS = (
    "func|init|deinit|subscript|var|let|struct|class|enum|protocol|actor|extension|typealias|case|"
    "associatedtype"
)
DECL = re.compile(
    r"^(?P<attrs>(?:@[\w.]+(?:\([^)]*\))?\s+)*)"
    r"(?P<mods>(?:(?:" + MODIFIERS + r")(?:\([^)]*\))?\s+)*)"
    r"(?P<kind>" + KINDS + r")\b"
)
TYPE_KINDS = {"struct", "class", "enum", "protocol", "actor", "extension"}
IDENT = re.compile(r"`?([A-Za-z_][\w]*)`?")
DOTTED = re.compile(r"[A-Za-z_][\w.]*")


def mask(src):
    """The source with comments and string literals blanked (newlines kept), same length."""
    out = list(src)
    n = len(src)
    stack = [["code", 0]]  # ["code", parens] | ["str", hashes, multiline] | ["interp", parens]
    i = 0

    def blank(a, b):
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        top = stack[-1]
        inside = len(stack) > 1
        if top[0] in ("code", "interp"):
            if src.startswith("//", i):
                j = src.find("\n", i)
                j = n if j < 0 else j
                blank(i, j)
                i = j
                continue
            if src.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if src.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif src.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                blank(i, j)
                i = j
                continue
            m = re.compile(r'(#*)("""|")').match(src, i)
            if m:
                stack.append(["str", len(m.group(1)), m.group(2) == '"""'])
                blank(i, m.end())
                i = m.end()
                continue
            c = src[i]
            if top[0] == "interp":
                if c == "(":
                    top[1] += 1
                elif c == ")":
                    if top[1] == 0:
                        stack.pop()
                        blank(i, i + 1)
                        i += 1
                        continue
                    top[1] -= 1
            if inside:
                blank(i, i + 1)
            i += 1
            continue
        # Inside a string literal.
        hashes, multiline = top[1], top[2]
        if src[i] == "\\" and src.startswith("#" * hashes, i + 1):
            k = i + 1 + hashes
            if k < n and src[k] == "(":
                stack.append(["interp", 0])
                blank(i, k + 1)
                i = k + 1
                continue
            if hashes == 0:
                blank(i, i + 2)
                i += 2
                continue
        delim = ('"""' if multiline else '"') + "#" * hashes
        if src.startswith(delim, i):
            stack.pop()
            blank(i, i + len(delim))
            i += len(delim)
            continue
        blank(i, i + 1)
        i += 1
    return "".join(out)


def matching(text, start, open_c, close_c):
    """The index just past the bracket closing the one at `start`."""
    depth = 0
    for k in range(start, len(text)):
        if text[k] == open_c:
            depth += 1
        elif text[k] == close_c:
            depth -= 1
            if depth == 0:
                return k + 1
    return len(text)


def labels(text, start):
    """Argument labels of the parameter list opening at text[start] == '('."""
    end = matching(text, start, "(", ")")
    inner = text[start + 1 : end - 1].replace("->", "  ")
    params, depth, begin = [], 0, 0
    for k, c in enumerate(inner):
        if c in "([<{":
            depth += 1
        elif c in ")]>}":
            depth -= 1
        elif c == "," and depth == 0:
            params.append(inner[begin:k])
            begin = k + 1
    params.append(inner[begin:])
    result = []
    for p in params:
        p = p.strip()
        if not p:
            continue
        m = IDENT.match(p)
        result.append((m.group(1) if m else "_") + ":")
    return "(" + "".join(result) + ")"


class Decl:
    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def key(self):
        return ".".join(self.scope + [self.name]) if self.kind != "extension" else "extension " + self.name


def declarations(path, module):
    """Every declaration of a type or member at type or file level in one file."""
    src = open(path, encoding="utf-8").read()
    text = mask(src)
    lines_src = src.split("\n")
    found = []
    stack = []  # entries: (kind, name) for types/extensions, None for other braces
    pending = None
    offset = 0
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        at_member_level = all(entry is not None for entry in stack)
        m = DECL.match(stripped) if at_member_level else None
        if m:
            kind = m.group("kind")
            mods = m.group("mods").split()
            start = offset + indent + m.end("kind")
            rest = text[start:]
            name, sig = None, ""
            if kind in TYPE_KINDS:
                nm = DOTTED.match(rest.lstrip())
                name = nm.group(0) if nm else "?"
                pending = (kind, name)
            elif kind == "func":
                nm = re.match(r"\s*(`?[A-Za-z_]\w*`?|[-+*/%<>=!&|^~?.]+)", rest)
                name = nm.group(1).strip("`")
                k = start + nm.end()
                k = skip_space(text, k)
                if text[k] == "<":
                    k = skip_space(text, matching(text, k, "<", ">"))
                sig = labels(text, k) if text[k] == "(" else "()"
            elif kind in ("init", "subscript"):
                name = kind
                k = start
                while text[k] in "?!":
                    k += 1
                k = skip_space(text, k)
                if text[k] == "<":
                    k = skip_space(text, matching(text, k, "<", ">"))
                sig = labels(text, k) if text[k] == "(" else "()"
            elif kind == "deinit":
                name = "deinit"
            elif kind == "case":
                parent = stack[-1] if stack else None
                if parent and parent[0] == "enum":
                    name = ",".join(case_names(rest))
                else:
                    name = None
            else:
                nm = IDENT.match(rest.lstrip())
                name = nm.group(1) if nm else "?"
            if name is not None:
                access_col = None
                access = None
                for word in ("public", "open", "package", "internal", "private", "fileprivate"):
                    mm = re.search(r"(?<![\w(])" + word + r"\b(?!\()", m.group("mods"))
                    if mm:
                        access = word
                        access_col = indent + m.start("mods") + mm.start()
                        break
                found.append(
                    Decl(
                        path=path,
                        module=module,
                        line=number,
                        kind=kind,
                        name=name + sig,
                        scope=[entry[1] for entry in stack],
                        parents=list(stack),
                        access=access,
                        access_offset=None if access_col is None else offset + access_col,
                        documented=documented(lines_src, number - 1),
                    )
                )
        for c in line:
            if c == "{":
                stack.append(pending)
                pending = None
            elif c == "}":
                if stack:
                    stack.pop()
        offset += len(line) + 1
    return src, found


def skip_space(text, k):
    while k < len(text) and text[k] in " \t\n":
        k += 1
    return k


def case_names(rest):
    """The names of the cases declared on one `case` line (payloads and raw values skipped)."""
    names, depth, current, skipping = [], 0, "", False
    for c in rest:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and c in "\n{":
            break
        elif depth == 0 and c == ",":
            names.append(current)
            current, skipping = "", False
            continue
        elif depth == 0 and c == "=":
            skipping = True
        if depth == 0 and not skipping:
            current += c
    names.append(current)
    return [m.group(1) for m in (IDENT.match(n.strip()) for n in names) if m]


def documented(lines, index):
    """Whether a doc comment sits right above line `index`, past attribute-only lines."""
    k = index - 1
    while k >= 0 and re.match(r"^\s*@[\w.]+(\([^)]*\))?(\s+@[\w.]+(\([^)]*\))?)*\s*$", lines[k]):
        k -= 1
    if k < 0:
        return False
    previous = lines[k].strip()
    return previous.startswith("///") or previous.endswith("*/")


def module_files(module):
    folder = os.path.join(ROOT, "Sources", module)
    for base, _, names in sorted(os.walk(folder)):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


def read_keep_list():
    keep = set()
    with open(KEEP_LIST, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                keep.add(line)
    return keep


def public_surface(decls_by_file):
    """The declarations a client of the modules sees: written public/open, plus the cases of public
    enums, the requirements of public protocols and the members of public extensions."""
    surface = []
    for decls in decls_by_file.values():
        for d in decls:
            if d.access in ("public", "open"):
                surface.append(d)
            elif d.access is None and d.parents:
                parent = d.parents[-1]
                owner = parent_decl(decls, d)
                if owner is None or owner.access not in ("public", "open"):
                    continue
                if parent[0] == "enum" and d.kind == "case":
                    surface.append(d)
                elif parent[0] in ("protocol", "extension"):
                    surface.append(d)
    return surface


def parent_decl(decls, d):
    """The declaration of the type or extension enclosing `d` in the same file."""
    best = None
    for other in decls:
        if other.line >= d.line:
            break
        if other.kind in TYPE_KINDS and other.scope == d.scope[:-1] and other.name == d.scope[-1]:
            best = other
    return best


def count(d):
    return len(d.name.split(",")) if d.kind == "case" else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--limit", type=int, default=200)
    args = parser.parse_args()

    keep = read_keep_list()
    decls_by_file = {}
    sources = {}
    for module in PUBLIC_MODULES + PACKAGE_ONLY_MODULES:
        for path in module_files(module):
            sources[path], decls_by_file[path] = declarations(path, module)

    def kept(d):
        if d.module in PACKAGE_ONLY_MODULES:
            return False
        if d.kind == "extension":
            return d.name in keep
        return d.key in keep

    if args.list:
        for path, decls in decls_by_file.items():
            for d in decls:
                if d.access in ("public", "open"):
                    mark = "keep" if kept(d) else "    "
                    doc = "doc" if d.documented else "   "
                    print(f"{mark} {doc} {os.path.relpath(path, ROOT)}:{d.line}: {d.key}")
        return 0

    if not args.check:
        changed = 0
        for path, decls in decls_by_file.items():
            src = sources[path]
            edits = [d for d in decls if d.access in ("public", "open") and not kept(d)]
            for d in sorted(edits, key=lambda d: d.access_offset, reverse=True):
                o = d.access_offset
                assert src[o : o + len(d.access)] == d.access, (path, d.line, d.access)
                src = src[:o] + "package" + src[o + len(d.access) :]
            if edits:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(src)
                changed += len(edits)
        print(f"narrow-public-api: {changed} declaration(s) made package", file=sys.stderr)
        return 0

    surface = public_surface(decls_by_file)
    problems = []
    total = 0
    for d in surface:
        where = f"{os.path.relpath(d.path, ROOT)}:{d.line}"
        if d.module in PACKAGE_ONLY_MODULES:
            problems.append(f"{where}: error: {d.key} is public in {d.module}, which only the command line uses")
            continue
        total += count(d)
        if d.access in ("public", "open") and not kept(d):
            problems.append(f"{where}: error: {d.key} is public but not in scripts/public-api.txt")
        if not d.documented:
            problems.append(f"{where}: error: public {d.key} has no /// comment")
    keys = {d.key for d in surface} | {d.name for d in surface if d.kind == "extension"}
    for entry in sorted(keep - keys):
        print(f"scripts/public-api.txt: warning: {entry} is not a public declaration", file=sys.stderr)
    if total > args.limit:
        problems.append(f"error: {total} public declarations, more than {args.limit}")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{total} public declarations in {', '.join(PUBLIC_MODULES)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
