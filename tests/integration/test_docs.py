"""The documentation as a user reads it: every relative link of README.md and docs/*.md
leads to a file (and, for #anchors into Markdown files, to a heading); no history words."""
import re

import pytest

from conftest import ROOT

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def docs():
    return [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def anchors(path):
    """GitHub's anchors: lower case, punctuation dropped, spaces to hyphens."""
    out = set()
    fence = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fence = not fence
        if fence or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
        n = 1
        base = slug
        while slug in out:
            slug = f"{base}-{n}"
            n += 1
        out.add(slug)
    return out


def links(path):
    text = path.read_text()
    text = re.sub(r"```.*?```", "", text, flags=re.S)      # code blocks are not links
    text = re.sub(r"`[^`\n]*`", "", text)                   # nor inline code
    return LINK.findall(text)


def test_docs_exist():
    assert len(docs()) > 5


@pytest.mark.parametrize("doc", docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc):
    bad = []
    for target in links(doc):
        if re.match(r"^[a-z]+:", target):                   # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (doc.parent / path).resolve() if path else doc
        if not dest.exists():
            bad.append(f"{target}: no such file")
            continue
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not bad, f"{doc.relative_to(ROOT)}: " + "; ".join(bad)


@pytest.mark.parametrize("doc", docs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_history_words(doc):
    """Docs describe the software as it is: no "session N" narrative."""
    hits = [f"{i}: {line.strip()[:80]}" for i, line in enumerate(doc.read_text().splitlines(), 1)
            if re.search(r"\bsession \d|\bsession-\d|\bsessions? \d", line, re.I)]
    assert not hits, f"{doc.relative_to(ROOT)}: " + "; ".join(hits[:5])


def test_link_checker_sees_a_broken_link(tmp_path):
    """The check above can fail: a missing file and a missing heading are both caught."""
    d = tmp_path / "d.md"
    d.write_text("# Title\n\n[x](missing.md) [y](d.md#nope) [z](d.md#title) `[no](skip.md)`\n")
    found = links(d)
    assert found == ["missing.md", "d.md#nope", "d.md#title"]
    assert "title" in anchors(d) and "nope" not in anchors(d)
