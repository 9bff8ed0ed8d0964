"""
Parse a PyTorch release announcement (Jekyll front matter + markdown, or an HTML article of
the new blog) into plain dataclasses.

No Django here: the ``import_post`` command maps the result onto models. ``parse_post`` runs
the stages in order: ``reading`` (the file and its front matter), ``blocks`` (markdown to
headings and blocks), ``features`` (the section tree to features, with their ``links``),
``opening`` (what the text before the first heading says) and ``stage_claims`` (what the prose
says of stages). A translated post is read through ``translation`` first: only the English
original it quotes counts. An article of the new blog, an HTML page, is read by ``article``
into the same markdown, each line mapped to its element's line in the page. ``labels`` holds
the stage tags and link kinds they share; ``results`` the dataclasses they return.
"""

import os
from dataclasses import dataclass

from releases import versions
from releases.slugs import slugify

from .article import article_date, looks_like_html, read_article
from .blocks import Block, Heading, promote_bold_headings, to_blocks
from .features import FeatureCollector, build_tree, drop_sign_off, feature_level
from .labels import LINK_KINDS, stability_of_section
from .links import resolve_url
from .opening import preamble_facts
from .reading import (
    DEFAULT_BASE_URL,
    MAX_POST_BYTES,
    decode,
    key_line,
    read_text,
    release_date_from,
    split_front_matter,
    url_of_file,
    version_from_title,
)
from .results import ParsedClaim, ParsedFeature, ParsedLink, ParsedPost, PostError
from .stage_claims import stage_claims
from .translation import english_body, is_translation

__all__ = [
    "DEFAULT_BASE_URL",
    "LINK_KINDS",
    "MAX_POST_BYTES",
    "ParsedClaim",
    "ParsedFeature",
    "ParsedLink",
    "ParsedPost",
    "PostError",
    "decode",
    "parse_file",
    "parse_post",
    "slugify",
    "url_of_file",
]


@dataclass
class PostHead:
    """What a post says of itself, and its body as markdown for the later stages."""

    title: str
    release_date: object
    permalink: str  # where it is published, as it says ("" when it does not)
    body: str
    first_line: int  # the file's line of the body's first line
    line_map: dict | None = None  # for an HTML article: markdown line -> the page's line
    is_translation: bool = False


def markdown_head(text, filename):
    """A Jekyll post: its front matter, and its body (a translation's English original)."""
    meta, body, first_line = split_front_matter(text)
    translated = is_translation(meta)
    if translated:
        # The English original, line for line: lines keep their numbers in the file.
        body = english_body(body)
    title = str((translated and meta.get("org_title")) or meta.get("title") or "").strip()
    if not title:
        raise PostError("the front matter has no 'title:'", 2)
    permalink = (translated and meta.get("org_link")) or meta.get("permalink") or meta.get("url")
    return PostHead(
        title=title,
        release_date=release_date_from(meta, filename, key_line(text, "date")),
        permalink=str(permalink or "").strip(),
        body=body,
        first_line=first_line,
        is_translation=translated,
    )


def article_head(text, filename, url):
    """An article of the new blog, as an HTML page: its head, and its body as markdown."""
    found = read_article(text)
    if not found.title:
        raise PostError("the page has no title (no og:title, <h1> or <title>)", 1)
    return PostHead(
        title=found.title,
        release_date=article_date(found) or release_date_from({}, filename, 1),
        permalink=found.canonical_url or url,
        body=found.markdown,
        first_line=1,
        line_map=found.line_map,
    )


def parse_post(text, filename="", version=None, base_url=DEFAULT_BASE_URL, url=""):
    """
    Parse a post's text: a Jekyll post (front matter and markdown, or a translation of one),
    or an article of the new blog as an HTML page (by its file name, ``url`` or how it
    begins); ``url`` is where it was downloaded from, if it was. Raises PostError (with a line)
    when it is not a release post, or nests its elements deeper than any post does.
    """
    try:
        return read_post(text, filename, version, base_url, url)
    except RecursionError:
        raise PostError(
            "the document nests its elements too deeply to be a post (thousands of levels)"
        ) from None


def read_post(text, filename, version, base_url, url):
    if looks_like_html(text, filename or url):
        head = article_head(text, filename, url)
    else:
        head = markdown_head(text, filename)
    title = head.title
    if version is not None:
        try:
            version = versions.normalize(version)
        except versions.InvalidVersion as error:
            raise PostError(str(error)) from None
    else:
        version = version_from_title(title)
    items = to_blocks(head.body, head.first_line)
    if head.line_map:
        for item in items:  # each markdown line stands for an element of the page
            item.line = head.line_map.get(item.line, item.line)
    items = promote_bold_headings(items)
    tree = build_tree(items)
    drop_sign_off(tree)
    collector = FeatureCollector(base_url, feature_level(tree))
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
    if not collector.features and head.is_translation:
        raise PostError(
            "the post is a translation (org_link or a 'translation' category) whose quoted "
            "English original ('> ' lines) announces no features: import the original instead"
        )
    if not collector.features:
        raise PostError("the post announces no features (no tagged headings or items found)")
    seen = {}
    for feature in collector.features:
        base = slugify(feature.title)
        seen[base] = seen.get(base, 0) + 1
        feature.slug = base if seen[base] == 1 else f"{base}-{seen[base]}"
    facts = preamble_facts(tree.blocks, base_url)
    blocks = [item for item in items if isinstance(item, Block)]
    published_at = resolve_url(head.permalink, base_url) if head.permalink else ""
    return ParsedPost(
        title=title,
        version=version,
        release_date=head.release_date,
        highlights=facts["highlights"],
        release_notes_url=facts["release_notes_url"],
        announcement_url=published_at,
        commit_count=facts["commit_count"],
        contributor_count=facts["contributor_count"],
        features=collector.features,
        skipped_sections=collector.skipped,
        claims=stage_claims(blocks, collector, opening=tree.blocks, headings=headings),
        file_name=os.path.basename(str(filename or "").rstrip("/")),
        post_url=published_at or url_of_file(filename, base_url),
        is_translation=head.is_translation,
    )


def parse_file(path, version=None, base_url=DEFAULT_BASE_URL):
    """
    Read and parse a post file; PostError for what is not a regular file, is larger than
    MAX_POST_BYTES (refused before it is read whole), or is unreadable, binary or malformed.
    """
    return parse_post(read_text(path), filename=str(path), version=version, base_url=base_url)
