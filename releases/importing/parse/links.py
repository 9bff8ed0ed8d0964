"""
The links of a feature's blocks, each with its kind and label. Links are markdown-it's links
and HTML anchors, not regex guesses; placeholders such as ``Documentation | Link **Missing
Link**`` are links with no URL.
"""

import html.parser
import re
from urllib.parse import urljoin, urlsplit

from .blocks import inline_text
from .labels import KIND_LABELS, first_kind, last_kind
from .results import ParsedLink

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
# A sentence that credits rather than documents: "we acknowledge X as an influence",
# "inspired by Y", "thanks to Z". Its named links are acknowledgements, not documentation.
ACKNOWLEDGEMENT_RE = re.compile(
    r"\b(acknowledg\w*|inspir\w*|influence[sd]?|thanks?\s+to|credits?\b|grateful)", re.I
)
# Where a URL of one path segment is a person's (or a group's) page.
PROFILE_HOSTS = {"github.com", "gitlab.com", "twitter.com", "x.com"}


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
