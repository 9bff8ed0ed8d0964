"""
Read the breaking changes and deprecations of a PyTorch release-notes file.

The release notes of each PyTorch release are a Markdown file (``<version>.0/final.md`` of the
public ``meta-pytorch/torch-release-notes`` repository). Two of its level-1 sections list what
may break a user's code: "Backwards Incompatible Changes" and "Deprecations". This module reads
those two sections, and only those, into one ``NoteEntry`` per change: its kind, the section and
area it sits under, the line it starts on, a plain-text title, the API names its opening text
puts in code spans, the replacement and removal version it names, and the pull requests and
issues it cites. Whatever it cannot read with confidence (an entry citing no pull request, a
bullet it took for a label or an explanation, a bare number it did not count) it lists in
``ReleaseNotes.problems`` with the line, for an editor to check. It is plain Python: no Django,
no database, no network.

How the Markdown is read:

* A section is a level-1 heading named as above (in any case, bold or not); it ends at the
  next level-1 heading. Where the sections are level-2 headings (as GitHub release pages write
  them), every heading is read one level up. Fenced code blocks (``` or ~~~, indented or not)
  are skipped throughout, so a ``#`` comment in code is never a heading.
* Level-2 headings are areas, unless most level-2 headings of the section carry a pull request
  on their own line and have no level-3 heading below them: then each is an entry. A level-2
  heading with a pull request and neither level-3 headings nor bullets below it is an entry in
  any section. A level-2 heading citing nothing with nothing below it before the next level-2
  heading names the entries after it (an area written at the entries' level).
* An entry is a level-3 heading (or a level-2 one, as above) or a top-level ``-`` bullet outside
  a heading entry. Everything up to the next entry, area or section is its body: paragraphs,
  code, nested bullets, bullets under an entry heading, level-4 sub-headings.
* A heading that cites no pull request over top-level bullets that each cite their own is a
  group, not an entry: each bullet is an entry (its kind read from its own words, not the
  heading's), with the heading's text as its ``group``.
* A top-level bullet that cites no pull request, in itself or in its nested bullets, is a label
  when it is a lone short line followed at once by a bullet that cites one (it is skipped), an
  explanation of the entry above when that entry is a bullet of the same area citing one (it
  joins that entry's body), and otherwise an entry without a pull request.
* Pull requests are links to ``github.com/pytorch/pytorch/pull/N``, and ``#N`` written without
  a link on the entry's first line, on a nested bullet's line or inside parentheses. A bare
  ``#N`` elsewhere in prose may be an issue: it is not counted, and is listed as a problem.
  The entry's own pull requests (the citations closing its first line) come first, then those
  its text only mentions, in order.
* In "Backwards Incompatible Changes", an entry whose title says something is removed is a
  removal, one that says something is deprecated a deprecation, any other a breaking change.
"""

import re
from dataclasses import dataclass, field

BC_SECTION = re.compile(r"backwards?[\s-]+incompatible[\s-]+changes?", re.IGNORECASE)
DEPRECATIONS_SECTION = re.compile(r"deprecations?", re.IGNORECASE)
NO_SECTION = "no Backwards Incompatible Changes or Deprecations section"
NO_PR = "no pull request cited"

BOLD = re.compile(r"^(\*\*|__)(.+)\1$")
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
TOP_BULLET = re.compile(r"^[-*+][ \t]+(.*)$")
NESTED_BULLET = re.compile(r"^[ \t]+[-*+][ \t]+\S")
THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")

CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(
    r"\[([^\]]*)\]\(\s*<?([^()\s>]*(?:\([^()\s]*\)[^()\s>]*)*)>?(?:\s+\"[^\"]*\")?\s*\)"
)
PULL_URL = re.compile(r"https?://github\.com/pytorch/pytorch/pull/(\d+)\b")
ISSUE_URL = re.compile(r"https?://github\.com/pytorch/pytorch/issues/(\d+)\b")
BARE_NUMBER = re.compile(r"(?<![\w&/#])#(\d+)\b")
CITATION = r"(?:\[[^\]]*\]\([^()\s]*\)|#\d+)"
CITATION_GROUP = re.compile(rf"\(\s*{CITATION}(?:\s*[,;]\s*{CITATION})*\s*\)")

