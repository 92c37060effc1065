#!/usr/bin/env python3
"""Judges one h2spec run: its JUnit report against h2spec-expected.txt, and the gateway's log.

usage: h2spec-verdict.py REPORT.xml EXPECTED.txt ENGINE TRANSPORT GATEWAY.log MAX_LOG_LINES

A case is named as h2spec names it on its command line: group/section/index (http2/5.1/6). A line
of the expected file is `ID ENGINES TRANSPORTS  # RFC section: why`, ENGINES and TRANSPORTS comma
lists or `*`. Exit 1 when a case fails unlisted, a listed case passes, or the log breaks its rules.
"""
import sys
import xml.etree.ElementTree as ET

report, expected_file, engine, transport, log, max_lines = sys.argv[1:7]
max_lines = int(max_lines)


def matches(field, value):
    return field == "*" or value in field.split(",")


expected = set()
for line in open(expected_file, encoding="utf-8"):
    words = line.split("#", 1)[0].split()
    if not words:
        continue
    if len(words) != 3:
        sys.exit(f"{expected_file}: bad line: {line.rstrip()}")
    case, engines, transports = words
    if matches(engines, engine) and matches(transports, transport):
        expected.add(case)

failed, passed, total = [], set(), 0
root = ET.parse(report).getroot()
for suite in root.iter("testsuite"):
    package = suite.get("package")
    for index, case in enumerate(suite.iter("testcase"), start=1):
        total += 1
        name = f"{package}/{index}"
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append((name, case.get("classname")))
        else:
            passed.add(name)

label = f"{engine} {transport}"
bad = False
unexpected = [(n, c) for n, c in failed if n not in expected]
fixed = sorted(expected & passed)
for name, title in unexpected:
    print(f"h2spec {label}: FAIL {name}: {title}")
    bad = True
for name in fixed:
    print(f"h2spec {label}: {name} passes now: take it out of {expected_file}")
    bad = True
if total < 145:
    print(f"h2spec {label}: only {total} cases ran (145 expected)")
    bad = True

lines = open(log, encoding="utf-8", errors="replace").read().splitlines()
traces = [l for l in lines if l.startswith("\tat ") or l.startswith("Caused by:")]
if traces:
    print(f"h2spec {label}: the gateway logged stack traces ({len(traces)} frame lines), first: {traces[0].strip()}")
    bad = True
if len(lines) > max_lines:
    print(f"h2spec {label}: the gateway logged {len(lines)} lines (at most {max_lines})")
    bad = True
print(f"h2spec {label}: {total - len(failed)}/{total} passed, {len(failed)} failed "
      f"({len(failed) - len(unexpected)} listed), {len(lines)} log lines")
sys.exit(1 if bad else 0)
