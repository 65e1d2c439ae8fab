#!/usr/bin/env python3
"""Runs a test command (`make test`: swift test) and prints what a reader needs, then a summary.

    python3 scripts/test-summary.py [--log FILE] -- COMMAND [ARGUMENT...]

Swift Testing prints a line per test started, passed and skipped: several thousand lines in which a
failure is easy to miss. This prints the command's output without those lines (failures, their issues
and details, build output and anything else stay, in full and as they come), then one line per skip
reason with its count, and last `N passed, N failed, N skipped`. The whole output goes to FILE as
well. The exit status is the command's; a run that reports failures never exits 0.
"""

import collections
import re
import subprocess
import sys

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Swift Testing's event lines: a symbol, then `Test NAME …` or `Suite NAME …`.
PASSED = re.compile(r"^\S+ Test (?!run with |case passing )(.+) passed after ")
FAILED = re.compile(r"^\S+ Test (?!run with |case passing )(.+) failed after ")
SKIPPED = re.compile(r'^\S+ (Test|Suite) (.+?) skipped(?:: "(.*)"|\.)\s*$')
STARTED = re.compile(r"^\S+ (Test|Suite) (.+) started\.\s*$")
SUITE_PASSED = re.compile(r"^\S+ Suite (.+) passed after ")
RUN_STARTED = re.compile(r"^\S+ Test run started\.\s*$")
RUN_ENDED = re.compile(r"^\S+ Test run with (\d+) tests? in \d+ suites? (passed|failed) ")
LIBRARY = re.compile(r"^\S+ (Testing Library Version|Target Platform): ")
# A detail line (`↳ …`) belongs to the event line before it.
DETAIL = re.compile(r"^\s*↳ ")
# The start of an event line that is left out; an argument holding line feeds continues it on the
# next lines (`◇ Test case passing 1 argument text → "a` … `b" to "name" started.`).
HIDDEN_EVENT = re.compile(r"^[◇✔➜] (Test|Suite) ")
COMPLETE = [PASSED, SKIPPED, STARTED, SUITE_PASSED, RUN_STARTED, RUN_ENDED, LIBRARY]
LONGEST_EVENT = 200  # lines: past this, an unfinished event line is printed as it is


def main(argv):
    log_path = None
    if argv[:1] == ["--log"]:
        log_path, argv = argv[1], argv[2:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 64
    log = open(log_path, "w", encoding="utf-8") if log_path else None
    passed = failed = 0
    skips = collections.Counter()
    ended = False
    total = None
    hiding = False
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def logical_lines():
        """The output's lines, an event line that spans several given as one."""
        pending = []
        for raw in process.stdout:
            line = raw.decode("utf-8", errors="replace")
            if log:
                log.write(line)
            plain = ANSI.sub("", line).rstrip("\n")
            if not pending and HIDDEN_EVENT.match(plain) and not any(p.match(plain) for p in COMPLETE):
                pending = [(line, plain)]
                continue
            if pending:
                pending.append((line, plain))
                joined = " ".join(part for _, part in pending)
                if any(p.match(joined) for p in COMPLETE) or len(pending) > LONGEST_EVENT:
                    yield "".join(text for text, _ in pending), joined
                    pending = []
                continue
            yield line, plain
        if pending:
            yield "".join(text for text, _ in pending), " ".join(part for _, part in pending)

    for line, plain in logical_lines():
        if DETAIL.match(plain) and hiding:
            continue
        hiding = True
        if PASSED.match(plain):
            passed += 1
            continue
        match = SKIPPED.match(plain)
        if match:
            kind, _, reason = match.groups()
            reason = reason or "(no reason given)"
            skips[reason if kind == "Test" else f"{reason} (a whole suite)"] += 1
            continue
        if STARTED.match(plain) or SUITE_PASSED.match(plain) or RUN_STARTED.match(plain) or LIBRARY.match(plain):
            continue
        hiding = False
        if FAILED.match(plain):
            failed += 1
        ended_line = RUN_ENDED.match(plain)
        if ended_line:
            ended = True
            total = int(ended_line.group(1))
        sys.stdout.write(line)
        sys.stdout.flush()
    status = process.wait()
    if log:
        log.close()
    if not ended:
        print(f"The test run did not finish (exit status {status}): see the output above.")
    for reason, count in sorted(skips.items(), key=lambda item: (-item[1], item[0])):
        print(f"{count} skipped: {reason}")
    if log_path:
        print(f"The whole output, every test's line included: {log_path}")
    skipped = sum(skips.values())
    # Swift Testing sometimes prints no "passed" line for a test it started (54 of 582 in one run)
    # while its last line counts it: the run's own total is the one to trust.
    if total is not None and total - failed - skipped > passed:
        print(f"({total - failed - skipped - passed} passed tests printed no line of their own; counted from the run's total)")
        passed = total - failed - skipped
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    if status == 0 and (failed or not ended):
        return 1
    return 128 - status if status < 0 else status  # -N: killed by signal N, as a shell says it


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