DEPRECATION_WORDS = re.compile(r"\bdeprecat(?:e|es|ed|ing|ion)\b", re.IGNORECASE)
REMOVAL_WORDS = re.compile(
    r"\b(?:remove|removes|removed|removing|removal|drop|drops|dropped|delete|deletes|deleted)\b",
    re.IGNORECASE,
)
# Code spans that name no API: literals, messages, shell command lines, paths, bare symbols.
NOT_AN_API = re.compile(
    r"\"[^\"]*\"|'[^']*'|-?\d+(?:\.\d+)?|True|False|None|true|false|null|is None"
    r"|[A-Z]\w*(?:Error|Warning|Exception):\s.*"
    r"|(?:pip|pip3|python[\d.]*t?|torchrun|conda|bazel|make)\s.*"
    r"|[~/].*|[^A-Za-z_]*"
)

SPAN = r"`([^`]+)`"
WORDS = r"(?:[\w-]+\s+)"
REPLACEMENT_PATTERNS = [
    # "use `x` instead", "import from `x` instead", "supply the `x` argument instead"
    re.compile(
        rf"\b(?:use|using|supply|pass|call|import\s+from)\s+(?:the\s+(?:new\s+)?)?{SPAN}"
        r"(?:\s+[\w-]+){0,2}\s+instead\b",
        re.IGNORECASE,
    ),
    re.compile(rf"\breplaced\s+(?:by|with)\s+{WORDS}{{0,3}}?{SPAN}", re.IGNORECASE),
    re.compile(
        rf"\breplac(?:e|ing)\s+(?:(?![.;:]\s).){{0,100}}?\bwith\s+(?:the\s+)?{SPAN}", re.IGNORECASE
    ),
    re.compile(rf"\bin\s+favou?r\s+of\s+{WORDS}{{0,3}}?{SPAN}", re.IGNORECASE),
    re.compile(rf"\bmigrate\s+to\s+{WORDS}{{0,5}}?{SPAN}", re.IGNORECASE),
    re.compile(rf"\bswitch\s+to\s+(?:the\s+)?{SPAN}", re.IGNORECASE),
    re.compile(rf"\bdirect(?:s|ing)?\s+users\s+to(?:ward)?\s+{SPAN}", re.IGNORECASE),
]
# Right after the replacement, another one: "`a` / `b`", "`a`, `b`", "`a` (recommended) or `b`".
ALTERNATIVE = re.compile(r"^\s*(?:\([^)]*\)\s*)?(?:/|,|\bor\b|\band\b)\s*`")
REMOVED_IN = re.compile(
    r"\b(?:removed|removal|deleted)\s+in\s+(?:PyTorch\s+|version\s+|v(?=\d))?(\d+\.\d+(?:\.\d+)?)\b",
    re.IGNORECASE,
)


@dataclass
class NoteEntry:
    kind: str  # "bc-breaking", "deprecation" or "removal"
    section: str  # the section heading as written
    area: str  # the area heading (H2) it sits under, as written, or ""
    line: int  # 1-based line where the entry starts
    title: str  # the entry's first line as plain text, without markup and citations
    apis: list = field(default_factory=list)  # code spans of the first line and paragraph
    replacement: str = ""  # the API it names as replacement, or ""
    removed_in: str = ""  # the version it says the thing is/was removed in, or ""
    prs: list = field(default_factory=list)  # pytorch/pytorch pull requests cited (ints)
    issues: list = field(default_factory=list)  # pytorch/pytorch issues linked (ints)
    group: str = ""  # the heading over several entries it is listed under, as plain text


@dataclass
class ReleaseNotes:
    entries: list = field(default_factory=list)
    problems: list = field(default_factory=list)  # (line or None, message)


@dataclass
class _Block:
    """The lines of one candidate entry, as indexes into the file's lines."""

    start: int
    is_heading: bool
    level: int  # the heading's level; 0 for a bullet
    title: str  # the heading's or bullet's text, as written
    area: str
    body: list = field(default_factory=list)
    group: str = ""


