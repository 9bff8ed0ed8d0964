"""
What a link's label says to a reader. A post's label is kept as the post gives it (it is part
of the link's natural key), but some say nothing of where they lead: "Link", "RFC", "#96296",
a bare URL. ``shown_label`` gives those a label that does: the RFC's or pull request's number,
the kind of document, or else where it is (the address, or for a long one its host and
the words of its last segment). One plain function, no Django.
"""

import re
from urllib.parse import urlsplit

# Labels that name no document, as folded text.
SAYS_NOTHING = frozenset(
    {"link", "here", "this", "this link", "click here", "read more", "more", "see", "docs",
     "doc", "issue", "rfc", "pr", "pull request", "source"}
)  # fmt: skip
NUMBER_LABEL_RE = re.compile(r"#?\d+")
GITHUB_NUMBER_RE = re.compile(r"^/[^/]+/[^/]+/(?P<what>issues|pull|discussions)/(?P<number>\d+)")
WHAT_NUMBERS = {"issues": "Issue", "pull": "Pull request", "discussions": "Discussion"}
# Kinds that name a numbered thing better than the URL's path does.
NUMBERED_KINDS = frozenset({"RFC", "Issue", "Pull request"})
MAX_ADDRESS = 60


def says_nothing(label, url):
    label = (label or "").strip()
    return (
        label.casefold() in SAYS_NOTHING
        or bool(NUMBER_LABEL_RE.fullmatch(label))
        or label.rstrip("/") == url.rstrip("/")
        or label.startswith(("http://", "https://"))
    )


def shown_label(label, url, kind_label, is_other_kind):
    """The label as pages show it: the post's, unless it says nothing of where it leads."""
    if not url or not says_nothing(label, url):
        return label
    parts = urlsplit(url)
    numbered = GITHUB_NUMBER_RE.match(parts.path) if parts.hostname == "github.com" else None
    if numbered:
        what = kind_label if kind_label in NUMBERED_KINDS else WHAT_NUMBERS[numbered["what"]]
        return f"{what} #{numbered['number']}"
    if not is_other_kind:
        return kind_label
    host = (parts.hostname or "").removeprefix("www.")
    address = host + parts.path.rstrip("/")
    if len(address) <= MAX_ADDRESS:
        return address
    # A long address by its host and the words of its most telling segment: "intel.com:
    # accelerate pytorch int8 inf with new x86 backend".
    named = [part for part in parts.path.split("/") if part and not part.isdigit()]
    words = re.sub(r"[-_]+", " ", named[-1].rsplit(".", 1)[0]) if named else ""
    shown = f"{host}: {words}" if words else host
    return shown if len(shown) <= MAX_ADDRESS else shown[: MAX_ADDRESS - 1].rstrip() + "…"
