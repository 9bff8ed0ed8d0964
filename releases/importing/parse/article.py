"""
Articles of the new blog (pytorch.org/blog from 2.8 on, served as HTML pages rather than kept
as Jekyll markdown): the title, date and canonical URL from the page, and the article's body
as the markdown the later stages read (headings, paragraphs, lists, links, bold, tables),
read with BeautifulSoup's ``html.parser``.

Every markdown line written stands for one HTML element and remembers that element's line in
the page (``sourceline``): a paragraph is written on one line, so its links and claims are on
its element's line, and features, links and claims point into the HTML file as they point into
a markdown post.
"""

import re
from dataclasses import dataclass, field

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import PreformattedString

from .reading import parse_date
from .results import PostError

HTML_START_RE = re.compile(
    r"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|article)\b", re.I | re.S
)
# Where an article's text is, the most specific first.
BODY_SELECTORS = (
    '[itemprop="articleBody"]',
    ".entry-content",
    ".post-content",
    ".article-content",
    ".blog-content",
    "article",
    "main",
    "body",
)
DATE_META = (
    ("property", "article:published_time"),
    ("name", "article:published_time"),
    ("itemprop", "datePublished"),
    ("name", "date"),
    ("name", "publish-date"),
    ("name", "pubdate"),
)
# Page furniture, never the article's text.
SKIPPED = {
    "script", "style", "noscript", "template", "svg", "iframe", "form", "nav", "footer",
    "aside", "button", "figure", "picture", "video", "audio", "img", "hr", "head", "title",
    "canvas", "object", "select", "input", "textarea", "label",
}  # fmt: skip
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
LISTS = {"ul", "ol"}
# Elements that hold blocks; an element not named here or below is inline.
CONTAINERS = {
    "div", "section", "article", "main", "header", "body", "html", "center", "details",
    "summary", "dl", "dd", "dt",
}  # fmt: skip
BLOCKS = HEADINGS | LISTS | CONTAINERS | {"p", "pre", "table", "blockquote", "li"}
# Characters that would be markdown where the page meant text.
ESCAPED_RE = re.compile(r"([\\`*_\[\]<>#|&!~])")
# At the start of a line: what would open a list, a quote, a heading underline.
LINE_START_RE = re.compile(r"^(\s*)([-+=>]|\d+[.)])")


def looks_like_html(text, filename=""):
    """An HTML page, by its file name (.html, .htm) or by how it begins (a markdown post begins
    with its front matter)."""
    name = str(filename or "").lower().split("?")[0]
    if name.endswith((".html", ".htm")):
        return True
    if name.endswith((".md", ".markdown")):
        return False
    return bool(HTML_START_RE.match(text[:4096].lstrip("\ufeff")))


@dataclass
class Article:
    title: str
    published: str  # the date as the page gives it, "" for none
    date_line: int | None
    canonical_url: str
    markdown: str
    # The HTML line of each markdown line: line_map[n] for markdown line n (1-based).
    line_map: dict = field(default_factory=dict)


def read_article(text):
    """The article of an HTML page; PostError when the page holds none."""
    soup = BeautifulSoup(text, "html.parser")
    title = article_title(soup)
    published, date_line = published_date(soup)
    body = next((found for s in BODY_SELECTORS if (found := soup.select_one(s)) is not None), soup)
    writer = MarkdownWriter(skip_title=title)
    writer.blocks(body)
    return Article(
        title=title,
        published=published,
        date_line=date_line,
        canonical_url=canonical_url(soup),
        markdown="\n".join(writer.lines) + "\n",
        line_map={number: line for number, line in enumerate(writer.source, start=1)},
    )


def meta_content(soup, attribute, value):
    tag = soup.find("meta", attrs={attribute: value})
    content = tag.get("content") if tag is not None else None
    return (" ".join(content.split()), tag.sourceline) if content else ("", None)