def parse_release_notes(text: str) -> ReleaseNotes:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    in_code, unclosed = _code_lines(lines)
    headings = _headings(lines, in_code)
    notes = ReleaseNotes()
    if unclosed is not None:
        notes.problems.append((unclosed + 1, "code block never closed: the rest is read as code"))
    starts = [i for i, (level, _) in headings.items() if level == 1]
    found = False
    for n, start in enumerate(starts):
        title = headings[start][1]
        if BC_SECTION.fullmatch(title):
            deprecations = False
        elif DEPRECATIONS_SECTION.fullmatch(title):
            deprecations = True
        else:
            continue
        found = True
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        before = len(notes.entries)
        _read_section(lines, in_code, headings, start, end, deprecations, notes)
        if len(notes.entries) == before:
            notes.problems.append((start + 1, f"no entries under {title!r}"))
    if not found:
        return ReleaseNotes(entries=[], problems=[(None, NO_SECTION)])
    notes.problems.sort(key=lambda problem: (problem[0] or 0, problem[1]))
    return notes


def _code_lines(lines):
    """Which lines belong to a fenced code block (its fences included), and the line of a fence
    that is never closed (or None)."""
    flags, opener, opened_at = [], None, None
    for i, line in enumerate(lines):
        match = FENCE.match(line)
        if opener is None:
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                opener, opened_at = match.group(1), i
                flags.append(True)
            else:
                flags.append(False)
            continue
        flags.append(True)
        if (
            match
            and match.group(1)[0] == opener[0]
            and len(match.group(1)) >= len(opener)
            and not match.group(2).strip()
        ):
            opener = None
    return flags, (opened_at if opener is not None else None)


def _headings(lines, in_code):
    """
    {line index: (level, text)} for the headings outside code, a heading set in bold as a
    whole read without its markers. Where the two sections are level-2 headings (as GitHub
    release pages write them), every heading is read one level up, so that sections are
    always level 1, areas level 2 and entries level 3; a heading above the sections' level
    still ends a section.
    """
    found = {}
    for i, line in enumerate(lines):
        if in_code[i]:
            continue
        match = HEADING.match(line)
        if match and match.group(2):
            text = re.sub(r"[ \t]+#+$", "", match.group(2)).strip()
            text = BOLD.sub(r"\2", text).strip()
            if text:
                found[i] = (len(match.group(1)), text)
    section_levels = [
        level
        for level, text in found.values()
        if BC_SECTION.fullmatch(text) or DEPRECATIONS_SECTION.fullmatch(text)
    ]
    shift = min(section_levels, default=1) - 1
    return {i: (max(1, level - shift), text) for i, (level, text) in found.items()}


def _top_bullet(line):
    if THEMATIC_BREAK.match(line):
        return None
    match = TOP_BULLET.match(line)
    return match.group(1) if match else None


def _read_section(lines, in_code, headings, start, end, deprecations, notes):
    section = headings[start][1]
    entry_h2 = _h2_entries(lines, in_code, headings, start, end)
    blocks, area, label, current = [], "", "", None
    for i in range(start + 1, end):
        if i in headings:
            level, text = headings[i]
            if level == 2:
                if entry_h2[i]:
                    area = label  # an H2 entry is under the label above it, if any
                    current = _Block(i, True, 2, text, area)
                    blocks.append(current)
                else:
                    area, current = text, None
                    label = text if _is_label_heading(lines, in_code, headings, i, end) else ""
                continue
            if level == 3 and not (current and current.is_heading and current.level == 2):
                current = _Block(i, True, 3, text, area)
                blocks.append(current)
                continue
            # A level-4 (or deeper) heading, or an H3 inside an H2 entry: part of the body.
        elif not in_code[i] and not (current and current.is_heading):
            bullet = _top_bullet(lines[i])
            if bullet is not None:
                current = _Block(i, False, 0, bullet, area)
                blocks.append(current)
                continue
        if current is not None:
            current.body.append(i)

    blocks = [item for block in blocks for item in _split_group(lines, in_code, block)]
    kept = []
    for n, block in enumerate(blocks):
        cited = _citations(lines, in_code, block)
        if block.is_heading or cited["prs"]:
            kept.append(block)
            continue
        following = blocks[n + 1] if n + 1 < len(blocks) else None
        if _is_label(lines, block, following, in_code):
            notes.problems.append(
                (block.start + 1, "bullet without a pull request read as a label, not an entry")
            )
            continue
        previous = kept[-1] if kept else None
        if (
            previous is not None
            and not previous.is_heading
            and previous.area == block.area
            and _citations(lines, in_code, previous)["prs"]
        ):
            previous.body += [block.start] + block.body
            notes.problems.append(
                (
                    block.start + 1,
                    f"bullet without a pull request read as part of the entry on line "
                    f"{previous.start + 1}",
                )
            )
            continue
        kept.append(block)

    for block in kept:
        notes.entries.append(_entry(lines, in_code, block, section, deprecations, notes))


