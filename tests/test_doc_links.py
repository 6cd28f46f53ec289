"""Every relative link in the repository's Markdown (README, docs/, experiments/) leads to a file that exists,
and a link to a section of a Markdown file to a heading it has (GitHub's anchors)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(p for p in ROOT.rglob("*.md") if not any(part.startswith(".") for part in p.relative_to(ROOT).parts))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings (outside code blocks): lower case, punctuation but
    hyphens dropped, spaces as hyphens, a repeated one numbered."""
    out: set[str] = set()
    fenced = False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"#{1,6}\s+(.*)", line)
        if heading:
            base = re.sub(r"[^\w\- ]", "", heading.group(1).replace("`", "").strip().lower()).replace(" ", "-")
            name, n = base, 1
            while name in out:
                name, n = f"{base}-{n}", n + 1
            out.add(name)
    return out


def test_the_pages_are_found() -> None:
    assert ROOT / "README.md" in PAGES and ROOT / "docs" / "priors.md" in PAGES


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(page: Path) -> None:
    broken = []
    for link in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", link):
            continue  # a web address
        path, _, section = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists() or (section and target.suffix == ".md" and section not in anchors(target)):
            broken.append(link)
    assert not broken, f"{page.relative_to(ROOT)}: broken links {broken}"
