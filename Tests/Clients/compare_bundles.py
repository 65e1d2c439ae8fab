"""Compares two export bundles member by member, byte for byte, with Python's zipfile.

  compare_bundles.py A B [--order]

A and B are each a zip or a folder (the folder's files are its members, by path relative to it;
a folder's `.healthport-manifest.json` is not a member, but it must list every member with its size).
Prints one line per difference and exits 1 if there is any; with --order, the members' order
must be equal too (zips only). `__MACOSX/` and folder entries count as members in a zip.
"""

import json
import os
import sys
import zipfile

MANIFEST = ".healthport-manifest.json"


def members(path):
    if os.path.isdir(path):
        found = {}
        for root, _dirs, files in os.walk(path):
            for name in files:
                full = os.path.join(root, name)
                with open(full, "rb") as f:
                    found[os.path.relpath(full, path)] = f.read()
        manifest = found.pop(MANIFEST, None)
        if manifest is not None:
            listed = {f["path"]: f["bytes"] for f in json.loads(manifest)["files"]}
            actual = {name: len(data) for name, data in found.items()}
            if listed != actual:
                print(f"{path}/{MANIFEST}: lists {sorted(listed.items())}, the folder holds {sorted(actual.items())}")
                sys.exit(1)
        return sorted(found), found
    with zipfile.ZipFile(path) as z:
        names = [info.filename for info in z.infolist()]
        return names, {name: (b"" if name.endswith("/") else z.read(name)) for name in names}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    order = "--order" in sys.argv
    a_names, a = members(args[0])
    b_names, b = members(args[1])
    differences = []
    if order and a_names != b_names:
        differences.append(f"order: {a_names} != {b_names}")
    for name in sorted(set(a) | set(b)):
        if name not in a:
            differences.append(f"only in {args[1]}: {name}")
        elif name not in b:
            differences.append(f"only in {args[0]}: {name}")
        elif a[name] != b[name]:
            differences.append(f"differs: {name} ({len(a[name])} and {len(b[name])} bytes)")
    for line in differences:
        print(line)
    print(f"{len(a)} and {len(b)} members, {len(differences)} difference(s)")
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
