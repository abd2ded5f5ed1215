#!/usr/bin/python3
"""Checks that every document a file of the tree names exists, and every #anchor of a
markdown link names a heading of its document.

    tools/check_doc_references.py [SOURCE_DIR]   exit 0 if every reference resolves, 1 if not

Run by CTest as `doc_references`. A reference is a path ending in `.md` in any source,
build or document file (code comments cite docs/ this way), or a markdown link
`[text](DOCUMENT#anchor)` / `[text](#anchor)` in a document. A path resolves next to the
citing file, from the top of the tree or in docs/. Anchors follow GitHub's rule: the
heading in lower case, punctuation dropped, spaces as hyphens.
"""
import os
import re
import sys

SCANNED = ["README.md", "Makefile", "CMakeLists.txt", "cmake", "models", "platform", "sw", "firmware", "tests",
           "tools", "docs", "scenarios", "studies"]
SUFFIXES = (".md", ".h", ".c", ".cpp", ".S", ".py", ".txt", ".cmake", ".yaml", ".ld", ".sh", "Makefile")
# Paths that name files a command writes, not documents of the tree.
NOT_DOCUMENTS = {"report.md", "OUT/report.md", "build/reproduce-nsi/report.md", "/tmp/xd.md"}

PATH = re.compile(r"[\w./-]*\w\.md\b")
LINK = re.compile(r"\]\(([^)\s]*)\)")


def slug(heading):
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        in_code = False
        with open(path, encoding="utf-8", errors="replace") as text:
            for line in text:
                if line.startswith("```"):
                    in_code = not in_code
                match = None if in_code else re.match(r"#{1,6}\s+(.*)", line)
                if match:
                    base = slug(match.group(1))
                    count = seen.get(base, 0)
                    seen[base] = count + 1
                    found.add(base if count == 0 else "%s-%d" % (base, count))
        cache[path] = found
    return cache[path]


def resolve(root, citing, name):
    name = name.lstrip("/")  # a path appended to a source-directory variable: SOURCE_DIR + "/docs/..."
    for candidate in (os.path.join(os.path.dirname(citing), name), name, os.path.join("docs", name)):
        relative = os.path.normpath(candidate)
        if os.path.isfile(os.path.join(root, relative)):
            return relative
    return None


def files(root):
    for entry in SCANNED:
        top = os.path.join(root, entry)
        if os.path.isfile(top):
            yield entry
            continue
        for directory, subfolders, names in os.walk(top):
            subfolders[:] = sorted(s for s in subfolders if not s.startswith("."))
            for name in sorted(names):
                if name.endswith(SUFFIXES):
                    yield os.path.relpath(os.path.join(directory, name), root)


def check(root):
    problems = []
    for path in files(root):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as text:
            lines = text.read().split("\n")
        for number, line in enumerate(lines, 1):
            where = "%s:%d" % (path, number)
            for name in PATH.findall(line):
                if name in NOT_DOCUMENTS or name.startswith(("http", "//")) or "://" in line:
                    continue
                if resolve(root, path, name) is None:
                    problems.append("%s: names %s, which is not in the tree" % (where, name))
            if not path.endswith(".md"):
                continue
            for target in LINK.findall(line):
                if target.startswith(("http:", "https:", "mailto:")):
                    continue
                file_part, _, anchor = target.partition("#")
                document = path if not file_part else resolve(root, path, file_part)
                if document is None:
                    if not file_part.endswith(".md"):  # .md paths are reported above
                        if not os.path.exists(os.path.join(root, os.path.dirname(path), file_part)):
                            problems.append("%s: links %s, which is not in the tree" % (where, file_part))
                    continue
                if anchor and document.endswith(".md") and anchor not in anchors(os.path.join(root, document)):
                    problems.append("%s: links %s#%s, but %s has no such heading" % (where, file_part or path, anchor,
                                                                                   document))
    return problems


def main(arguments):
    if len(arguments) > 1 or (arguments and arguments[0].startswith("-")):
        print("usage: tools/check_doc_references.py [SOURCE_DIR]", file=sys.stderr)
        return 2
    root = arguments[0] if arguments else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print("%d reference(s) to documents or headings that do not exist" % len(problems), file=sys.stderr)
        return 1
    print("every document reference resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
