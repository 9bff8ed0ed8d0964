"""
Stage claims: sentences of a post's prose that state a capability's stage ("X is now stable",
"X graduates to beta", "stable support for X", "several features moved to stable, including
X, Y and Z"), as opposed to the tags and section headings the parser reads.

A claim names its subject in the post's words. ``names_match`` tells whether that subject and
a feature's title name the same capability; ``find_claims`` reads one paragraph. No Django here:
the importer decides what a claim is attached to, and editors accept or reject it.
"""

import re
from dataclasses import dataclass

STAGE = r"(?P<stability>stable|beta|prototype)"
# A name may hold dots between word characters (torch.fft, PyTorch 1.8) but ends a sentence
# at any other stop.
NAME = r"(?P<subject>(?:[^.;:!?]|\.(?=\w))+?)"
# Words that end a subject written after "support for" / "level": the sentence's verb.
SUBJECT_END = (
    r"(?=\s+(?:was|were|is|are|has|have|had|which|that|to|so|in\s+order|too|as\s+well|"
    r"arrives?|lands?|comes?|ships?|becomes?|joins?)\b|[,;:()]|\.(?!\w)|$)"
)
# A stage in another release ("released as a beta in PyTorch 1.8") is history, not a claim.
NOT_ANOTHER_RELEASE = r"(?!\s+(?:in|with|since)\s+(?:pytorch\s+)?v?\d)"

PATTERNS = [
    # "The new profiler graduates to beta", "X has graduated to stable"
    re.compile(
        rf"{NAME}\s+(?:has\s+|have\s+|is\s+|are\s+)?(?:graduate[sd]?|graduating)\s+"
        rf"(?:from\s+\w+\s+)?to\s+(?:a\s+|the\s+)?{STAGE}\b{NOT_ANOTHER_RELEASE}",
        re.I,
    ),
    # "X is moving to a stable release", "X has been promoted to beta"
    re.compile(
        rf"{NAME}\s+(?:is|are|has\s+been|have\s+been|has|have)\s+(?:now\s+)?"
        rf"(?:moving|moved|promoted|being\s+promoted)\s+to\s+(?:a\s+|the\s+)?{STAGE}\b"
        rf"{NOT_ANOTHER_RELEASE}",
        re.I,
    ),
    # "X is now stable", "X is now in beta", "X is in beta", "X is currently in prototype"
    re.compile(
        rf"{NAME}\s+(?:is|are)\s+(?:now\s+(?:in\s+|a\s+)?|(?:currently\s+|still\s+)?in\s+)"
        rf"{STAGE}\b(?!\s*(?:and|or)\s+(?:stable|beta|prototype)|\s+features?)"
        rf"{NOT_ANOTHER_RELEASE}",
        re.I,
    ),
    # "X is available as a prototype", "X is released in beta"
    re.compile(
        rf"{NAME}\s+(?:is|are)\s+(?:now\s+)?(?:available|released|launched|shipped)\s+"
        rf"(?:as\s+(?:a\s+|an\s+)?|in\s+)?{STAGE}\b{NOT_ANOTHER_RELEASE}",
        re.I,
    ),
    # "the beta X support", "a new prototype X API"
    re.compile(
        rf"\b(?:the|a|an|new|our)\s+(?:new\s+)?{STAGE}\s+"
        rf"(?!(?:release|version|feature|features|stage|level)\b)"
        rf"(?P<subject>(?:[\w.+#/-]+\s+){{0,3}}?[\w.+#/-]+)\s+(?:support|api|module|library|backend)\b",
        re.I,
    ),
    # "stable support for X", "beta support for X"
    re.compile(rf"\b{STAGE}\s+support\s+for\s+{NAME}{SUBJECT_END}", re.I),
    # "Stable level X" (a link's text, often)
    re.compile(rf"\b{STAGE}[\s-]+level\s+{NAME}{SUBJECT_END}", re.I),
]
# "several features moved to stable, including A, B and C" / "... like D and E"
LIST_PATTERN = re.compile(
    rf"\b(?:moved|moving|promoted|graduated|graduating)\s+to\s+{STAGE}\b[^.]*?"
    rf"\b(?:including|such\s+as|like|namely)\b\s*:?\s*(?P<items>(?:[^.;!?]|\.(?=\w))+)",
    re.I,
)
LIST_SPLIT_RE = re.compile(r",\s*(?:and\s+)?|\s+and\s+|\s+like\s+|\s+such\s+as\s+|\s+including\s+")
SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
LEADING_RE = re.compile(
    r"^(?:(?:in|with|as\s+of|starting\s+(?:with|in|from)|since|from)\s+[^,]+,\s*|"
    r"(?:additionally|also|now|finally|today|concretely|notably)\s*,?\s+)",
    re.I,
)
DETERMINERS_RE = re.compile(r"^(?:(?:the|a|an|our|its|this|these|new|all)\s+)+", re.I)
# A subject that names the feature the sentence is written under.
SELF_RE = re.compile(
    r"^(?:it|this|this\s+(?:new\s+)?(?:feature|api|module|tool|library|functionality|"
    r"capability|package|support|work)|feature\s+(?:with|that|which|for)\b.*)$",
    re.I,
)
# Subjects that name no one capability: "them", "a number of other features", "features".
GENERIC_RE = re.compile(
    r"^(?:they|them|those|which|that|these|some|several|many|other|a\s+number\b|a\s+few\b|"
    r"(?:\w+\s+)?features?$|(?:prototype|beta|stable)\s+features?|everything|pytorch$|"
    r"(?:the\s+)?(?:release|rest)$|.*\bfeatures\b)",
    re.I,
)
STOP_WORDS = {
    "a", "an", "the", "of", "for", "to", "in", "on", "with", "and", "or", "new", "support",
    "feature", "features", "api", "apis", "module", "pytorch", "torch", "via", "based", "using",
    "level", "now", "is", "are", "its", "our", "added", "improved", "improvements", "updates",
}  # fmt: skip


