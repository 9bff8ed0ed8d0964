"""
The labels a post puts on what it announces, shared by the later stages: stage tags and
stability headings ("[Beta] X", "X (Stable)", "Prototype Features"), and the words that name
a kind of link ("Tutorial", "RFC", "Design doc").
"""

import re

STABILITY_WORDS = {
    "stable": "stable",
    "beta": "beta",
    "prototype": "prototype",
    "experimental": "beta",  # renamed to Beta when PyTorch classified features in 2020
}
_STABILITY = r"(?P<stability>stable|beta|prototype|experimental)"
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


def split_stability(text):
    """("[Beta] Name" or "Name (Beta)") -> ("Name", "beta"); untagged -> (text, None)."""
    for pattern in (TAG_PREFIX_RE, TAG_SUFFIX_RE):
        match = pattern.match(text)
        if match and match.group("rest").strip():
            return match.group("rest").strip(), STABILITY_WORDS[match.group("stability").lower()]
    return text.strip(), None


def stability_of_section(text):
    """ "Prototype Features" -> "prototype": headings that label the items under them."""
    match = STABILITY_SECTION_RE.search(text)
    return STABILITY_WORDS[match.group("stability").lower()] if match else None


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
