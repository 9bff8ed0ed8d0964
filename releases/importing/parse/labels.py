"""
The labels a post puts on what it announces, shared by the later stages: stage tags and
stability headings ("[Beta] X", "X (Stable)", "Prototype Features", "[API-Unstable] X",
"API-UNSTABLE FEATURES"), and the words that name a kind of link ("Tutorial", "RFC",
"Design doc").

A stage read from a label is a ``Stage``: the stability, a string as before, carrying the
words the post wrote (``Stage("beta", "Experimental")``), which a feature keeps as its
``stage_label``.
"""

import re

STABILITY_WORDS = {
    "stable": "stable",
    "beta": "beta",
    "prototype": "prototype",
    "experimental": "beta",  # renamed to Beta when PyTorch classified features in 2020
    # From 2.8 on PyTorch has two stages, API-Stable and API-Unstable (RFC pytorch#152134).
    "api-unstable": "unstable",
    "api unstable": "unstable",
    "apiunstable": "unstable",
    "api-stable": "stable",
    "api stable": "stable",
    "apistable": "stable",
}
_API = r"api[ \-]?unstable|api[ \-]?stable"  # before "stable", which "API-Stable" ends with
_STABILITY = rf"(?P<stability>{_API}|stable|beta|prototype|experimental)"
# "(Now Stable)" and "[Now in Beta]" tag a heading as "(Stable)" and "[Beta]" do.
_NOW = r"(?:now\s+(?:in\s+)?)?"
TAG_PREFIX_RE = re.compile(
    rf"^\s*[\[(]\s*{_NOW}{_STABILITY}(?:\s+features?)?\s*[\])]\s*[:\-–—]?\s*(?P<rest>.*)$", re.I
)
TAG_SUFFIX_RE = re.compile(
    rf"^(?P<rest>.*?)\s*[\[(]\s*{_NOW}{_STABILITY}\s*[\])]\s*[.:]?\s*$", re.I
)
STABILITY_SECTION_RE = re.compile(rf"\b{_STABILITY}\s+(features?|apis?|updates?)\b", re.I)

# (kind, pattern) in order of precedence when a text names several kinds.
KIND_KEYWORDS = [
    ("design_doc", r"design\s+doc(?:ument)?s?"),
    ("rfc", r"rfcs?"),
    ("release_notes", r"release\s+notes"),
    ("tutorial", r"tutorials?"),
    ("recipe", r"recipes?"),
    ("usage_examples", r"(?:usage|code)\s+examples?|examples?"),
    ("documentation", r"documentation|docs?"),
    ("blog_post", r"blog(?:\s+post)?"),
    ("pull_request", r"pull\s+request|prs?"),
    ("issue", r"issues?(?:\s+tracker)?"),
    ("paper", r"papers?"),
    ("source_code", r"source\s+code|repository|repo"),
]
KIND_RE = re.compile(
    "|".join(rf"(?P<{kind}>\b(?:{pattern})\b)" for kind, pattern in KIND_KEYWORDS), re.I
)
KIND_LABELS = {
    "design_doc": "Design doc",
    "rfc": "RFC",
    "release_notes": "Release notes",
    "tutorial": "Tutorial",
    "recipe": "Recipe",
    "usage_examples": "Usage examples",
    "documentation": "Documentation",
    "blog_post": "Blog post",
    "pull_request": "Pull request",
    "issue": "Issue",
    "paper": "Paper",
    "source_code": "Source code",
    "acknowledgement": "Acknowledgement",
    "profile": "Profile",
    "other": "Link",
}
LINK_KINDS = tuple(KIND_LABELS)


# "Non-Feature Updates": what it lists are announcements with no stage (a deprecation, a new
# default, a release schedule).
NON_FEATURE_UPDATES_RE = re.compile(r"\bnon[\s\-]?feature\s+(?:updates?|changes?)\b", re.I)
# A paragraph that says nothing but a stage in a feature's text ("API Unstable"), perhaps
# with the credits of the change after it ("API Unstable (PR #123 by A. Person)").
STAGE_LINE_RE = re.compile(
    rf"^[\s*_\[(]*(?:stage\s*:\s*)?{_STABILITY}[\s*_\])]*(?:\((?:prs?\b|by\b|#)[^()]*\)\s*)?$",
    re.I,
)


class Stage(str):
    """A stability ("unstable") that remembers the words that stated it ("API-UNSTABLE")."""

    label = ""

    def __new__(cls, stability, label=""):
        stage = super().__new__(cls, stability)
        stage.label = label
        return stage


def stage_of(words):
    """ "API-Unstable" -> Stage("unstable", "API-Unstable"); None for words that name no stage."""
    words = " ".join(words.split())
    stability = STABILITY_WORDS.get(words.lower())
    return Stage(stability, words) if stability else None


def label_of(stability):
    """The words a stage was written in ("" for a plain stability or None)."""
    return getattr(stability, "label", "") if stability else ""


def split_stability(text):
    """("[Beta] Name" or "Name (Beta)") -> ("Name", Stage "beta"); untagged -> (text, None)."""
    for pattern in (TAG_PREFIX_RE, TAG_SUFFIX_RE):
        match = pattern.match(text)
        if match and match.group("rest").strip():
            return match.group("rest").strip(), stage_of(match.group("stability"))
    return text.strip(), None


def stability_of_section(text):
    """ "Prototype Features" -> Stage "prototype": headings that label the items under them."""
    match = STABILITY_SECTION_RE.search(text)
    return stage_of(match.group("stability")) if match else None


def stage_line(text):
    """The Stage a paragraph states when it is nothing but a stage ("API Unstable"), else None."""
    match = STAGE_LINE_RE.match(text or "")
    return stage_of(match.group("stability")) if match else None


def is_non_feature_updates(text):
    """ "Non-Feature Updates": a section whose items are announced with no stage."""
    return bool(NON_FEATURE_UPDATES_RE.search(text or ""))


def stage_in(phrase):
    """The Stage a phrase names, as it wrote it ("graduates to Beta" -> "Beta"); else None."""
    match = re.search(rf"\b{_STABILITY}\b", phrase or "", re.I)
    return stage_of(match.group("stability")) if match else None


def first_kind(text):
    match = KIND_RE.search(text or "")
    return match.lastgroup if match else None


def last_kind(text):
    kinds = [match.lastgroup for match in KIND_RE.finditer(text or "")]
    return kinds[-1] if kinds else None


def is_link_label(text):
    """A bold "Documentation" or "Tutorial:" labels a link; it names no feature."""
    return bool(KIND_RE.fullmatch(text.strip(" :").lower())) or text.strip(" :").lower() in {
        "link",
        "links",
        "docs",
        "example",
        "examples",
        "more",
        "learn more",
    }