@dataclass
class Claim:
    subject: str  # the capability, as the post names it
    stability: str
    phrase: str  # the words that state the stage, e.g. "graduates to beta"
    line: int
    names_section: bool = False  # "it" / "this feature": the feature the text sits under


def words(text):
    """The content words of a name, lower case, with simple plural and -ing endings folded."""
    tokens = re.findall(r"[a-z0-9+#]+", text.lower())
    result = set()
    for token in tokens:
        if token in STOP_WORDS:
            continue
        for suffix in ("ing", "es", "s"):
            if token.endswith(suffix) and len(token) - len(suffix) >= 4:
                token = token[: -len(suffix)]
                break
        result.add(token)
    return result


def names_match(subject, title):
    """
    How well a claim's subject names a title, from 0 to 1: 1 when every content word of the
    subject is in the title ("RPC based profiling" and "Enhancements to RPC-based Profiling"),
    else the share of words the two have in common ("memory profiler" names "PyTorch
    Profiler" only half as well as "Memory Profiler").
    """
    ours, theirs = words(subject), words(title)
    if not ours or not theirs:
        return 0.0
    if ours <= theirs:
        return 1.0
    return len(ours & theirs) / len(ours | theirs)


def clean_subject(text):
    """The capability's name in a claim's subject, or "" when the subject is the section's."""
    text = " ".join(text.split()).strip(" ,:;-–—*_`'\"")
    text = LEADING_RE.sub("", text)
    # "The X feature, released as a beta in 1.8, is now stable": the name is before the aside.
    text = text.split(",")[0].strip()
    text = re.split(r"\s+(?:including|such\s+as|like|e\.g\.)\s+", text, flags=re.I)[0]
    text = re.sub(r"^(?:support\s+(?:for|of))\s+", "", text, flags=re.I)
    if SELF_RE.match(text):
        return ""
    text = DETERMINERS_RE.sub("", text)
    text = re.sub(r"\s+(?:feature|functionality|capability)$", "", text, flags=re.I)
    return text.strip(" ,:;-–—*_`'\"")


def phrase_of(match):
    """The words that state the stage: the match without its subject."""
    whole, start = match.group(0), match.start()
    before = whole[: match.start("subject") - start]
    after = whole[match.end("subject") - start :]
    return " ".join((before if len(before.strip()) > len(after.strip()) else after).split())


def sentences(text):
    """(offset, sentence) for each sentence of ``text``."""
    start = 0
    for boundary in SENTENCE_SPLIT_RE.finditer(text):
        yield start, text[start : boundary.start()]
        start = boundary.end()
    yield start, text[start:]


def find_claims(text, line):
    """
    The stage claims in one paragraph of plain text, in order of appearance. ``line`` is the
    paragraph's line, or a function from an offset in ``text`` to its line.
    """
    line_at = line if callable(line) else (lambda offset: line)
    claims = []
    for offset, sentence in sentences(text):
        line = line_at(offset)
        taken = []  # spans already claimed, so two patterns never read one phrase twice
        for listed in LIST_PATTERN.finditer(sentence):
            phrase = " ".join(sentence[listed.start() : listed.start("items")].split()).strip(" :,")
            taken.append((listed.start(), listed.end()))
            for item in LIST_SPLIT_RE.split(listed.group("items")):
                subject = clean_subject(item)
                if subject and not GENERIC_RE.match(subject) and len(subject) <= 120:
                    claims.append(Claim(subject, listed["stability"].lower(), phrase, line))
        found = []
        for pattern in PATTERNS:
            for match in pattern.finditer(sentence):
                span = match.span("stability")
                if any(start <= span[0] < end for start, end in taken):
                    continue
                taken.append(match.span())
                found.append(match)
        for match in sorted(found, key=lambda match: match.start("stability")):
            subject = clean_subject(match.group("subject"))
            stability = match["stability"].lower()
            if not subject:
                claims.append(Claim("", stability, phrase_of(match), line, names_section=True))
            elif not GENERIC_RE.match(subject) and words(subject) and len(subject) <= 120:
                claims.append(Claim(subject, stability, phrase_of(match), line))
    unique, seen = [], set()
    for claim in claims:
        key = (claim.subject.lower(), claim.stability, claim.names_section)
        if key not in seen:
            seen.add(key)
            unique.append(claim)
    return unique
