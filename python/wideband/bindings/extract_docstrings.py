#!/usr/bin/python3
#
# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#

"""
The Python docstrings of the bindings, taken from the doxygen comments of the
public headers, so that the headers are their one source.

    extract_docstrings.py OUTPUT.h HEADER.h ...

writes a C++ header of docstring constants, run by CMake at build time
(bindings/CMakeLists.txt). A /*! ... */ or //! comment documents the class,
function or method declared right after it; the constants are

    wideband_pydoc::<class>::doc        the class
    wideband_pydoc::<class>::<method>   a method (make: the constructor)
    wideband_pydoc::<function>          a free function

The doxygen commands become plain text: \\brief and \\details go, \\param
lists the arguments, \\throws becomes "Raises ValueError ..." (the Python
exception pybind11 turns the C++ one into), \\p/\\c/\\a mark nothing. Any other
command is an error, so that none reaches help().

The QA test (qa_docstrings.py) imports extract() to check that help() shows
each comment.
"""

import os
import re
import sys

# pybind11's translation of the standard exceptions
PYTHON_EXCEPTIONS = {
    "std::invalid_argument": "ValueError",
    "std::domain_error": "ValueError",
    "std::length_error": "ValueError",
    "std::range_error": "ValueError",
    "std::out_of_range": "IndexError",
    "std::overflow_error": "OverflowError",
    "std::bad_alloc": "MemoryError",
    "std::runtime_error": "RuntimeError",
    "std::exception": "RuntimeError",
}

TOKENS = re.compile(
    r"""(?P<doc>/\*!.*?\*/)
      | (?P<linedoc>(?:[ \t]*//!(?!<)[^\n]*\n)+)
      | (?P<comment>/\*.*?\*/|//[^\n]*)
      | (?P<preprocessor>^[ \t]*\#[^\n]*)
      | (?P<string>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
      | (?P<punct>[{};])
      | (?P<code>[^{};/"'\#]+|/|\#)
    """,
    re.S | re.M | re.X)


def comment_lines(raw):
    """The text of a /*! */ or //! comment, without its markers."""
    if raw.startswith("/*!"):
        lines = raw[3:-2].split("\n")
        lines = [re.sub(r"^\s*\*( |$)", "", line) for line in lines]
    else:
        lines = [re.sub(r"^\s*//! ?", "", line) for line in raw.rstrip("\n").split("\n")]
    lines = [line.rstrip() for line in lines]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def plain_text(lines, where):
    """Doxygen markup to the plain text of a docstring."""
    out = []
    in_list = None  # "param", "throws" or "returns" while their lines continue
    sentence_ends = []  # the last lines of "Raises ..." and "Returns ..."

    def end_list():
        nonlocal in_list
        if in_list in ("throws", "returns"):
            sentence_ends.append(len(out) - 1)
        in_list = None

    for line in lines:
        stripped = line.strip()
        if stripped.startswith("\\ingroup") or stripped == "\\details":
            end_list()
            if stripped == "\\details" and out and out[-1]:
                out.append("")
            continue
        param = re.match(r"\\param(?:\[\w+\])?\s+(\w+)\s*(.*)", stripped)
        throws = re.match(r"\\(?:throws?|exception)\s+([\w:]+)\s*(.*)", stripped)
        returns = re.match(r"\\returns?\s+(.*)", stripped)
        was = in_list
        if (param or throws or returns) and in_list in ("throws", "returns"):
            end_list()
        if param:
            if was != "param":
                if out and out[-1]:
                    out.append("")
                out.append("Arguments:")
            out.append(f"  {param.group(1)}: {param.group(2)}")
            in_list = "param"
        elif throws:
            if was != "throws" and out and out[-1]:
                out.append("")
            exception = PYTHON_EXCEPTIONS.get(throws.group(1), throws.group(1))
            out.append(f"Raises {exception} {throws.group(2)}".rstrip())
            in_list = "throws"
        elif returns:
            if out and out[-1]:
                out.append("")
            out.append("Returns " + returns.group(1))
            in_list = "returns"
        elif in_list and stripped and line[:1].isspace():
            out.append(("    " if in_list == "param" else "") + stripped)
        else:
            end_list()
            out.append(re.sub(r"^\\brief\s+", "", line))
    end_list()
    for i in sentence_ends:
        if not out[i].endswith((".", "!", "?")):
            out[i] += "."
    text = "\n".join(out)
    text = re.sub(r"\\[pca]\s+(\S)", r"\1", text)
    text = re.sub(r"\\note\b\s*", "Note: ", text)
    unknown = re.search(r"\\[A-Za-z]+", text)
    if unknown:
        raise ValueError(f"{where}: doxygen command {unknown.group()} has no "
                         "plain-text form in extract_docstrings.py")
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def declared_name(code):
    """("class", name), ("function", name) or None for a declaration's code."""
    code = re.sub(r"\b(public|protected|private)\s*:", " ", code)
    code = re.sub(r"^\s*template\s*<[^>]*>", " ", code).strip()
    m = re.match(r"(?:class|struct)\s+(?:[A-Z][A-Z0-9_]*\s+)*(\w+)", code)
    if m:
        return "class", m.group(1)
    if "(" in code and not code.startswith(("typedef", "using")):
        m = re.search(r"(~?\w+)\s*$", code[:code.index("(")])
        if m:
            return "function", m.group(1)
    return None


