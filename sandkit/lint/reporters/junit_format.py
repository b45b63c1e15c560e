"""JUnit XML, for CI systems that show test reports (GitLab, Jenkins, Azure, CircleCI ...).

Each scanned file with findings is a test suite named by its path, and each finding a failed
test case. A scan without findings is one passing test case, so the report is never empty.
Characters XML 1.0 cannot carry (control characters from hostile files) are written as
escapes; attribute and text escaping is ElementTree's.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from itertools import groupby

from sandkit.lazy_regex import lazy
from sandkit.lint.model import Finding
from sandkit.lint.reporters import Report

_NOT_XML = lazy("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )


def _case(suite: ET.Element, f: Finding) -> None:
    case = ET.SubElement(
        suite, "testcase", name=_xml_text(f"{f.rule} at {f.line}:{f.column}"), classname=_xml_text(f.path)
    )
    failure = ET.SubElement(case, "failure", type=f.rule, message=_xml_text(f.message))
    body = f"{f.path}:{f.line}:{f.column}: {f.severity} {f.rule} ({f.category}) {f.message}"
    failure.text = _xml_text(body + (f"\nFix: {f.fix}" if f.fix else ""))


def render(report: Report) -> str:
    total = len(report.findings)
    root = ET.Element("testsuites", name="sandkit lint", tests=str(max(total, 1)), failures=str(total), errors="0")
    by_path = groupby(sorted(report.findings), key=lambda f: f.path)
    for path, group in by_path:
        findings = list(group)
        count = str(len(findings))
        suite = ET.SubElement(root, "testsuite", name=_xml_text(path), tests=count, failures=count, errors="0")
        for f in findings:
            _case(suite, f)
    if not total:
        suite = ET.SubElement(root, "testsuite", name="sandkit lint", tests="1", failures="0", errors="0")
        ET.SubElement(suite, "testcase", name=f"no findings in {report.files} files", classname="sandkit")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
