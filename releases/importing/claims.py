"""
Stage claims: sentences of a post's prose that state a capability's stage ("X is now stable",
"X graduates to beta", "stable support for X", "several features moved to stable, including
X, Y and Z"), as opposed to the tags and section headings the parser reads.

A claim names its subject in the post's words. ``names_match`` tells whether that subject and
a feature's title name the same capability; ``find_claims`` reads one paragraph. No Django here:
the importer decides what a claim is attached to, and editors accept or reject it.
"""

import re
from dataclasses import dataclass, field

from releases.names import names_match, words  # noqa: F401 (the parser asks claims.names_match)

STAGE = r"(?P<stability>stable|beta|prototype)"
# A name may hold dots between word characters (torch.fft, PyTorch 1.8) and colons between
# digits ("2:4 sparsity") but ends a sentence at any other stop.
# A short aside in parentheses is read whole: "semi-structured (2:4) sparsity".
NAME = r"(?P<subject>(?:\([^()]{1,12}\)|[^.;:!?]|\.(?=\w)|(?<=\d):(?=\d))+?)"
# Words that end a subject written after "support for" / "level": the sentence's verb. A short
# aside in parentheses followed by more of the name ("semi-structured (2:4) sparsity") does not.
SUBJECT_END = (
    r"(?=\s+(?:was|were|is|are|has|have|had|will|can|may|must|should|which|that|to|so|"
    r"in\s+order|too|as\s+well|arrives?|lands?|comes?|ships?|becomes?|joins?)\b|[,;:)]|"
    r"\((?![^()]{1,12}\)\s+\w)|\.(?!\w)|$)"
)
# Quotes a post may put around a stage: moved to 'stable'.
QUOTE = r"['\"‘’“”]?"
# A stage in another release ("released as a beta in PyTorch 1.8") is history, not a claim.
NOT_ANOTHER_RELEASE = r"(?!\s+(?:in|with|since)\s+(?:pytorch\s+)?v?\d)"

