#!/usr/bin/env python3
"""Fails when a public symbol of the given symbol graphs has no doc comment of its own (one
inherited from a protocol requirement does not count).

Usage: scripts/doc-coverage.py DIR...   (directories of *.symbols.json, as the DocC plugin or
`swift package dump-symbol-graph` write them)

Symbols the compiler synthesizes (memberwise initializers, `!=` from Equatable, protocol
extension defaults re-listed on conforming types) are not written in PQL's source and are
skipped; every symbol declared in PQL's sources, members of extensions on other modules' types
included, must carry a `///` comment.
"""
import json
import os
import sys

PUBLIC = {"public", "open"}


def symbols(directory):
    """(the graph's module, symbol) for every symbol of every graph in `directory`."""
    for name in sorted(os.listdir(directory)):
        if name.endswith(".symbols.json"):
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                graph = json.load(f)
            for symbol in graph.get("symbols", []):
                yield graph["module"]["name"], symbol


def main(directories):
    missing = []
    seen = 0
    for directory in directories:
        for graph_module, s in symbols(directory):
            if s.get("accessLevel") not in PUBLIC:
                continue
            precise = s["identifier"]["precise"]
            if "::SYNTHESIZED::" in precise:
                continue
            location = s.get("location")
            if location is None:
                continue  # declared outside the sources (implicit members)
            path = location.get("uri", "")
            if "/Sources/" not in path:
                continue
            seen += 1
            doc_comment = s.get("docComment", {})
            comment = doc_comment.get("lines", [])
            # A comment from another module is a protocol requirement's, inherited by an
            # implementation that has none of its own (`description`, `==`, literal inits).
            inherited = doc_comment.get("module") not in (None, graph_module)
            if inherited or not any(line.get("text", "").strip() for line in comment):
                line = location.get("position", {}).get("line", 0) + 1
                where = path.split("/Sources/", 1)[1]
                title = ".".join(s.get("pathComponents", [])) or s["names"]["title"]
                missing.append(f"Sources/{where}:{line}: {s['kind']['displayName'].lower()} {title}")
    for m in sorted(set(missing)):
        print(f"undocumented: {m}")
    print(f"doc coverage: {seen - len(set(missing))} of {seen} public symbols documented", file=sys.stderr)
    if seen == 0:
        print("doc coverage: no public symbols found; wrong directory?", file=sys.stderr)
        return 1
    return 1 if missing else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
