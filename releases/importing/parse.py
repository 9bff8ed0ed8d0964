"""
Parse a PyTorch release announcement (Jekyll front matter + markdown) into plain dataclasses.

No Django here: the ``import_post`` command maps the result onto models. The markdown is read
with markdown-it-py, so fenced code (and the ``#`` comment lines inside it) never turns into
headings, and links are the parser's links rather than regex guesses.

How a post becomes features
---------------------------
Headings (and bold-only paragraphs standing in for headings) form a tree of sections.

* A heading tagged with a stability label, as a prefix (``[Beta] X``, ``(Prototype) X``) or a
  suffix (``X (Stable)``), is a feature, unless it only groups other tagged features, in which
  case it is a container whose label is the default for its untagged items.
* A heading that names a stability level ("Prototype Features", "**Beta Features**") sets the
  stability of the untagged items under it.
* A top-level heading, or one that has sub-headings, is an area ("Frontend APIs").
* An untagged heading with no sub-headings below an area is a feature with no stability
  (a domain library's new version, say), unless it reads like an event or a sign-off.
* Inside a section, list items and paragraphs that open with a tagged bold name
  (``* **(Prototype) Name** - ...``) are features of their own.
* "Experimental", PyTorch's name for Beta before 1.6, is read as Beta.

Every hyperlink in a feature's section is one of its links; placeholders such as
``Documentation | Link **Missing Link**`` are links with no URL.
"""

import datetime as dt
import html.parser
import os
import re
import stat
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import yaml
from markdown_it import MarkdownIt

from .. import versions
from . import claims

DEFAULT_BASE_URL = "https://pytorch.org/"

STABILITY_WORDS = {
    "stable": "stable",
    "beta": "beta",
    "prototype": "prototype",
    "experimental": "beta",  # renamed to Beta when PyTorch classified features in 2020
}
_STABILITY = r"(?P<stability>stable|beta|prototype|experimental)"
# "(Now Stable)" and "[Now in Beta]" tag a heading as "(Stable)" and "[Beta]" do.
_NOW = r"(?:now\s+(?:in\s+)?)?"
TAG_PREFIX_RE = re.compile(
    rf"^\s*[\[(]\s*{_NOW}{_STABILITY}(?:\s+features?)?\s*[\])]\s*[:\-–—]?\s*(?P<rest>.*)$", re.I
)
TAG_SUFFIX_RE = re.compile(
    rf"^(?P<rest>.*?)\s*[\[(]\s*{_NOW}{_STABILITY}\s*[\])]\s*[.:]?\s*$", re.I
)
STABILITY_SECTION_RE = re.compile(rf"\b{_STABILITY}\s+(features?|apis?|updates?)\b", re.I)

# Sections that are never features: events, community news, sign-offs. (A deprecation is
# announced like a feature: "Deprecation of CUDA 10.2" is one.)
NON_FEATURE_RE = re.compile(
    r"hackathon|challenge|developer day|ecosystem day|summit|conference|\bevents?\b|meetup|"
    r"webinar|workshop|\bcommunity\b|thank|cheers|acknowledg|follow us|stay connected|"
    r"get involved|join us|what'?s next|getting started|next steps|conclusion",
    re.I,
)
# "Introducing X", "Announcing X", "Feature: X": the feature is X.
INTRODUCING_RE = re.compile(
    r"^(?:(?:introducing|announcing|meet)\s+(?:the\s+)?|(?:new\s+)?feature\s*:\s*)", re.I
)
SIGN_OFF_RE = re.compile(r"^\s*(thanks for reading|thank you|cheers|team pytorch)\b", re.I)
LIBRARY_RELEASE_RE = re.compile(r"^(?P<name>[A-Za-z][\w\-]*)\s+v?\d+(\.\d+)+$")
TITLE_VERSION_RE = re.compile(
    r"\bPyTorch\s+v?(\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc)\d+)?)(?![\w.])", re.I
)
# Jekyll's post names: YYYY-M-D-slug.md, with or without zero padding.
FILENAME_DATE_RE = re.compile(r"(?:^|/)([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})-[^/]*$")
# The blog's Jekyll permalinks: a post "2022-6-28-pytorch-1.12-released.md" is published at
# /blog/pytorch-1.12-released/ unless its front matter names another URL.
JEKYLL_POST_RE = re.compile(r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}-(?P<title>.+)\.(?:md|markdown)$")
# Front-matter dates as Jekyll takes them: a day, optionally a time and a zone.
DATE_RE = re.compile(
    r"^(?P<year>[0-9]{4})-(?P<month>[0-9]{1,2})-(?P<day>[0-9]{1,2})"
    r"(?:[T ]+(?P<time>[0-9]{1,2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)"
    r"\s*(?P<zone>Z|[+-][0-9]{2}:?[0-9]{2})?)?$"
)
# What the catalog stores: posts larger than this are refused before they are read whole.
MAX_POST_BYTES = 2 * 1024 * 1024
MAX_URL_LENGTH = 500  # Link.url's max_length
SAFE_SCHEMES = {"http", "https"}
# "Documentation | Link **Missing Link**", "Design doc (Link **Missing link**)": the label is the
# run of words before the placeholder, which stops at sentence punctuation.
MISSING_LINK_RE = re.compile(
    r"(?P<label>[A-Za-z][\w/&+\- ]{0,40}?)\s*[|(:]?\s*"
    r"\(?\s*link\s*\**\s*missing\s+link\s*\**\s*\)?",
    re.I,
)
LABEL_PREFIX_RE = re.compile(r"^\s*(?P<label>[^|\[\]()]{1,60}?)\s*(?:\||\(|:)\s*\(?\s*$")
GENERIC_LINK_TEXT = {"link", "here", "this", "click here", "this link", "see here", "[link]"}
COMMITS_RE = re.compile(r"([\d,]+)\s+commits", re.I)
CONTRIBUTORS_RE = re.compile(r"([\d,]+)\s+contributors", re.I)

