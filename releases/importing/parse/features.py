"""
Blocks to features: the headings form a tree of sections, and the tree gives the features.

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
* "Experimental", PyTorch's name for Beta before 1.6, is read as Beta; from 2.8 on,
  "API-Unstable" is ``unstable`` and "API-Stable" ``stable``, in tags and sections alike.
* What a "Non-Feature Updates" section lists are notices (a cadence, a new default, a pinned
  dependency: no stage, no track); one whose title says something is deprecated or removed
  is a deprecation (so is any such title elsewhere).

Every feature keeps the stage as the post wrote it (``stage_label``).

Every hyperlink in a feature's section is one of its links.
"""

import re
from collections import Counter

from releases.importing import claims

from .blocks import Heading, Section, inline_text
from .labels import (
    Stage,
    is_link_label,
    is_non_feature_updates,
    label_of,
    split_stability,
    stability_of_section,
)
from .links import describe_link, link_problem, links_of, resolve_url
from .opening import summary_table
from .results import DEPRECATION, FEATURE, NOTICE, SECTION, TAG, ParsedFeature, ParsedLink
from .stage_claims import CLAIM_MATCH

# Sections that are never features: events, community news, sign-offs. (A deprecation is
# announced like a feature: "Deprecation of CUDA 10.2" is one.)
NON_FEATURE_RE = re.compile(
    r"hackathon|challenge|developer day|ecosystem day|summit|conference|\bevents?\b|meetup|"
    r"webinar|workshop|\bcommunity\b|thank|cheers|acknowledg|follow us|stay connected|"
    r"get involved|join us|what'?s next|getting started|next steps|conclusion|\binstallation\b",
    re.I,
)
# "Introducing X", "Announcing X", "Feature: X": the feature is X.
INTRODUCING_RE = re.compile(
    r"^(?:(?:introducing|announcing|meet)\s+(?:the\s+)?|(?:new\s+)?feature\s*:\s*)", re.I
)
SIGN_OFF_RE = re.compile(r"^\s*(thanks for reading|thank you|cheers|team pytorch)\b", re.I)
LIBRARY_RELEASE_RE = re.compile(r"^(?P<name>[A-Za-z][\w\-]*)\s+v?\d+(\.\d+)+$")
# A title that says something goes: "X is now deprecated", "Deprecation of Y", "Z removed",
# "Dropping support for Python 3.9". ("Removing graph breaks" is a feature.)
DEPRECATION_RE = re.compile(
    r"\bdeprecat\w*|\bremoved\b|\bremoval\b|\bno\s+longer\s+(?:supported|available)\b|"
    r"\b(?:drop|dropped|dropping|end\s+of)\s+(?:the\s+)?support\b|\bretire[ds]?\b",
    re.I,
)
# The default stage of what a "Non-Feature Updates" section lists: none, but, unlike None,
# it lets untagged bold items ("* **CUDA 13 by default**: ...") be entries of their own.
STAGELESS = Stage("")


def kind_of(title, notice=False):
    """
    DEPRECATION for a title that announces something deprecated or removed, else FEATURE, or
    NOTICE for what a "Non-Feature Updates" section lists (``notice``).
    """
    if DEPRECATION_RE.search(title):
        return DEPRECATION
    return NOTICE if notice else FEATURE


def build_tree(items):
    """Headings and blocks as a tree of sections, each holding the blocks up to the next heading."""
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


class FeatureCollector:
    """Walks the section tree: the features, the sections skipped, and whose text each block is."""

    def __init__(self, base_url, feature_level=(None, False)):
        self.base_url = base_url
        self.feature_level, self.level_from_leaves = feature_level
        self.features = []
        self.listing_notices = False  # inside a "Non-Feature Updates" section
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
                stability=str(stability) if stability else None,
                stage_source=source if stability else "",
                area=area,
                position=len(self.features) + 1,
                line=line,
                links=links,
                left_out=left_out,
                section=self.section,
                stage_label=label_of(stability),
                kind=kind_of(title, notice=self.listing_notices),
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
        lists_no_stage = tag is None and is_non_feature_updates(title)
        if lists_no_stage:
            stability = STAGELESS
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
            if is_area and not lists_no_stage:
                area = title  # "Non-Feature Updates" names no area: its items keep the post's
        # A container: an area, a stability section, or a tagged heading over a list of
        # bold feature items; what it holds are the features.
        outer, self.section = self.section, heading.text
        notices, self.listing_notices = self.listing_notices, self.listing_notices or lists_no_stage
        self.add_inline(section.blocks, area, stability)
        for child in section.children:
            self.visit(child, area, stability, top_level)
        self.section, self.listing_notices = outer, notices

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
                        stability=str(stability) if stability else None,
                        stage_source=SECTION if stability else "",
                        area="",
                        position=len(self.features) + 1,
                        line=block.line,
                        links=links,
                        stage_label=label_of(stability),
                        kind=kind_of(title),
                    )
                )

    def only_groups(self, section, default_stability):
        """
        A heading with no text of its own over sub-headings that announce tagged features
        ("### TorchData" over "#### (Beta) S3 DataPipes"), or over bold names that announce
        features ("### ROCm" over "**ROCm: rocSHMEM support**"), names a group, not a feature:
        its untagged sub-headings are features too. A heading with prose of its own before its
        sub-headings is a feature, and its untagged sub-headings are its parts.
        """
        if not section.children or any(
            block.kind == "inline" and inline_text(block.token.children) for block in section.blocks
        ):
            return False
        return any(
            child.heading.is_bold_name or holds_features(child, default_stability, tagged_only=True)
            for child in section.children
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