def article_title(soup):
    """og:title, else the article's <h1>, else the page's <title> without the site's name."""
    title, _ = meta_content(soup, "property", "og:title")
    if title:
        return title
    heading = soup.find("h1")
    if heading is not None and heading.get_text(strip=True):
        return " ".join(heading.get_text(" ").split())
    if soup.title is not None and soup.title.string:
        site, _ = meta_content(soup, "property", "og:site_name")
        text = " ".join(soup.title.string.split())
        for separator in (" | ", " – ", " — ", " - "):
            head, _, tail = text.rpartition(separator)
            if head and (not site or tail.strip().lower() == site.lower()):
                return head.strip()
        return text
    return ""


def published_date(soup):
    """(the date as the page states it, its line): a meta tag's, else the first <time>'s."""
    for attribute, value in DATE_META:
        content, line = meta_content(soup, attribute, value)
        if content:
            return content, line
    time = soup.find("time", attrs={"datetime": True})
    if time is not None and time["datetime"].strip():
        return time["datetime"].strip(), time.sourceline
    return "", None


def article_date(article):
    """The article's date; PostError naming its line when the page states one that is not."""
    if not article.published:
        return None
    date = parse_date(article.published)
    if date is None:
        raise PostError(f"'{article.published}' is not a date", article.date_line)
    return date


def canonical_url(soup):
    for tag in soup.find_all("link", href=True):
        if "canonical" in [value.lower() for value in tag.get("rel") or ()]:
            return tag["href"].strip()
    url, _ = meta_content(soup, "property", "og:url")
    return url


def plain(text):
    """Text as a browser shows it: runs of white space are one space."""
    return re.sub(r"\s+", " ", text)


def escape(text):
    return ESCAPED_RE.sub(r"\\\1", plain(text))


def wrap(inner, mark):
    """``**bold**`` with the white space outside the marks, where markdown wants it."""
    stripped = inner.strip()
    if not stripped:
        return inner
    lead = inner[: len(inner) - len(inner.lstrip())]
    trail = inner[len(inner.rstrip()) :]
    return f"{lead}{mark}{stripped}{mark}{trail}"


def code_span(text):
    text = plain(text)
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}" if text.strip() else ""


def inline(node):
    """An element's content as one line of inline markdown."""
    if isinstance(node, PreformattedString):  # comments, doctypes, CDATA
        return ""
    if isinstance(node, NavigableString):
        return escape(str(node))
    name = node.name
    if name in SKIPPED:
        return ""
    if name == "br":
        return " "
    if name == "code" or name == "kbd" or name == "tt":
        return code_span(node.get_text())
    inner = "".join(inline(child) for child in node.children)
    if name == "a":
        href = (node.get("href") or "").strip()
        if not href or not inner.strip():
            return inner
        href = href.replace("<", "%3C").replace(">", "%3E").replace(" ", "%20")
        return f"[{inner.strip()}](<{href}>)"
    if name in {"strong", "b"}:
        return wrap(inner, "**")
    if name in {"em", "i", "cite"}:
        return wrap(inner, "*")
    return inner


def line_start(text):
    """A paragraph's line, with what would open a list or a quote at its start escaped."""
    text = text.strip()
    return LINE_START_RE.sub(lambda m: m.group(1) + "\\" + m.group(2), text, count=1)