# (kind, pattern) in order of precedence when a text names several kinds.
KIND_KEYWORDS = [
    ("design_doc", r"design\s+doc(?:ument)?s?"),
    ("rfc", r"rfcs?"),
    ("release_notes", r"release\s+notes"),
    ("tutorial", r"tutorials?"),
    ("recipe", r"recipes?"),
    ("usage_examples", r"(?:usage|code)\s+examples?|examples?"),
    ("documentation", r"documentation|docs?"),
    ("blog_post", r"blog(?:\s+post)?"),
    ("pull_request", r"pull\s+request|prs?"),
    ("issue", r"issues?(?:\s+tracker)?"),
    ("paper", r"papers?"),
    ("source_code", r"source\s+code|repository|repo"),
]
KIND_RE = re.compile(
    "|".join(rf"(?P<{kind}>\b(?:{pattern})\b)" for kind, pattern in KIND_KEYWORDS), re.I
)
KIND_LABELS = {
    "design_doc": "Design doc",
    "rfc": "RFC",
    "release_notes": "Release notes",
    "tutorial": "Tutorial",
    "recipe": "Recipe",
    "usage_examples": "Usage examples",
    "documentation": "Documentation",
    "blog_post": "Blog post",
    "pull_request": "Pull request",
    "issue": "Issue",
    "paper": "Paper",
    "source_code": "Source code",
    "acknowledgement": "Acknowledgement",
    "profile": "Profile",
    "other": "Link",
}
LINK_KINDS = tuple(KIND_LABELS)
# A sentence that credits rather than documents: "we acknowledge X as an influence",
# "inspired by Y", "thanks to Z". Its named links are acknowledgements, not documentation.
ACKNOWLEDGEMENT_RE = re.compile(
    r"\b(acknowledg\w*|inspir\w*|influence[sd]?|thanks?\s+to|credits?\b|grateful)", re.I
)
# Where a URL of one path segment is a person's (or a group's) page.
PROFILE_HOSTS = {"github.com", "gitlab.com", "twitter.com", "x.com"}


class PostError(ValueError):
    """The post cannot be read; ``line`` is 1-based in the file, or None for the whole file."""

    def __init__(self, message, line=None):
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass
class ParsedLink:
    kind: str
    label: str
    url: str  # "" for a link the post promised but left empty
    line: int

    @property
    def is_missing(self):
        return not self.url


# Where a feature's stability comes from: its own tag ("[Beta] X", "X (Prototype)"), or the
# section it is listed under ("Prototype Features").
# An untagged feature whose own prose states its stage ("X is in beta") takes it from there.
TAG, SECTION, CLAIM = "tag", "section", "claim"


@dataclass
class ParsedFeature:
    title: str
    slug: str
    stability: str | None
    stage_source: str  # TAG, SECTION, or "" without stability
    area: str  # the heading the post files it under; "" when it has none
    position: int
    line: int
    links: list[ParsedLink] = field(default_factory=list)
    # Links the catalog will not store, each with why: (line, label, reason).
    left_out: list[tuple[int, str, str]] = field(default_factory=list)
    # The heading of the section it is listed under (provenance); "" outside any section.
    section: str = ""


@dataclass
class ParsedClaim:
    """A sentence of the post's prose that states a stage (see ``claims``)."""

    subject: str  # the capability as the post names it; the feature's title for "it"
    stability: str
    phrase: str  # the words that state it, e.g. "graduates to beta"
    line: int
    feature: str | None  # the slug of the post's feature it names, if it names one
    section: str = ""  # the heading the sentence is under (provenance); "" before any


@dataclass
class ParsedPost:
    title: str
    version: str | None
    release_date: dt.date | None
    highlights: list[str]
    release_notes_url: str
    announcement_url: str
    commit_count: int | None
    contributor_count: int | None
    features: list[ParsedFeature]
    skipped_sections: list[str]
    claims: list[ParsedClaim] = field(default_factory=list)
    file_name: str = ""  # the post's file name, without its folder (provenance)
    # Where the post is published: its permalink, else the URL the blog's Jekyll gives its
    # file name (provenance); "" when neither says.
    post_url: str = ""


# --- reading ---------------------------------------------------------------------------------


def decode(data):
    """Bytes of a post to text, refusing binary files with the line of the first bad byte."""
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise PostError("this is a binary file, not a markdown post (NUL byte)", line)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise PostError(f"not UTF-8 text ({error.reason} at byte {error.start})", line) from None


