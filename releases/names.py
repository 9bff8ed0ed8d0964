"""
How well two names of one capability match: a claim's subject and a feature's title, or a
track's name. The importer ties a claim to a feature with it, and deciding a claim ties it to a
track. Plain Python.
"""

import re

# Words every name in a release post may hold: they tell nothing about which capability it is.
STOP_WORDS = {
    "a", "an", "the", "of", "for", "to", "in", "on", "with", "and", "or", "new", "support",
    "feature", "features", "api", "apis", "module", "pytorch", "torch", "via", "based", "using",
    "level", "now", "is", "are", "its", "our", "added", "improved", "improvements", "updates",
}  # fmt: skip


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