PATTERNS = [
    # "This prototype feature reduces ...": the feature the text is written under.
    re.compile(rf"(?P<subject>\bthis)\s+{STAGE}\s+(?:feature|release)\b", re.I),
    # "The new profiler graduates to beta", "X has graduated to stable"
    re.compile(
        rf"{NAME}\s+(?:has\s+|have\s+|is\s+|are\s+)?(?:graduate[sd]?|graduating)\s+"
        rf"(?:from\s+\w+\s+)?to\s+(?:a\s+|the\s+)?{STAGE}\b{NOT_ANOTHER_RELEASE}",
        re.I,
    ),
    # "X is moving to a stable release", "X has been promoted to beta", "X, Y and Z have moved
    # from beta to stable", "moved to 'stable'"
    re.compile(
        rf"{NAME}\s+(?:is|are|has\s+been|have\s+been|has|have)\s+(?:now\s+)?"
        rf"(?:moving|moved|promoted|being\s+promoted)\s+(?:from\s+\w+\s+)?to\s+"
        rf"(?:a\s+|the\s+)?{QUOTE}{STAGE}\b{NOT_ANOTHER_RELEASE}",
        re.I,
    ),
    # "X is now stable", "X is stable", "X is now in beta", "X is currently in prototype",
    # "X is still in the beta phase"
    re.compile(
        rf"{NAME}\s+(?:is|are)\s+(?:now\s+(?:in\s+|a\s+)?|(?:currently\s+|still\s+)?in\s+"
        rf"(?:the\s+)?)?{STAGE}\b(?!\s*(?:and|or|/)\s*(?:stable|beta|prototype)|\s+features?)"
        rf"{NOT_ANOTHER_RELEASE}",
        re.I,
    ),
    # "X is available as a prototype", "X is released in beta", "X became available in
    # prototype mode", "X is introduced as a prototype feature", "X available in stable"
    re.compile(
        rf"{NAME}\s+(?:(?:is|are|became|becomes|has\s+become|have\s+become)\s+"
        rf"(?:now\s+|currently\s+)?"
        rf"(?:available|released|releasing|launched|launching|shipped|shipping|introduced)|"
        rf"(?:now\s+)?available)\s+"
        rf"(?:as\s+(?:a\s+|an\s+)?|in\s+)?{STAGE}\b{NOT_ANOTHER_RELEASE}",
        re.I,
    ),
    # "X is a new prototype feature", "X are now an official beta feature", "X is now natively
    # supported and a stable feature"
    re.compile(
        rf"{NAME}\s+(?:is|are)\s+(?:now\s+)?(?:\w+\s+){{0,3}}?(?:and\s+)?(?:a|an)\s+"
        rf"(?:new\s+|official\s+)?{STAGE}\s+feature\b",
        re.I,
    ),
    # "X, a new beta library for ..."
    re.compile(
        rf"{NAME},\s+(?:a|an)\s+(?:new\s+)?{STAGE}\s+(?:library|feature|api|module|tool|package)\b",
        re.I,
    ),
    # "we are releasing X in beta", "launching X as a prototype feature", "offering X as a
    # beta feature"
    re.compile(
        rf"\b(?:releas|launch|introduc|ship|offer|provid|add|bring)(?:es|s|ed|ing|ped|ping)\s+"
        rf"(?!as\b|in\b)"
        rf"{NAME}\s+(?:as\s+(?:a\s+|an\s+)?|in\s+){STAGE}\b{NOT_ANOTHER_RELEASE}",
        re.I,
    ),
    # "the proposal is to mark X as stable"
    re.compile(rf"\bmark(?:s|ed|ing)?\s+{NAME}\s+as\s+{QUOTE}{STAGE}\b", re.I),
    # "a new beta feature to X", "a prototype feature for X"
    re.compile(
        rf"\b(?:a|an)\s+(?:new\s+)?{STAGE}\s+feature\s+(?:to|for)\s+{NAME}{SUBJECT_END}", re.I
    ),
    # "the beta X support", "a new prototype X API"
    re.compile(
        rf"\b(?:the|a|an|new|our)\s+(?:new\s+)?{STAGE}\s+"
        rf"(?!(?:release|version|feature|features|stage|level)\b)"
        rf"(?P<subject>(?:[\w.+#/-]+\s+){{0,3}}?[\w.+#/-]+)\s+(?:support|api|module|library|backend)\b",
        re.I,
    ),
    # "stable support for X", "beta level support for X"
    re.compile(rf"\b{STAGE}(?:[\s-]+level)?\s+support\s+for\s+{NAME}{SUBJECT_END}", re.I),
    # "Stable level X" (a link's text, often)
    re.compile(rf"\b{STAGE}[\s-]+level\s+{NAME}{SUBJECT_END}", re.I),
]
# "several features moved to stable, including A, B and C" / "... like D and E"
# "... the beta release of A", "beta versions of A and B", "Beta includes A, B and C", "new
# prototype features across A, B and C", "a new beta release ready to try: A": each item is a
# claim.
ITEMS = r"(?P<items>(?:[^.;:!?]|\.(?=\w)|(?<=\d):(?=\d))+)"
LIST_PATTERNS = [
    re.compile(rf"\b{STAGE}\s+release\b[^:.;]{{0,60}}:\s*{ITEMS}", re.I),
    re.compile(
        rf"\b(?:moved|moving|promoted|graduated|graduating)\s+(?:from\s+\w+\s+)?to\s+"
        rf"{STAGE}\b[^.]*?\b(?:including|such\s+as|like|namely)\b\s*:?\s*{ITEMS}",
        re.I,
    ),
    re.compile(rf"\b{STAGE}\s+(?:releases?|versions?)\s+of\s+{ITEMS}", re.I),
    re.compile(rf"(?:^|[;,]\s*|\b(?:and|while)\s+){STAGE}\s+includes?\s+{ITEMS}", re.I),
    re.compile(
        rf"\b{STAGE}\s+features?(?:\s+and\s+\w+)?\s+(?:across|including|such\s+as|like)\s+"
        rf"{ITEMS}",
        re.I,
    ),
]
# Where a list of names stops: a verb ("... will support"), or an aside in parentheses.
ITEMS_END_RE = re.compile(
    r"\s+(?:will|can|may|must|should|is|are|was|were|has|have|ready|to\s+try|"
    r"arrive[sd]?|land(?:s|ed)?|comes?|came|ship(?:s|ped)?|become?s?|became|join(?:s|ed)?)\b|"
    r"\s*\((?![^()]{1,12}\)\s+\w)",
    re.I,
)
# An item that describes the one before it ("functorch, a library that ...") ends the list.
APPOSITIVE_RE = re.compile(r"^(?:a|an|which|that|being|its?)\b", re.I)
# Where a listed name ends: "torch.compile as the main API" is torch.compile.
ITEM_TAIL_RE = re.compile(r"\s+as\s+(?:the|a|an|part)\b.*$", re.I)
LIST_SPLIT_RE = re.compile(r",\s*(?:and\s+)?|\s+and\s+|\s+like\s+|\s+such\s+as\s+|\s+including\s+")
SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
LEADING_RE = re.compile(
    r"^(?:(?:in|with|as\s+of|starting\s+(?:with|in|from)|since|from|alongside|along\s+with|"
    r"besides|beyond)\s+[^,]+,\s*|"
    r"(?:additionally|also|now|finally|lastly|today|concretely|notably|moreover|however|"
    r"for\s+example|for\s+instance|in\s+addition)\s*,?\s+)",
    re.I,
)
# "3- (Beta) Support for X", "* [Prototype] X now supported": an opening highlight's tag.
TAGGED_ITEM_RE = re.compile(
    rf"^\s*(?:\d+\s*[-.)]\s*)?[\[(]\s*{STAGE}\s*[\])]\s*[:\-–—]?\s*"
    rf"(?P<subject>(?:[^.;!?]|\.(?=\w))+?)(?:\s+(?:is\s+)?now\s+supported)?\s*[.!]?\s*$",
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
    r"(?:the\s+)?(?:release|rest)$|.*\bfeatures\b|there$|(?:are|is|was|were|be)\b)",
    re.I,
)


