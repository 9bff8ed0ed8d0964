"""
What parsing a post gives: plain dataclasses for the post, its features, their links and the
stage claims of its prose, and PostError for a file that is not a release post.
"""

import datetime as dt
from dataclasses import dataclass, field

from releases.importing.problems import DocumentProblem


class PostError(DocumentProblem):
    """The post cannot be read; ``line`` is 1-based in the file, or None for the whole file."""


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
# What an entry announces: a capability, that one is deprecated or removed, or a notice (what a
# "Non-Feature Updates" section lists).
FEATURE, DEPRECATION, NOTICE = "feature", "deprecation", "notice"


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
    # The stage as the post wrote it ("Beta", "API-Unstable", "API-UNSTABLE"): the tag's
    # words, the section's, or those of the line under its heading; "" without stability.
    stage_label: str = ""
    kind: str = FEATURE  # DEPRECATION for "X is deprecated", "Removal of Y"; NOTICE; FEATURE


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
    # file name (provenance); "" when neither says. A translation's is its original's.
    post_url: str = ""
    # A translation, read through the English original it quotes (title, URL and text).
    is_translation: bool = False
