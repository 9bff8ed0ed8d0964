"""
Stage claims: the sentences of a post's prose that state a stage ("X graduates to beta"), each
matched to the post's feature it names. The sentences are found by ``importing.claims``.
"""

from releases.importing import claims

from .blocks import opens_in_bold
from .labels import label_of, stage_in
from .results import CLAIM, ParsedClaim

# A claim names a feature of the post when its subject matches the title this well.
CLAIM_MATCH = 0.5


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
                own.stage_label = label_of(stage_in(claim.phrase))
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
