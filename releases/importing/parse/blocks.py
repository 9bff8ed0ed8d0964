"""
Markdown to blocks: the post's body as headings and blocks (paragraphs, list items, table
cells, HTML) in post order. The markdown is read with markdown-it-py, so fenced code (and the
``#`` comment lines inside it) never turns into headings. Bold-only paragraphs that stand in
for headings become headings, and a paragraph that is nothing but a stage ("API Unstable")
right under a heading tags that heading.
"""

import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt

from .labels import (
    is_link_label,
    is_non_feature_updates,
    split_stability,
    stability_of_section,
    stage_line,
)


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
    is_bold_name: bool = False  # a bold paragraph that names a feature, standing for a heading

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


def stage_line_of(item):
    """The Stage of a paragraph that is nothing but a stage ("API Unstable"), else None."""
    if isinstance(item, Block) and item.kind == "inline" and item.list_id is None:
        return stage_line(inline_text(item.token.children))
    return None


def links_in(block):
    return any(token.type == "link_open" for token in block.token.children or ())


def states_a_stage(item):
    """A heading or bold name with a stage tag, or one that names a stage section."""
    if isinstance(item, Heading):
        text = item.text
    elif item.kind == "inline" and item.is_bold_heading:
        text = inline_text(item.token.children)
    else:
        return False
    return split_stability(text)[1] is not None or stability_of_section(text) is not None


def is_heading_like(item):
    """A heading, or a bold name that may stand for one ("**API-Stable**" alone is a stage)."""
    return isinstance(item, Heading) or (
        item.kind == "inline" and item.is_bold_heading and stage_line_of(item) is None
    )


def stage_lines(items):
    """
    {index of a heading or bold name: (its stage line's Stage, the stage line's index)} for
    each whose own text (up to the next heading or bold name) holds a paragraph that states
    nothing but a stage: "API Unstable", under the heading or after its prose.
    """
    found = {}
    for index, item in enumerate(items):
        if not is_heading_like(item):
            continue
        for later in range(index + 1, len(items)):
            if is_heading_like(items[later]):
                break
            stage = stage_line_of(items[later])
            if stage is not None:
                found[index] = (stage, later)
                break
    return found


def promote_bold_headings(items):
    """
    Bold-only paragraphs that label a feature or a stability level act as headings. Once a
    post has written a tagged feature heading as a bold paragraph, an untagged one followed by
    prose is a feature heading too ("**Faster kernels**" under "## Performance"). Under a
    heading that names a stage ("### API-UNSTABLE Features") or lists what has none
    ("## Non-Feature Updates"), every bold-only name is an item's heading.

    A heading, or a bold name, whose text holds a paragraph that states nothing but a stage
    ("API Unstable", just under it or after its prose) is tagged with it as the post wrote it;
    the paragraph goes.
    """
    result = []
    real_level = 0
    stability_section_level = None
    tagging = stage_lines(items)
    dropped = set()
    # A post that states no stage anywhere (the new blog writes some that way: bold names
    # under topic headings) announces its features as bold names followed by prose.
    bold_features = not tagging and not any(states_a_stage(item) for item in items)
    for index, item in enumerate(items):
        if index in dropped and not links_in(item):
            continue  # a stage line that credits a change with links stays, for its links
        stage, line_index = tagging.get(index, (None, None))
        if isinstance(item, Heading):
            real_level = item.level
            stability_section_level = None
            if stability_of_section(item.text) or is_non_feature_updates(item.text):
                stability_section_level = item.level
            elif stage is not None and split_stability(item.text)[1] is None:
                item.text = f"{item.text} [{stage.label}]"
                dropped.add(line_index)
            result.append(item)
            continue
        if item.kind == "inline" and item.is_bold_heading:
            text = inline_text(item.token.children).strip()
            if stage is not None and split_stability(text)[1] is None:
                text = f"{text} [{stage.label}]"
                dropped.add(line_index)
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
                result.append(Heading(base + 1, text, item.line, item.token, is_bold_name=True))
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
