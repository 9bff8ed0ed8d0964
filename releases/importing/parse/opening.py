"""
What a post's opening (its text before the first heading) says besides features: the
highlights, the release notes URL, the commit and contributor counts, and the summary table
that lists features by stage.
"""

import html.parser
import re

from .blocks import inline_text
from .labels import stage_of
from .links import links_of_inline

COMMITS_RE = re.compile(r"([\d,]+)\s+commits", re.I)
CONTRIBUTORS_RE = re.compile(r"([\d,]+)\s+contributors", re.I)


class _TableReader(html.parser.HTMLParser):
    """The rows of an HTML table: each cell's text and the hrefs of its links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows = []  # [[(text, [href, ...]), ...], ...]
        self._cell = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in {"td", "th"} and self.rows:
            self._cell = ([], [])
        elif tag == "a" and self._cell is not None:
            self._cell[1].append(dict(attrs).get("href") or "")

    def handle_endtag(self, tag):
        if tag in {"td", "th"} and self._cell is not None:
            self.rows[-1].append((" ".join("".join(self._cell[0]).split()), self._cell[1]))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[0].append(data)


def summary_table(block):
    """
    A post's summary table (columns headed by stages, one feature a cell) as
    [(title, stability or None, [href, ...])], column by column; [] for any other table.
    """
    if block.kind != "html" or "<table" not in block.html.lower():
        return []
    reader = _TableReader()
    reader.feed(block.html)
    rows = [row for row in reader.rows if row]
    if len(rows) < 2:
        return []
    stages = [stage_of(text.strip(" *:")) for text, _ in rows[0]]
    if not any(stages):
        return []
    items = []
    for column, stability in enumerate(stages):
        for row in rows[1:]:
            if column < len(row) and row[column][0]:
                items.append((row[column][0], stability, row[column][1]))
    return items


def preamble_facts(blocks, base_url):
    """Highlights, release notes URL and counts from the text before the first heading."""
    highlights, notes_url, text = [], "", []
    highlight_list = None
    for block in blocks:
        if block.kind != "inline":
            continue
        plain = inline_text(block.token.children)
        text.append(plain)
        if block.list_id is None and re.search(r"highlights?\b", plain, re.I):
            highlight_list = "next"
        if block.list_id is not None and highlight_list in {"next", block.list_id}:
            highlight_list = block.list_id
            if block.is_item_start:
                highlights.append(re.sub(r"^\s*\d+\s*[-.)]\s*", "", plain).rstrip(" ;"))
        elif block.list_id is None and highlight_list not in {None, "next"}:
            highlight_list = None
        for link in links_of_inline(block, base_url):
            if not notes_url and link.kind == "release_notes":
                notes_url = link.url
        if not notes_url and re.search(r"release notes", plain, re.I):
            links = links_of_inline(block, base_url)
            notes_url = links[-1].url if links else ""
    joined = " ".join(text)
    commits = COMMITS_RE.search(joined)
    contributors = CONTRIBUTORS_RE.search(joined)
    return {
        "highlights": highlights,
        "release_notes_url": notes_url,
        "commit_count": int(commits.group(1).replace(",", "")) if commits else None,
        "contributor_count": int(contributors.group(1).replace(",", "")) if contributors else None,
    }
