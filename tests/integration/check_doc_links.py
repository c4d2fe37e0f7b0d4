#!/usr/bin/env python3
"""Every relative Markdown link of README.md and docs/*.md points to an existing file.

  check_doc_links.py ROOT

A link is `[text](target)` or `![alt](target)` outside fenced code blocks and inline code; a target
with a scheme (https:, mailto:) is not checked. The path part is resolved from the linking file's
folder and must name a file or folder inside ROOT; a `#fragment` on a Markdown file must be one
of that file's headings as GitHub turns it into an anchor (lower case, punctuation other than
`-` and `_` dropped, spaces to `-`, a repeated heading gaining `-1`, `-2`, ...). Prints each
broken link as FILE:LINE: TARGET: why, then a summary line; exit 0 when none is broken, 1
otherwise, 2 on bad usage.
"""
import pathlib
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def outside_fences(text):
    """(line number, line) of the lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence is not None:
            if stripped.startswith(fence):
                fence = None
        else:
            yield number, line


def prose_lines(text):
    """(line number, line with inline code blanked) of the lines outside fenced code blocks."""
    for number, line in outside_fences(text):
        yield number, re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)


def anchors(path):
    """The anchors GitHub gives the headings of a Markdown file."""
    seen = {}
    out = set()
    for _, line in outside_fences(path.read_text()):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def main():
    if len(sys.argv) != 2 or not pathlib.Path(sys.argv[1]).is_dir():
        print("usage: check_doc_links.py ROOT", file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    files = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    checked = broken = 0
    for md in files:
        for number, line in prose_lines(md.read_text()):
            for target in LINK.findall(line):
                if SCHEME.match(target):
                    continue
                checked += 1
                path, _, fragment = target.partition("#")
                dest = (md.parent / path).resolve() if path else md
                why = None
                if dest != root and root not in dest.parents:
                    why = "outside the repository"
                elif not dest.exists():
                    why = "no such file"
                elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
                    why = f"no heading with anchor #{fragment} in {dest.relative_to(root)}"
                if why:
                    broken += 1
                    print(f"{md.relative_to(root)}:{number}: {target}: {why}")
    print(f"check_doc_links: {checked} relative links in {len(files)} files, {broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
