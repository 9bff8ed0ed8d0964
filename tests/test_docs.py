"""
The README and docs/ hold together: every relative link names a file that exists and, with an
anchor, a heading of that file (as GitHub makes anchors); the README stays a few screens.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK_RE = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE_RE = re.compile(r"^```.*?^```", re.M | re.S)


def prose(path):
    """The Markdown outside code blocks: a link inside one is an example, not a link."""
    return FENCE_RE.sub("", path.read_text())


def anchors(path):
    """The anchors GitHub gives the headings of ``path``."""
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", prose(path), re.M):
        plain = re.sub(r"[`*]", "", heading).strip().lower()
        found.add(re.sub(r"[^\w\- ]", "", plain).replace(" ", "-"))
    return found


def links(path):
    for target in LINK_RE.findall(prose(path)):
        if not re.match(r"[a-z]+:", target):  # http:, https:, mailto: lead elsewhere
            yield target


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves(document):
    broken = []
    for target in links(document):
        where, _, anchor = target.partition("#")
        file = (document.parent / where).resolve() if where else document
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no such heading in {file.name}")
    assert not broken, broken


def test_the_readme_opens_with_the_two_commands_and_fits_a_few_screens():
    readme = (ROOT / "README.md").read_text()
    first_block = readme.split("```")[1]
    assert "make run" in first_block and "make test" in first_block
    assert len(readme.splitlines()) <= 150
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in readme, f"the README does not lead to {page.name}"


def test_the_readme_says_what_it_answers_before_accounts_and_lists_every_page(db):
    """Issue 43: the README explained editor accounts and the secret key before it said what
    the catalog is, and listed no public page. Every page of the menu is named there."""
    from django.urls import reverse

    from releases import surfaces

    readme = (ROOT / "README.md").read_text()
    assert readme.index("## What it answers") < readme.index("create_editor")
    assert readme.index("## What it answers") < readme.index("secret key")
    for _label, name in surfaces.menu():
        assert f"`{reverse(name)}`" in readme, name