class MarkdownWriter:
    """Writes blocks of markdown, each line noted with the HTML line it stands for."""

    def __init__(self, skip_title=""):
        self.lines, self.source = [], []
        self.skip_title = " ".join(skip_title.split()).lower()

    def add(self, text, line):
        self.lines.append(text)
        self.source.append(line or (self.source[-1] if self.source else 1))

    def blank(self):
        if self.lines and self.lines[-1].strip(" >"):
            self.add("", None)

    def paragraph(self, text, line, prefix=""):
        text = line_start(text)
        if text:
            self.blank()
            self.add(prefix + text, line)
            self.blank()

    def blocks(self, node, prefix=""):
        """The block content of ``node``: runs of inline content are paragraphs."""
        run, run_line = [], None
        for child in node.children:
            if isinstance(child, Tag) and (child.name in BLOCKS or child.name in SKIPPED):
                self.paragraph("".join(run), run_line or node.sourceline, prefix)
                run, run_line = [], None
                self.block(child, prefix)
            else:
                if run_line is None and isinstance(child, Tag):
                    run_line = child.sourceline
                run.append(inline(child))
        self.paragraph("".join(run), run_line or node.sourceline, prefix)

    def block(self, tag, prefix=""):
        name = tag.name
        if name in SKIPPED:
            return
        if name in HEADINGS:
            text = inline(tag).strip()
            if name == "h1" and " ".join(tag.get_text(" ").split()).lower() == self.skip_title:
                return  # the article's title, already read from the page
            if text:
                self.blank()
                self.add(f"{prefix}{'#' * int(name[1])} {text}", tag.sourceline)
                self.blank()
        elif name == "p":
            self.paragraph(inline(tag), tag.sourceline, prefix)
        elif name in LISTS:
            self.blank()
            self.list(tag, prefix, "")
            self.blank()
        elif name == "pre":
            self.code(tag, prefix)
        elif name == "table":
            self.blank()
            self.add(prefix + " ".join(str(tag).split()), tag.sourceline)
            self.blank()
        elif name == "blockquote":
            self.blocks(tag, prefix + "> ")
        else:
            self.blocks(tag, prefix)

    def code(self, tag, prefix, indent=""):
        text = tag.get_text().strip("\n")
        fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
        self.blank()
        self.add(f"{prefix}{indent}{fence}", tag.sourceline)
        for offset, line in enumerate(text.split("\n"), start=1):
            self.add(f"{prefix}{indent}{line}", tag.sourceline + offset)
        self.add(f"{prefix}{indent}{fence}", self.source[-1])
        self.blank()

    def list(self, tag, prefix, indent):
        number = int(tag.get("start") or 1) if str(tag.get("start") or "1").isascii() else 1
        for item in tag.find_all("li", recursive=False):
            marker = f"{number}." if tag.name == "ol" else "-"
            number += 1
            self.item(item, prefix, indent, marker)

    def item(self, item, prefix, indent, marker):
        """A list item: its first paragraph on the marker's line, the rest indented under it."""
        pad = indent + " " * (len(marker) + 1)
        first = True
        for kind, content, line in self.parts(item):
            if kind == "text":
                text = line_start(content)
                if not text:
                    continue
                if first:
                    self.add(f"{prefix}{indent}{marker} {text}", line)
                    first = False
                else:
                    self.blank()
                    self.add(f"{prefix}{pad}{text}", line)
            else:
                if first:
                    self.add(f"{prefix}{indent}{marker}", item.sourceline)
                    first = False
                if content.name in LISTS:
                    self.list(content, prefix, pad)
                elif content.name == "pre":
                    self.code(content, prefix, pad)
                elif content.name == "table":
                    self.blank()
                    self.add(prefix + pad + " ".join(str(content).split()), content.sourceline)
        if first:
            self.add(f"{prefix}{indent}{marker}", item.sourceline)

    def parts(self, node):
        """A list item's paragraphs (kind "text") and nested lists, code and tables, in order."""
        run, run_line = [], None
        for child in node.children:
            if isinstance(child, Tag) and child.name in SKIPPED:
                continue
            if isinstance(child, Tag) and child.name in BLOCKS:
                if run:
                    yield "text", "".join(run), run_line or node.sourceline
                run, run_line = [], None
                if child.name in {"p", *HEADINGS}:
                    yield "text", inline(child), child.sourceline
                elif child.name in LISTS or child.name in {"pre", "table"}:
                    yield "block", child, child.sourceline
                else:
                    yield from self.parts(child)
            else:
                if run_line is None and isinstance(child, Tag):
                    run_line = child.sourceline
                run.append(inline(child))
        if run:
            yield "text", "".join(run), run_line or node.sourceline
