"""
Translated posts. A translation of a release announcement (the Korean community's, say) says
so in its front matter (``org_link``, the original's URL, and ``org_title``; or a category
naming "translation"), quotes the English original paragraph by paragraph in ``> `` lines
after its own, and writes its headings in both languages, "번역 / English".

Only the English counts: ``english_body`` keeps the quoted lines without their ``> ``, the
English half of headings and of bold-only lines that stand for headings, fenced code, and
lines in no other script (HTML, tables), and blanks the rest, so that every line the later
stages read keeps its number in the file.
"""

import re

# Scripts a translation is written in besides the English it quotes: Hangul, kana, CJK.
HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
KANA_AND_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f"
FOREIGN_RE = re.compile(f"[{HANGUL}{KANA_AND_CJK}]")
QUOTE_RE = re.compile(r"^ {0,3}> ?(?P<text>.*)$")
HEADING_RE = re.compile(r"^(?P<marks> {0,3}#{1,6})\s+(?P<text>.*?)(?:\s+#+)?\s*$")
BOLD_LINE_RE = re.compile(r"^\s*(?P<mark>\*\*|__)(?P<text>.+)(?P=mark)\s*$")
FENCE_RE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})")
# Lines in no language that the original holds as they are: HTML, table rows.
NEUTRAL_RE = re.compile(r"^\s*[<|]")


def is_translation(meta):
    """Does a post's front matter say it translates another post?"""
    if str(meta.get("org_link") or "").strip():
        return True
    categories = meta.get("category") or meta.get("categories") or []
    if not isinstance(categories, (list, tuple)):
        categories = str(categories).split(",")
    return any("translation" in str(category).lower() for category in categories)


def english_half(text):
    """
    "성능 관련 기능 / Performance Features" -> "Performance Features": the part after the
    first " / " that is in no other script (an English half may hold a " / " of its own).
    Text in no other script is English already; "" when it has no English half.
    """
    if not FOREIGN_RE.search(text):
        return text.strip()
    parts = text.split(" / ")
    for index in range(1, len(parts)):
        rest = " / ".join(parts[index:]).strip()
        if rest and not FOREIGN_RE.search(rest):
            return rest
    return ""


def english_line(line):
    """An unquoted line of a translation, as the English original has it ("" for none)."""
    heading = HEADING_RE.match(line)
    if heading:
        text = english_half(heading["text"])
        return f"{heading['marks']} {text}" if text else ""
    bold = BOLD_LINE_RE.match(line)
    if bold and " / " in bold["text"]:
        text = english_half(bold["text"])
        return f"{bold['mark']}{text}{bold['mark']}" if text else ""
    if NEUTRAL_RE.match(line) and not FOREIGN_RE.search(line):
        return line
    return ""


def english_body(body):
    """The English of a translation's body, line for line: what is not English is blanked."""
    lines = body.splitlines(keepends=True)
    result = []
    fence = None  # the unquoted fence open (code the translation keeps as it is), if any
    for line in lines:
        ending = line[len(line.rstrip("\r\n")) :]
        text = line[: len(line) - len(ending)]
        if fence is not None:
            if text.strip().startswith(fence) and not text.strip().strip(fence[0]):
                fence = None
            result.append(line)
            continue
        quoted = QUOTE_RE.match(text)
        if quoted:
            result.append(quoted["text"] + ending)
            continue
        opening = FENCE_RE.match(text)
        if opening:
            fence = opening["fence"]
            result.append(line)
            continue
        result.append(english_line(text) + ending)
    return "".join(result)