def _split_group(lines, in_code, block):
    """
    A heading citing no pull request over top-level bullets that each cite their own: the
    bullets, each a block of its own under the heading's name. Any other block: itself.
    """
    if not block.is_heading or _line_citations(block.title, first_line=True)[0]:
        return [block]
    group, items = plain_text(block.title), []
    for i in block.body:
        bullet = None if in_code[i] else _top_bullet(lines[i])
        if bullet is not None:
            items.append(_Block(i, False, 0, bullet, block.area, group=group))
        elif items:
            items[-1].body.append(i)
    if len(items) < 2 or not all(_line_citations(item.title, True)[0] for item in items):
        return [block]
    return items


def _h2_entries(lines, in_code, headings, start, end):
    """{H2 line index: whether that H2 is an entry rather than an area}."""
    h2s = [i for i in range(start + 1, end) if headings.get(i, (0,))[0] == 2]
    shape = {}
    for n, i in enumerate(h2s):
        stop = h2s[n + 1] if n + 1 < len(h2s) else end
        has_h3 = any(headings.get(j, (0,))[0] == 3 for j in range(i + 1, stop))
        has_bullet = any(
            not in_code[j] and j not in headings and _top_bullet(lines[j]) is not None
            for j in range(i + 1, stop)
        )
        cites = bool(_line_citations(headings[i][1], first_line=True)[0])
        shape[i] = (cites and not has_h3, has_bullet)
    labels = {i for i in h2s if _is_label_heading(lines, in_code, headings, i, end)}
    entry_shaped = sum(1 for looks, _ in shape.values() if looks)
    mostly_entries = bool(h2s) and entry_shaped * 2 > len(h2s) - len(labels)
    return {
        i: i not in labels and (mostly_entries or (looks and not bullets))
        for i, (looks, bullets) in shape.items()
    }


def _is_label_heading(lines, in_code, headings, i, end):
    """
    An H2 citing no pull request with nothing below it before the next heading: the name of
    the H2 entries that follow it (an area written at the entries' level), not an entry.
    """
    if _line_citations(headings[i][1], first_line=True)[0]:
        return False
    following = next((j for j in range(i + 1, end) if lines[j].strip()), None)
    return following is not None and following in headings and headings[following][0] == 2


def _is_label(lines, block, following, in_code):
    """A short bullet standing alone right above a bullet that cites a pull request."""
    if following is None or following.is_heading or following.area != block.area:
        return False
    if any(lines[i].strip() for i in block.body):
        return False
    if len(block.title.split()) > 4 or re.search(r"[.:;!?]$", block.title.strip()):
        return False
    return bool(_citations(lines, in_code, following)["prs"])


def _mask(text, pattern):
    return pattern.sub(lambda match: " " * len(match.group(0)), text)


def _line_citations(text, first_line):
    """(pull requests, issues, bare numbers not counted) of one line, in order."""
    masked = _mask(text, CODE_SPAN)
    found = []  # (position, kind, number)
    for match in LINK.finditer(masked):
        for kind, url in (("pr", PULL_URL), ("issue", ISSUE_URL)):
            target = url.match(match.group(2))
            if target:
                found.append((match.start(), kind, int(target.group(1))))
    masked = _mask(masked, LINK)
    for kind, url in (("pr", PULL_URL), ("issue", ISSUE_URL)):
        for match in url.finditer(masked):
            found.append((match.start(), kind, int(match.group(1))))
        masked = _mask(masked, url)
    for match in BARE_NUMBER.finditer(masked):
        depth = masked[: match.start()].count("(") - masked[: match.start()].count(")")
        kind = "pr" if first_line or depth > 0 else "bare"
        found.append((match.start(), kind, int(match.group(1))))
    found.sort()
    return tuple(
        [number for _, k, number in found if k == kind] for kind in ("pr", "issue", "bare")
    )