def extract(path):
    """{"class", "class::method", "function": docstring} of one header."""
    text = open(path, encoding="utf-8").read()
    docs = {}
    scopes = []  # (class name, brace depth inside it)
    depth = 0
    code = ""
    pending = None

    def declared():
        nonlocal pending
        what = declared_name(code) if pending else None
        if what:
            key = "::".join([s for s, _ in scopes] + [what[1]])
            doc = plain_text(comment_lines(pending), f"{path}: {key}")
            docs[key] = docs[key] + "\n\n" + doc if key in docs else doc
        pending = None
        return what

    for m in TOKENS.finditer(text):
        kind, token = m.lastgroup, m.group()
        if kind in ("doc", "linedoc"):
            pending = token
        elif kind == "punct" and token == "{":
            what = declared()
            if what is None:
                what = declared_name(code)
            depth += 1
            if what and what[0] == "class":
                scopes.append((what[1], depth))
            code = ""
        elif kind == "punct" and token == ";":
            declared()
            code = ""
        elif kind == "punct":  # }
            if scopes and scopes[-1][1] == depth:
                scopes.pop()
            depth -= 1
            code = ""
        elif kind in ("code", "string"):
            code += token
    return docs


def cpp_header(docs, sources):
    """The generated header: namespace wideband_pydoc, a constant per doc."""
    lines = [
        "// Generated by python/wideband/bindings/extract_docstrings.py from",
        "// " + ", ".join(sources) + ".",
        "// Do not edit: edit the header comments.",
        "",
        "#ifndef INCLUDED_WIDEBAND_PYDOC_H",
        "#define INCLUDED_WIDEBAND_PYDOC_H",
        "",
        "namespace wideband_pydoc {",
    ]

    def constant(name, doc):
        if ")pydoc\"" in doc:
            raise ValueError(f"{name}: the docstring holds the raw string's end")
        return [f'constexpr const char* {name} = R"pydoc({doc})pydoc";']

    by_class = {}
    for key, doc in sorted(docs.items()):
        scope, _, name = key.rpartition("::")
        by_class.setdefault(scope, []).append((name, doc))
    classes = {key for key in docs if "::" not in key and key in by_class}
    for name, doc in by_class.get("", []):
        if name not in classes:
            lines += constant(name, doc)
    for cls in sorted(classes):
        lines += ["", f"namespace {cls} {{"]
        lines += constant("doc", docs[cls])
        for name, doc in by_class[cls]:
            lines += constant(name, doc)
        lines.append(f"}} // namespace {cls}")
    # classes with documented members but no class comment
    for cls in sorted(set(by_class) - classes - {""}):
        raise ValueError(f"{cls}: members documented, the class not")
    lines += ["", "} // namespace wideband_pydoc", "", "#endif", ""]
    return "\n".join(lines)


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: extract_docstrings.py OUTPUT.h HEADER.h ...")
    output, headers = argv[1], argv[2:]
    docs = {}
    for header in headers:
        for key, doc in extract(header).items():
            if key in docs:
                sys.exit(f"{header}: {key} documented in two headers")
            docs[key] = doc
    with open(output, "w", encoding="utf-8") as f:
        f.write(cpp_header(docs, [os.path.basename(h) for h in headers]))


if __name__ == "__main__":
    main(sys.argv)
