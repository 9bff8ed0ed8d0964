"""
Parse a PyTorch release announcement (Jekyll front matter + markdown) into plain dataclasses.

No Django here: the ``import_post`` command maps the result onto models. ``parse_post`` runs
the stages in order: ``reading`` (the file and its front matter), ``blocks`` (markdown to
headings and blocks), ``features`` (the section tree to features, with their ``links``),
``opening`` (what the text before the first heading says) and ``stage_claims`` (what the prose
says of stages). ``labels`` holds the stage tags and link kinds they share; ``results`` the
dataclasses they return.
"""

import os

from releases import versions
from releases.slugs import slugify

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


def parse_file(path, version=None, base_url=DEFAULT_BASE_URL):
    """
    Read and parse a post file; PostError for what is not a regular file, is larger than
    MAX_POST_BYTES (refused before it is read whole), or is unreadable, binary or malformed.
    """
    return parse_post(read_text(path), filename=str(path), version=version, base_url=base_url)