@dataclass
class Claim:
    subject: str  # the capability, as the post names it
    stability: str
    phrase: str  # the words that state the stage, e.g. "graduates to beta"
    line: int
    names_section: bool = False  # "it" / "this feature": the feature the text sits under
    sentence: int = field(default=0, compare=False)  # its sentence's offset in the paragraph


def clean_subject(text):
    """The capability's name in a claim's subject, or "" when the subject is the section's."""
    text = " ".join(text.split()).strip(" ,:;-–—*_`'\"")
    text = re.sub(r"^\d+\s*[-.)]\s+", "", text)  # "3- Several APIs ..." in a numbered list
    text = LEADING_RE.sub("", text)
    # "The X feature, released as a beta in 1.8, is now stable": the name is before the aside.
    text = text.split(",")[0].strip()
    text = re.split(r"\s+(?:including|such\s+as|like|e\.g\.)\s+", text, flags=re.I)[0]
    text = re.sub(r"^(?:support\s+(?:for|of))\s+", "", text, flags=re.I)
    # "The C++ frontend API is now at parity with X": the name ends at its verb.
    text = re.split(r"\s+(?:is|are|was|were|has|have)\s+", text, flags=re.I)[0]
    if SELF_RE.match(text):
        return ""
    # "M1 binaries that have been available ...": the name ends before its relative clause.
    text = re.split(r"\s+(?:that|which|who)(?:\s+|$)", text, flags=re.I)[0]
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


def listed_names(items):
    """The names in "A, B and C": up to a verb or an aside, and before any item that only
    describes the one before it."""
    items = ITEMS_END_RE.split(items, maxsplit=1)[0]
    parts = re.split(f"({LIST_SPLIT_RE.pattern})", items)
    names, describing = [], False
    for index in range(0, len(parts), 2):
        item = parts[index].strip(" ,:;-–—*_`'\"")
        separator = parts[index - 1] if index else ""
        subject = clean_subject(ITEM_TAIL_RE.sub("", item))
        if not subject or GENERIC_RE.match(subject) or not words(subject):
            continue  # "a number of other features" among the names
        if APPOSITIVE_RE.match(item):
            describing = True  # "A, a library that does X and Y, and B": skip to ", and"
            continue
        if describing and not re.fullmatch(r",\s*and\s+", separator):
            continue
        describing = False
        if len(subject) <= 120:
            names.append(subject)
    return names


def subjects_of(raw):
    """
    The names a claim's subject holds: one, or the items of a list that a generic head
    introduces ("Several APIs such as A, B and C have moved to stable").
    """
    head, *rest = re.split(r"\s+(?:such\s+as|including|like|namely)\s+", raw, maxsplit=1)
    if rest and GENERIC_RE.match(clean_subject(head) or "it"):
        return listed_names(rest[0])
    return [clean_subject(raw)]


def tagged_item(text, line):
    """An opening highlight tagged with a stage ("3- (Beta) Support for X") as a claim about X,
    or None."""
    match = TAGGED_ITEM_RE.match(text)
    if match is None:
        return None
    subject = clean_subject(match["subject"])
    if not subject or GENERIC_RE.match(subject) or not words(subject) or len(subject) > 120:
        return None
    phrase = " ".join(text[: match.start("subject")].split())
    return Claim(subject, match["stability"].lower(), phrase, line)


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
        for list_pattern in LIST_PATTERNS:
            for listed in list_pattern.finditer(sentence):
                if any(start <= listed.start("stability") < end for start, end in taken):
                    continue
                phrase = " ".join(
                    sentence[listed.start("stability") : listed.start("items")].split()
                ).strip(" :,")
                names = listed_names(listed.group("items"))
                if names:
                    taken.append((listed.start(), listed.end()))
                for subject in names:
                    claims.append(
                        Claim(subject, listed["stability"].lower(), phrase, line, sentence=offset)
                    )
        found = []
        for pattern in PATTERNS:
            for match in pattern.finditer(sentence):
                span = match.span("stability")
                if any(start <= span[0] < end for start, end in taken):
                    continue
                taken.append(match.span())
                found.append(match)
        for match in sorted(found, key=lambda match: match.start("stability")):
            stability = match["stability"].lower()
            for subject in subjects_of(match.group("subject")):
                if not subject:
                    claims.append(
                        Claim("", stability, phrase_of(match), line, True, sentence=offset)
                    )
                elif not GENERIC_RE.match(subject) and words(subject) and len(subject) <= 120:
                    claims.append(
                        Claim(subject, stability, phrase_of(match), line, sentence=offset)
                    )
    unique, seen = [], set()
    for claim in claims:
        # One claim per sentence: two sentences saying it are two claims for editors to see.
        key = (claim.subject.lower(), claim.stability, claim.names_section, claim.sentence)
        if key not in seen:
            seen.add(key)
            unique.append(claim)
    return unique