class FrontMatterLoader(yaml.SafeLoader):
    """YAML's safe loader, leaving dates as text: parse_date reads them as Jekyll does, and a
    date that is no date ("2030-02-30") becomes an error naming its line, not a crash."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if not tag.endswith(":timestamp")]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }


def split_front_matter(text):
    """Return (front matter dict, body, number of the body's first line)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise PostError("no front matter: a post starts with a '---' line and a title", 1)
    for index in range(1, len(lines)):
        if lines[index].strip() in {"---", "..."}:
            break
    else:
        raise PostError("the front matter opened on line 1 is never closed with '---'", 1)
    try:
        meta = yaml.load("".join(lines[1:index]), Loader=FrontMatterLoader) or {}
    except yaml.YAMLError as error:
        # Where the broken construct began, else where the parser gave up.
        mark = getattr(error, "context_mark", None) or getattr(error, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 2
        problem = getattr(error, "problem", None) or "cannot be read"
        raise PostError(f"the front matter is not valid YAML: {problem}", line) from None
    if not isinstance(meta, dict):
        raise PostError("the front matter is not a set of 'key: value' lines", 2)
    return meta, "".join(lines[index + 1 :]), index + 2


def version_from_title(title):
    match = TITLE_VERSION_RE.search(title or "")
    return versions.normalize(match.group(1)) if match else None


def slugify(text, max_length=100):
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(slug) > max_length:
        slug = slug[:max_length].rsplit("-", 1)[0]
    return slug or "feature"


def split_stability(text):
    """("[Beta] Name" or "Name (Beta)") -> ("Name", "beta"); untagged -> (text, None)."""
    for pattern in (TAG_PREFIX_RE, TAG_SUFFIX_RE):
        match = pattern.match(text)
        if match and match.group("rest").strip():
            return match.group("rest").strip(), STABILITY_WORDS[match.group("stability").lower()]
    return text.strip(), None


def stability_of_section(text):
    """ "Prototype Features" -> "prototype": headings that label the items under them."""
    match = STABILITY_SECTION_RE.search(text)
    return STABILITY_WORDS[match.group("stability").lower()] if match else None


def first_kind(text):
    match = KIND_RE.search(text or "")
    return match.lastgroup if match else None


def last_kind(text):
    kinds = [match.lastgroup for match in KIND_RE.finditer(text or "")]
    return kinds[-1] if kinds else None


def kind_from_url(url):
    parts = urlsplit(url)
    host, path = parts.netloc.lower(), parts.path.lower()
    segments = [segment for segment in path.split("/") if segment]
    if host.endswith("github.com"):
        if "pull" in segments:
            return "pull_request"
        if "issues" in segments:
            return "issue"
        if "releases" in segments:
            return "release_notes"
        if segments[:2] == ["pytorch", "examples"]:
            return "usage_examples"
        return "source_code" if len(segments) >= 2 else "other"
    if "arxiv.org" in host:
        return "paper"
    if "/recipes/" in path:
        return "recipe"
    if "/tutorials/" in path:
        return "tutorial"
    if "/docs/" in path or "/cppdocs/" in path or "/doc/" in path or host.startswith("docs."):
        return "documentation"
    if "/blog/" in path or "medium.com" in host:
        return "blog_post"
    return "other"


# --- markdown to blocks ----------------------------------------------------------------------


@dataclass
class Block:
    """A paragraph, list item paragraph, table cell or HTML block, in post order."""

    kind: str  # "inline" or "html"
    line: int
    token: object = None  # the inline token, for kind == "inline"
    html: str = ""
    list_id: int | None = None  # the outermost list it sits in
    item_id: int | None = None  # the outermost list item it sits in
    is_item_start: bool = False  # the first paragraph of that item
    is_bold_heading: bool = False  # a paragraph that is nothing but bold text
    in_bold_list: bool = False  # an item of a list whose every item opens in bold, with a link

    @property
    def source(self):
        return self.token.content if self.token is not None else self.html


@dataclass
class Heading:
    level: int
    text: str
    line: int
    token: object = None  # the inline token, whose links are the feature's

    def as_block(self):
        """The heading's text as a block, for the links it holds ("### [X](url) for Y")."""
        if self.token is None or not any(t.type == "link_open" for t in self.token.children or ()):
            return None
        return Block("inline", self.line, token=self.token)


@dataclass
class Section:
    heading: Heading | None
    blocks: list = field(default_factory=list)
    children: list = field(default_factory=list)

    @property
    def level(self):
        return self.heading.level if self.heading else 0

    def subtree_blocks(self):
        yield from self.blocks
        for child in self.children:
            yield from child.subtree_blocks()

    def descendants(self):
        for child in self.children:
            yield child
            yield from child.descendants()


def inline_text(children):
    """Plain text of inline tokens: code spans keep their text, images and markup go."""
    parts = []
    for token in children or ():
        if token.type in {"text", "code_inline"}:
            parts.append(token.content)
        elif token.type in {"softbreak", "hardbreak"}:
            parts.append(" ")
    return " ".join("".join(parts).split())


def is_bold_only(children):
    """A paragraph made of one bold run (and nothing else but white space)."""
    meaningful = [
        token for token in children if not (token.type == "text" and not token.content.strip())
    ]
    return (
        len(meaningful) >= 3
        and meaningful[0].type == "strong_open"
        and meaningful[-1].type == "strong_close"
        and not any(token.type == "strong_open" for token in meaningful[1:-1])
    )


def to_blocks(body, first_line):
    """Flatten markdown-it's token stream into headings and blocks, with list membership."""
    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    # markdown-it would silently drop javascript: and data: links; link_problem names them in
    # the report instead, and they are never stored.
    md.validateLink = lambda url: True
    tokens = md.parse(body)
    items = []
    list_depth = 0
    list_id = item_id = None
    item_started = False
    counter = 0
    heading_level = None
    for index, token in enumerate(tokens):
        line = first_line + (token.map[0] if token.map else 0)
        if token.type in {"bullet_list_open", "ordered_list_open"}:
            list_depth += 1
            if list_depth == 1:
                counter += 1
                list_id = counter
        elif token.type in {"bullet_list_close", "ordered_list_close"}:
            list_depth -= 1
            if list_depth == 0:
                list_id = item_id = None
        elif token.type == "list_item_open" and list_depth == 1:
            counter += 1
            item_id = counter
            item_started = True
        elif token.type == "heading_open":
            heading_level = int(token.tag[1])
        elif token.type == "inline" and heading_level is not None:
            items.append(Heading(heading_level, inline_text(token.children), line, token))
            heading_level = None
        elif token.type == "inline":
            in_cell = tokens[index - 1].type in {"th_open", "td_open"}
            items.append(
                Block(
                    "inline",
                    line,
                    token=token,
                    list_id=list_id,
                    item_id=item_id,
                    is_item_start=item_started and list_depth >= 1,
                    is_bold_heading=(
                        list_depth == 0 and not in_cell and is_bold_only(token.children)
                    ),
                )
            )
            if list_depth >= 1:
                item_started = False
        elif token.type == "html_block":
            items.append(Block("html", line, html=token.content, list_id=list_id, item_id=item_id))
    mark_bold_lists(items)
    return items


def opens_in_bold(block):
    children = [
        token
        for token in block.token.children or []
        if not (token.type == "text" and not token.content.strip())
    ]
    return bool(children) and children[0].type == "strong_open"


def mark_bold_lists(items):
    """
    Lists of features written as bold items: two or more items, each opening with a bold name
    and carrying a link of its own ("**Faster X**: ... [docs](...)"). A list whose items have
    no links is one feature's parts or prose, not features.
    """
    lists = {}
    for item in items:
        if isinstance(item, Block) and item.kind == "inline" and item.list_id is not None:
            lists.setdefault(item.list_id, []).append(item)
    for blocks in lists.values():
        starts = [block for block in blocks if block.is_item_start]
        linked = {
            block.item_id
            for block in blocks
            if any(token.type == "link_open" for token in block.token.children or [])
        }
        if len(starts) >= 2 and all(
            opens_in_bold(block) and block.item_id in linked for block in starts
        ):
            for block in blocks:
                block.in_bold_list = True


def promote_bold_headings(items):
    """
    Bold-only paragraphs that label a feature or a stability level act as headings. Once a
    post has written a tagged feature heading as a bold paragraph, an untagged one followed by
    prose is a feature heading too ("**Faster kernels**" under "## Performance").
    """
    result = []
    real_level = 0
    stability_section_level = None
    bold_features = False
    for index, item in enumerate(items):
        if isinstance(item, Heading):
            real_level = item.level
            stability_section_level = None
            result.append(item)
            continue
        if item.kind == "inline" and item.is_bold_heading:
            text = inline_text(item.token.children).strip()
            title, tag = split_stability(text)
            if tag is None and stability_of_section(text) and len(text) <= 60:
                stability_section_level = real_level + 1
                result.append(Heading(real_level + 1, text, item.line, item.token))
                continue
            is_labelled = tag is not None or (
                stability_section_level is not None and not text.rstrip().endswith(":")
            )
            if tag is None and bold_features and is_bold_feature_name(text, items[index + 1 :]):
                is_labelled = True
            bold_features = bold_features or (tag is not None and bool(title))
            if is_labelled and title:
                base = stability_section_level or real_level
                result.append(Heading(base + 1, text, item.line, item.token))
                continue
        result.append(item)
    return result


def is_bold_feature_name(text, following):
    """An untagged bold paragraph names a feature if prose, not a list, follows it."""
    if len(text) > 100 or text.rstrip().endswith(":") or is_link_label(text):
        return False
    if re.match(r"(?:table|figure|fig\.|note|image|source)\b", text, re.I):
        return False
    after = next(iter(following), None)
    return (
        isinstance(after, Block)
        and after.kind == "inline"
        and after.list_id is None
        and not after.is_bold_heading
    )


def build_tree(items):
    root = Section(None)
    stack = [root]
    for item in items:
        if isinstance(item, Heading):
            while stack[-1].heading is not None and stack[-1].level >= item.level:
                stack.pop()
            section = Section(item)
            stack[-1].children.append(section)
            stack.append(section)
        else:
            stack[-1].blocks.append(item)
    return root


# --- links -----------------------------------------------------------------------------------


class _AnchorCollector(html.parser.HTMLParser):
    """<a href> links in inline or block HTML, with the text before each as context."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.anchors = []  # (href, text, context)
        self._text = []
        self._href = None
        self._anchor_text = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._href = dict(attrs).get("href")
            self._anchor_text = []
        elif tag in {"tr", "p", "li", "div", "table", "br"}:
            self._text = []

    def handle_endtag(self, tag):
        if tag == "a" and self._href is not None:
            text = " ".join("".join(self._anchor_text).split())
            self.anchors.append((self._href, text, " ".join("".join(self._text).split())))
            self._text.append(text + " ")
            self._href = None

    def handle_data(self, data):
        (self._anchor_text if self._href is not None else self._text).append(data)


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
    stages = [STABILITY_WORDS.get(text.strip(" *:").lower()) for text, _ in rows[0]]
    if not any(stages):
        return []
    items = []
    for column, stability in enumerate(stages):
        for row in rows[1:]:
            if column < len(row) and row[column][0]:
                items.append((row[column][0], stability, row[column][1]))
    return items


def resolve_url(href, base_url):
    """An absolute URL for a link's href; "" for an anchor in the page itself."""
    href = (href or "").strip().replace("{{ site.url }}", base_url.rstrip("/"))
    href = href.replace("{{site.url}}", base_url.rstrip("/"))
    if not href or href.startswith("#"):
        return ""
    scheme = re.match(r"^([A-Za-z][A-Za-z0-9+.\-]*):", href)
    if scheme and scheme[1].lower() not in SAFE_SCHEMES:
        return href  # kept as it is, for link_problem to name
    return urljoin(base_url, href)


def link_problem(link):
    """Why the catalog will not store a link's URL, or None."""
    if not link.url:
        return None
    scheme = urlsplit(link.url).scheme.lower()
    if scheme not in SAFE_SCHEMES:
        return f"its URL's scheme '{scheme}:' is not http or https"
    if len(link.url) > MAX_URL_LENGTH:
        return f"its URL is {len(link.url)} characters long; at most {MAX_URL_LENGTH} are kept"
    return None


def describe_link(href_text, prefix, context, url):
    """Choose (kind, label) for a link from its text, the label before it, its sentence, its URL."""
    text = href_text.strip()
    generic = text.lower().strip(" .") in GENERIC_LINK_TEXT or not text
    prefix_match = LABEL_PREFIX_RE.match(prefix) if generic else None
    label = text
    if prefix_match:
        label = prefix_match.group("label").strip(" *_|:(")
    kind = first_kind(label) if label else None
    if kind is None and generic and not prefix_match:
        sentence = re.split(r"(?<=[.!?])\s+", context)[-1] if context else ""
        kind = last_kind(sentence)
    kind = kind or kind_from_url(url)
    if generic and not prefix_match:
        label = KIND_LABELS[kind]
    return kind, label


def role_of(url, sentence):
    """'profile' for a person's page, 'acknowledgement' for a link a credit names, else None."""
    parts = urlsplit(url)
    host = parts.netloc.lower().removeprefix("www.")
    segments = [segment for segment in parts.path.split("/") if segment]
    if (host in PROFILE_HOSTS and len(segments) == 1) or (
        host.endswith("linkedin.com") and segments[:1] == ["in"]
    ):
        return "profile"
    return "acknowledgement" if ACKNOWLEDGEMENT_RE.search(sentence) else None


def sentence_around(text, offset):
    """The sentence of ``text`` that the character at ``offset`` belongs to."""
    start = max((m.end() for m in re.finditer(r"[.!?]\s+", text[:offset])), default=0)
    end = re.search(r"[.!?](\s|$)", text[offset:])
    return text[start : offset + end.end()] if end else text[start:]


def with_roles(found, named, text):
    """Links named in a sentence that credits (or at a person's page) take that role."""
    for index, offset in named:
        link = found[index]
        role = role_of(link.url, sentence_around(text, offset))
        if role:
            link.kind = role
    return found


def links_of_inline(block, base_url):
    """Links of one markdown paragraph, list item paragraph or table cell, in order."""
    found = []
    children = block.token.children or []
    line = block.line
    before = []  # text seen so far in this block, for labels and context
    named = []  # (index in found, offset in the block's text) of links named by their text
    index = 0
    while index < len(children):
        token = children[index]
        if token.type in {"softbreak", "hardbreak"}:
            line += 1
            before.append("\n")
        elif token.type in {"text", "code_inline"}:
            before.append(token.content)
        elif token.type == "link_open":
            href = token.attrGet("href")
            text_parts = []
            index += 1
            while index < len(children) and children[index].type != "link_close":
                if children[index].type in {"text", "code_inline"}:
                    text_parts.append(children[index].content)
                index += 1
            text = " ".join("".join(text_parts).split())
            url = resolve_url(href, base_url)
            if url:
                prior = "".join(before)
                current_line = prior.rsplit("\n", 1)[-1]
                kind, label = describe_link(text, current_line, prior.replace("\n", " "), url)
                if text.lower().strip(" .") not in GENERIC_LINK_TEXT and text:
                    named.append((len(found), len(prior)))
                found.append(ParsedLink(kind, label, url, line))
            before.append(text)
        elif token.type == "html_inline" and token.content.lower().startswith("<a "):
            raw = [token.content]
            index += 1
            while index < len(children) and not (
                children[index].type == "html_inline"
                and children[index].content.lower().startswith("</a")
            ):
                raw.append(children[index].content)
                index += 1
            raw.append("</a>")
            collector = _AnchorCollector()
            collector.feed("".join(raw))
            for href, text, _ in collector.anchors:
                url = resolve_url(href, base_url)
                if url:
                    prior = "".join(before)
                    kind, label = describe_link(
                        text, prior.rsplit("\n", 1)[-1], prior.replace("\n", " "), url
                    )
                    found.append(ParsedLink(kind, label, url, line))
                before.append(text)
        index += 1
    return with_roles(found, named, "".join(before).replace("\n", " "))


def links_of_html(block, base_url):
    collector = _AnchorCollector()
    collector.feed(block.html)
    found = []
    for href, text, context in collector.anchors:
        url = resolve_url(href, base_url)
        if url:
            kind, label = describe_link(text, context, context, url)
            found.append(ParsedLink(kind, label, url, block.line))
    return found


def missing_links_of(block):
    found = []
    for match in MISSING_LINK_RE.finditer(block.source):
        label = match.group("label").strip(" *_|:(") or "Link"
        line = block.line + block.source[: match.start()].count("\n")
        found.append(ParsedLink(first_kind(label) or "other", label, "", line))
    return found


def links_of(blocks, base_url):
    """Every link in a feature's blocks, missing ones included, each URL once."""
    blocks = list(blocks)
    found = []
    # A bare list item such as "* Tutorial for X" among "* Kind ([Link](url))" siblings is a
    # link the post promised and never filled in.
    link_lists = {
        block.list_id
        for block in blocks
        if block.kind == "inline"
        and block.list_id
        and block.token.children
        and any(token.type == "link_open" for token in block.token.children)
        and LABEL_PREFIX_RE.match(block.source.split("[", 1)[0] + "(")
    }
    for block in blocks:
        if block.kind == "html":
            found.extend(links_of_html(block, base_url))
            continue
        missing = missing_links_of(block)
        if missing:
            found.extend(missing)
            continue
        links = links_of_inline(block, base_url)
        found.extend(links)
        text = inline_text(block.token.children)
        if (
            not links
            and block.is_item_start
            and block.list_id in link_lists
            and first_kind(text.split(" ", 1)[0])
            and len(text) <= 120
        ):
            found.append(ParsedLink(first_kind(text), text, "", block.line))
    unique, seen = [], set()
    for link in found:
        key = link.url or ("missing", link.label.lower())
        if key not in seen:
            seen.add(key)
            unique.append(link)
    return unique


# --- sections to features --------------------------------------------------------------------


def inline_feature_start(block, default_stability):
    """(title, stability) if the block opens with a bold feature name, else None."""
    if block.kind != "inline" or block.is_bold_heading:
        return None
    if block.list_id is not None and not block.is_item_start:
        return None
    children = [
        token
        for token in block.token.children or []
        if not (token.type == "text" and not token.content.strip())
    ]
    if not children or children[0].type != "strong_open":
        return None
    closing = next((i for i, token in enumerate(children) if token.type == "strong_close"), None)
    if closing is None:
        return None
    name = inline_text(children[1:closing]).strip()
    rest = inline_text(children[closing + 1 :]).lstrip()
    title, tag = split_stability(name)
    title = title.rstrip(" :-–—")
    if tag is not None and title:
        return title, tag, TAG
    if (
        default_stability is not None
        and block.list_id is not None
        and rest[:1] in {":", "-", "–", "—"}
        and title
        and not NON_FEATURE_RE.search(title)
    ):
        return title, default_stability, SECTION
    if (
        block.in_bold_list
        and title
        and not NON_FEATURE_RE.search(title)
        and not is_link_label(title)
    ):
        return title, default_stability, SECTION if default_stability else ""
    return None


def is_link_label(text):
    """A bold "Documentation" or "Tutorial:" labels a link; it names no feature."""
    return bool(KIND_RE.fullmatch(text.strip(" :").lower())) or text.strip(" :").lower() in {
        "link",
        "links",
        "docs",
        "example",
        "examples",
        "more",
        "learn more",
    }


def split_inline_features(blocks, default_stability):
    """
    Group a section's own blocks: [(title, stability, source, blocks)] and the blocks left
    over.
    """
    features, rest = [], []
    current = None
    for block in blocks:
        start = inline_feature_start(block, default_stability)
        if start is not None:
            current = (*start, [block], block.item_id)
            features.append(current)
        elif current is not None and (current[4] is None or block.item_id == current[4]):
            # A bold item owns the rest of its list item; a bold paragraph owns what follows.
            current[3].append(block)
        else:
            current = None
            rest.append(block)
    return [feature[:4] for feature in features], rest


def drop_sign_off(section):
    """Remove a closing sign-off ("Thanks for reading ...", "Cheers!") and what follows it."""
    for index, block in enumerate(section.blocks):
        if block.kind == "inline" and block.list_id is None and SIGN_OFF_RE.match(block.source):
            section.blocks = section.blocks[:index]
            return
    for child in section.children:
        drop_sign_off(child)


def has_features_below(section, default_stability):
    """Does this section only group features (tagged sub-headings or bold feature items)?"""
    if split_inline_features(section.blocks, default_stability)[0]:
        return True
    return any(
        split_stability(child.heading.text)[1] is not None
        or split_inline_features(child.blocks, default_stability)[0]
        for child in section.descendants()
    )


class _Collector:
    def __init__(self, base_url, feature_level=(None, False)):
        self.base_url = base_url
        self.feature_level, self.level_from_leaves = feature_level
        self.features = []
        self.skipped = []
        self.owner = {}  # id(block) -> the feature whose text it is
        self.section = ""  # the heading of the section being read: a feature's provenance

    def add(self, title, stability, area, blocks, line, source=""):
        links, left_out = [], []
        for link in links_of(blocks, self.base_url):
            problem = link_problem(link)
            if problem is None:
                links.append(link)
            else:
                left_out.append((link.line, link.label, problem))
        for block in blocks:
            self.owner[id(block)] = len(self.features)
        self.features.append(
            ParsedFeature(
                title=title,
                slug="",
                stability=stability,
                stage_source=source if stability else "",
                area=area,
                position=len(self.features) + 1,
                line=line,
                links=links,
                left_out=left_out,
                section=self.section,
            )
        )

    def add_inline(self, blocks, area, default_stability):
        features, _ = split_inline_features(blocks, default_stability)
        for title, stability, source, feature_blocks in features:
            self.add(title, stability, area, feature_blocks, feature_blocks[0].line, source)

    def visit(self, section, area, default_stability, top_level):
        heading = section.heading
        title, tag = split_stability(heading.text)
        if tag is None and NON_FEATURE_RE.search(title):
            self.skipped.append(title)
            return
        section_stability = stability_of_section(title) if tag is None else None
        stability = tag or section_stability or default_stability
        inline, _ = split_inline_features(section.blocks, stability)
        introduces_a_list = any(
            blocks[0].list_id and (tag is None or source == TAG) for _, _, source, blocks in inline
        )
        if tag is not None and not introduces_a_list:
            self.add_heading_feature(section, title, tag, area, default_stability, top_level)
            return
        if tag is None and section_stability is None:
            # Headings at the level where the post announces its features (tagged headings,
            # or those right under a stability section) are features: their own sub-headings
            # are their parts. Above that level, a heading with sub-headings groups features.
            # In a post without tags, a section that ends at that level is a feature too,
            # even at the top ("## NNAPI support" in a post of one heading level).
            # So is an untagged top-level section with nothing below it in a post that tags
            # its top-level headings ("## Python 2 no longer supported" after "## X (Beta)").
            leaf_feature = (
                (self.level_from_leaves or self.feature_level == top_level)
                and not section.children
                and self.at_feature_level(heading.level)
            )
            is_area = not leaf_feature and (
                heading.level <= top_level
                or (bool(section.children) and not self.at_feature_level(heading.level))
                or self.only_groups(section, default_stability)
            )
            if is_area and self.introduces_one_thing(section, stability, introduces_a_list):
                is_area = False
            if not is_area and not introduces_a_list:
                library = LIBRARY_RELEASE_RE.match(title)
                area = library.group("name") if library else area
                self.add_heading_feature(
                    section, title, default_stability, area, default_stability, top_level
                )
                return
            if is_area:
                area = title
        # A container: an area, a stability section, or a tagged heading over a list of
        # bold feature items; what it holds are the features.
        outer, self.section = self.section, heading.text
        self.add_inline(section.blocks, area, stability)
        for child in section.children:
            self.visit(child, area, stability, top_level)
        self.section = outer

    def add_table_only(self, blocks):
        """
        Features the opening's summary table lists that no section of the post describes
        (a cell sharing no distinctive word with any feature found, nor naming one with its
        words run together: "Better Transformer" is "BetterTransformer API"): each with its
        column's stage, and whatever link its cell has.
        """
        described = [distinctive_words(feature.title) for feature in self.features]
        run_together = [compact(feature.title) for feature in self.features]
        for block in blocks:
            for title, stability, hrefs in summary_table(block):
                words = distinctive_words(title)
                if not words or any(words & other for other in described):
                    continue
                if len(compact(title)) >= 6 and any(
                    compact(title) in other for other in run_together
                ):
                    continue
                described.append(words)
                links = []
                for href in hrefs:
                    url = resolve_url(href, self.base_url)
                    if url:
                        kind, label = describe_link(title, "", "", url)
                        links.append(ParsedLink(kind, label, url, block.line))
                self.features.append(
                    ParsedFeature(
                        title=title[:200],
                        slug="",
                        stability=stability,
                        stage_source=SECTION if stability else "",
                        area="",
                        position=len(self.features) + 1,
                        line=block.line,
                        links=links,
                    )
                )

    def only_groups(self, section, default_stability):
        """
        A heading with no text of its own over sub-headings that announce tagged features
        ("### TorchData" over "#### (Beta) S3 DataPipes") names a group, not a feature: its
        untagged sub-headings are features too. A heading with prose of its own before its
        sub-headings is a feature, and its untagged sub-headings are its parts.
        """
        if not section.children or any(
            block.kind == "inline" and inline_text(block.token.children) for block in section.blocks
        ):
            return False
        return any(
            holds_features(child, default_stability, tagged_only=True) for child in section.children
        )

    def at_feature_level(self, level):
        return self.feature_level is not None and level >= self.feature_level

    def introduces_one_thing(self, section, stability, introduces_a_list):
        """
        A top-level section with prose of its own and nothing below it ("Introducing X",
        a new library with its stage in a sentence) is one feature, not an empty area.
        """
        if section.children or introduces_a_list:
            return False
        if split_inline_features(section.blocks, stability)[0]:
            return False
        prose = [
            block
            for block in section.blocks
            if block.kind == "inline" and block.list_id is None and not block.is_bold_heading
        ]
        if not prose:
            return False
        title = section.heading.text
        if INTRODUCING_RE.match(title):
            return True
        # Or its prose states the stage of what the heading names ("X is in beta").
        return any(
            claim.names_section or claims.names_match(claim.subject, title) >= CLAIM_MATCH
            for block in prose
            for claim in claims.find_claims(inline_text(block.token.children), block.line)
        )

    def add_heading_feature(self, section, title, stability, area, default_stability, top_level):
        """A heading that names one feature. Sub-sections and bold paragraphs that announce
        features of their own (posts mix heading levels) are its siblings, not its text.
        Under a tagged heading, only tagged bold items are features of their own: untagged
        ones ("* **Memory view**: ...") name the feature's parts."""
        tagged = split_stability(section.heading.text)[1] is not None
        first_inline = next(
            (
                index
                for index, block in enumerate(section.blocks)
                if (start := inline_feature_start(block, default_stability)) is not None
                and (not tagged or start[2] == TAG)
            ),
            len(section.blocks),
        )
        heading_block = section.heading.as_block()
        own = [heading_block] if heading_block else []
        own += section.blocks[:first_inline]
        separate = []
        for child in section.children:
            part = self.at_feature_level(section.level) and child.level > section.level
            if holds_features(child, default_stability, tagged_only=part):
                separate.append(child)
            else:
                own.extend(child.subtree_blocks())
        title = INTRODUCING_RE.sub("", title) or title
        self.add(title, stability, area, own, section.heading.line, TAG if tagged else SECTION)
        outer, self.section = self.section, section.heading.text
        self.add_inline(section.blocks[first_inline:], area, default_stability)
        for child in separate:
            self.visit(child, area, default_stability, top_level)
        self.section = outer


def holds_features(section, default_stability, tagged_only=False):
    """
    Is this section a feature, or does it hold any? With ``tagged_only`` (a sub-section of a
    feature), only a tag or a stability heading makes it one: the rest are the feature's parts.
    """
    title, tag = split_stability(section.heading.text)
    if tag is not None:
        return True
    if NON_FEATURE_RE.search(title):
        return False
    if stability_of_section(title) is not None:
        return True
    if tagged_only:
        tagged_items = (inline_feature_start(block, None) for block in section.subtree_blocks())
        return any(
            split_stability(child.heading.text)[1] for child in section.descendants()
        ) or any(start is not None and start[2] == TAG for start in tagged_items)
    return has_features_below(section, default_stability)


# Words too common in feature names to tell two of them apart.
COMMON_WORDS = {
    "optimization", "optimizations", "improvement", "improvements", "enhanced", "enhancement",
    "available", "through", "added", "support", "supports", "performance", "feature", "using",
    "backend", "faster", "better", "release",
}  # fmt: skip


def compact(title):
    """A name's letters and digits run together, lower case: "Better Transformer" ->
    "bettertransformer"."""
    return re.sub(r"[^a-z0-9]+", "", title.lower())


def distinctive_words(title):
    """The words of a name that tell it apart: long, or with digits, and not common."""
    return {
        word
        for word in claims.words(title)
        if (len(word) >= 5 or any(ch.isdigit() for ch in word)) and word not in COMMON_WORDS
    }


def feature_level(tree):
    """
    The heading level at which the post announces features: that of its tagged headings and
    of the headings right under its stability sections, the most common. A post with neither
    announces features where most of its sections end (headings with nothing below them but
    text): a heading at that level with sub-headings is a feature with parts (a library and
    its components), not a group of features. None for a post without headings.
    """
    levels, leaves = Counter(), Counter()
    for section in tree.descendants():
        title, tag = split_stability(section.heading.text)
        if tag is not None:
            levels[section.level] += 1
        elif stability_of_section(title):
            levels.update(child.level for child in section.children)
        elif not section.children and not NON_FEATURE_RE.search(title):
            leaves[section.level] += 1
    from_leaves = not levels
    levels = levels or leaves
    return (levels.most_common(1)[0][0] if levels else None), from_leaves


# --- the post --------------------------------------------------------------------------------


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


def parse_date(value):
    """A date from a front-matter value (a day, with a time and zone or not); else None."""
    match = DATE_RE.match(str(value).strip())
    if match is None:
        return None
    try:
        return dt.date(int(match["year"]), int(match["month"]), int(match["day"]))
    except ValueError:
        return None


def release_date_from(meta, filename, date_line):
    """
    The post's date: its front matter's ``date:``, else the date in its file name, as Jekyll
    reads them. A date that is there but is not a date is an error, never silently dropped.
    """
    if meta.get("date") not in (None, ""):
        date = parse_date(meta["date"])
        if date is None:
            raise PostError(
                f"'date: {meta['date']}' is not a date: write YYYY-MM-DD, optionally with a "
                "time and zone (2021-03-04 10:00:00 -0800)",
                date_line,
            )
        return date
    match = FILENAME_DATE_RE.search(str(filename or ""))
    if match:
        try:
            return dt.date(*(int(part) for part in match.groups()))
        except ValueError:
            raise PostError(
                f"the file name's date {'-'.join(match.groups())} is not a date", 1
            ) from None
    return None


def parse_post(text, filename="", version=None, base_url=DEFAULT_BASE_URL):
    """Parse a post's text. Raises PostError (with a line) when it is not a release post."""
    meta, body, first_line = split_front_matter(text)
    title = str(meta.get("title") or "").strip()
    if not title:
        raise PostError("the front matter has no 'title:'", 2)
    if version is not None:
        try:
            version = versions.normalize(version)
        except versions.InvalidVersion as error:
            raise PostError(str(error)) from None
    else:
        version = version_from_title(title)
    items = promote_bold_headings(to_blocks(body, first_line))
    tree = build_tree(items)
    drop_sign_off(tree)
    collector = _Collector(base_url, feature_level(tree))
    headings = [item for item in items if isinstance(item, Heading)]
    top_level = min((heading.level for heading in headings), default=1)
    for block in tree.blocks:
        block.in_bold_list = False  # the opening's bold list is its highlights, not features
    # A title like "Prototype features now available" sets the stage of what the post holds.
    post_stability = stability_of_section(title)
    collector.add_inline(tree.blocks, "", post_stability)
    for section in tree.children:
        collector.visit(section, "", post_stability, top_level)
    collector.add_table_only(tree.blocks)
    if not collector.features:
        raise PostError("the post announces no features (no tagged headings or items found)")
    seen = {}
    for feature in collector.features:
        base = slugify(feature.title)
        seen[base] = seen.get(base, 0) + 1
        feature.slug = base if seen[base] == 1 else f"{base}-{seen[base]}"
    facts = preamble_facts(tree.blocks, base_url)
    blocks = [item for item in items if isinstance(item, Block)]
    permalink = str(meta.get("permalink") or meta.get("url") or "").strip()
    return ParsedPost(
        title=title,
        version=version,
        release_date=release_date_from(meta, filename, key_line(text, "date")),
        highlights=facts["highlights"],
        release_notes_url=facts["release_notes_url"],
        announcement_url=resolve_url(permalink, base_url) if permalink else "",
        commit_count=facts["commit_count"],
        contributor_count=facts["contributor_count"],
        features=collector.features,
        skipped_sections=collector.skipped,
        claims=stage_claims(blocks, collector, opening=tree.blocks, headings=headings),
        file_name=os.path.basename(str(filename or "")),
        post_url=(resolve_url(permalink, base_url) if permalink else "")
        or url_of_file(filename, base_url),
    )


def url_of_file(filename, base_url=DEFAULT_BASE_URL):
    """The URL the blog publishes a dated post file at; "" for a file name without a date."""
    match = JEKYLL_POST_RE.match(os.path.basename(str(filename or "")))
    if match is None:
        return ""
    return f"{base_url.rstrip('/')}/blog/{match['title']}/"


def text_with_lines(block):
    """A paragraph's plain text, and a function from an offset in it to the post's line."""
    parts, starts = [], [(0, block.line)]
    length, line = 0, block.line
    for token in block.token.children or ():
        if token.type in {"text", "code_inline"}:
            parts.append(token.content)
            length += len(token.content)
        elif token.type in {"softbreak", "hardbreak"}:
            parts.append(" ")
            length += 1
            line += 1
            starts.append((length, line))

    def line_at(offset):
        return max((start for start in starts if start[0] <= offset), default=starts[0])[1]

    return "".join(parts), line_at


# A claim names a feature of the post when its subject matches the title this well.
CLAIM_MATCH = 0.5


def section_of(line, headings):
    """The text of the last heading at or above ``line``: the section it is in, or ""."""
    above = [heading for heading in headings if heading.line <= line]
    return above[-1].text if above else ""


def stage_claims(blocks, collector, opening=(), headings=()):
    """
    Every stage claim in the post's prose, each with the post's feature it names, if any.
    In the opening (``opening``, its blocks before the first heading), a highlight tagged with
    a stage ("* (Beta) Support for X") claims X's stage too.
    """
    features = collector.features
    opening = {id(block) for block in opening}
    result = []
    for block in blocks:
        if block.kind != "inline":
            continue
        own_index = collector.owner.get(id(block))
        own = features[own_index] if own_index is not None else None
        text, line_at = text_with_lines(block)
        found = claims.find_claims(text, line_at)
        if id(block) in opening and block.list_id is not None and not opens_in_bold(block):
            highlight = claims.tagged_item(text, block.line)
            found = [highlight, *found] if highlight else found
        for claim in found:
            if (
                own is not None
                and own.stability is None
                and (
                    claim.names_section
                    or claims.names_match(claim.subject, own.title) >= CLAIM_MATCH
                )
            ):
                own.stability, own.stage_source = claim.stability, CLAIM
            if claim.names_section:
                if own is None:
                    continue  # "it is in beta" outside any feature names nothing we know
                named, subject = own, own.title
            else:
                subject = claim.subject
                scored = [
                    (claims.names_match(subject, feature.title), feature is own, -index, feature)
                    for index, feature in enumerate(features)
                ]
                best = max(scored, key=lambda item: item[:3], default=None)
                # Prose under a feature's heading speaks of that feature unless it names
                # another one of the post.
                named = best[3] if best is not None and best[0] >= CLAIM_MATCH else own
            result.append(
                ParsedClaim(
                    subject=subject[:200],
                    stability=claim.stability,
                    phrase=claim.phrase[:100],
                    line=claim.line,
                    feature=named.slug if named is not None else None,
                    section=section_of(claim.line, headings),
                )
            )
    return result


def key_line(text, key):
    """The line of ``key:`` in the front matter (2, its first line, if not found)."""
    for number, line in enumerate(text.splitlines()[1:], start=2):
        if line.strip() in {"---", "..."}:
            break
        if line.split(":", 1)[0].strip() == key:
            return number
    return 2


def parse_file(path, version=None, base_url=DEFAULT_BASE_URL):
    """
    Read and parse a post file; PostError for what is not a regular file, is larger than
    MAX_POST_BYTES (refused before it is read whole), or is unreadable, binary or malformed.
    """
    try:
        # Checked before opening: opening a pipe would wait for a writer.
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise PostError("not a regular file: give the path of a markdown post")
        with open(path, "rb") as handle:
            data = handle.read(MAX_POST_BYTES + 1)
    except OSError as error:
        raise PostError(f"cannot read the file: {error.strerror}") from None
    if len(data) > MAX_POST_BYTES:
        raise PostError(
            f"the file is larger than {MAX_POST_BYTES // (1024 * 1024)} MiB, the most a post "
            "may be: is it really a release post?"
        )
    if not data.strip():
        raise PostError("the file is empty", 1)
    return parse_post(decode(data), filename=str(path), version=version, base_url=base_url)