def _citations(lines, in_code, block):
    """{"prs", "issues", "bare": [(line index, number)]} of a block, deduplicated, in order."""
    result = {"prs": [], "issues": [], "bare": []}
    seen = {kind: set() for kind in result}
    for i in [block.start, *block.body]:
        if in_code[i]:
            continue
        text = block.title if i == block.start else lines[i]
        first = i == block.start or bool(NESTED_BULLET.match(lines[i]) or TOP_BULLET.match(text))
        cited = _line_citations(text, first)
        if i == block.start:  # its own pull requests first: those closing its first line
            own = _line_citations(_closing_citations(text), True)[0]
            cited = ([*own, *(n for n in cited[0] if n not in own)], *cited[1:])
        for kind, numbers in zip(result, cited, strict=True):
            for number in numbers:
                if number not in seen[kind]:
                    seen[kind].add(number)
                    result[kind].append((i, number))
    return result


def _closing_citations(text):
    """The citations in parentheses that close a line ("... (#123, #456)."), or ""."""
    groups = list(CITATION_GROUP.finditer(_mask(text, CODE_SPAN)))
    if groups and not re.search(r"[A-Za-z0-9`]", text[groups[-1].end() :]):
        return groups[-1].group(0)
    return ""


def plain_text(text):
    """A line of Markdown as plain text: citations dropped, links as their text, no markup."""

    spans = []

    def keep_code(match):
        spans.append(match.group(2))
        return f"\0{len(spans) - 1}\0"

    def drop_citations(match):
        return "" if re.search(r"#\d", match.group(0)) else match.group(0)

    text = CODE_SPAN.sub(keep_code, text)
    text = CITATION_GROUP.sub(drop_citations, text)
    text = LINK.sub(lambda match: match.group(1), text)
    text = re.sub(r"\*\*|(?<!\w)__|__(?!\w)", "", text)
    text = re.sub("\0(\\d+)\0", lambda match: spans[int(match.group(1))], text)
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"\s+([.,;:!?])(?=\s|$)", r"\1", text)


def _first_paragraph(lines, in_code, block):
    """The body lines of the first paragraph after the entry's first line."""
    paragraph = []
    for i in block.body:
        if in_code[i] or HEADING.match(lines[i]):
            break
        if not lines[i].strip():
            if paragraph:
                break
            continue
        paragraph.append(lines[i])
    return paragraph


def _apis(texts):
    names = []
    for text in texts:
        for match in CODE_SPAN.finditer(_mask(text, re.compile(r"\]\([^)]*\)"))):
            name = match.group(2).strip()
            if name and not NOT_AN_API.fullmatch(name) and name not in names:
                names.append(name)
    return names


def _replacement(prose):
    found = []
    for pattern in REPLACEMENT_PATTERNS:
        for match in pattern.finditer(prose):
            if not ALTERNATIVE.match(prose[match.end() :]):
                found.append((match.start(1), match.group(1).strip()))
    return min(found)[1] if found else ""


def _entry(lines, in_code, block, section, deprecations, notes):
    cited = _citations(lines, in_code, block)
    title = plain_text(block.title)
    prose_lines = [block.title] + [lines[i].strip() for i in block.body if not in_code[i]]
    prose = " ".join(line for line in prose_lines if line)
    removed = REMOVED_IN.search(prose)
    if deprecations or (DEPRECATION_WORDS.search(title) and not REMOVAL_WORDS.search(title)):
        kind = "deprecation"
    else:
        kind = "removal" if REMOVAL_WORDS.search(title) else "bc-breaking"
    entry = NoteEntry(
        kind=kind,
        section=section,
        area=block.area,
        line=block.start + 1,
        title=title,
        apis=_apis([block.title, *_first_paragraph(lines, in_code, block)]),
        replacement=_replacement(prose),
        removed_in=removed.group(1) if removed else "",
        prs=[number for _, number in cited["prs"]],
        issues=[number for _, number in cited["issues"]],
        group=block.group,
    )
    if not entry.prs:
        notes.problems.append((entry.line, NO_PR))
    for i, number in cited["bare"]:
        if number not in entry.prs and number not in entry.issues:
            notes.problems.append(
                (i + 1, f"#{number} written without a link in prose: not counted as a pull request")
            )
    return entry
