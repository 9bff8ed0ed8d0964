"""
A folder of posts — a checkout of the blog's ``_posts`` — as release announcements: which
posts announce a release, in version order. No Django here: the command does the importing.
"""

import re
from dataclasses import dataclass
from pathlib import Path

from releases import versions
from releases.importing.parse import PostError, parse_file

# What follows "PyTorch X.Y" in a release announcement's title: "Release", "released", a colon
# or a comma that lists what came with it, "adds ...". "PyTorch 1.6 now includes ..." is a
# feature post; "New Library Updates in PyTorch 2.2" is a companion post.
RELEASE_TITLE_RE = re.compile(
    r"\bPyTorch\s+v?\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc)\d+)?\s*(?:[:,]|releas|adds\b)", re.I
)
COMPANION_RE = re.compile(r"\blibrar(?:y|ies)\s+(?:updates|releases)\b", re.I)


def announces_release(title):
    """Whether a post's title announces a PyTorch release (rather than a feature or library)."""
    title = title or ""
    return bool(RELEASE_TITLE_RE.search(title)) and not COMPANION_RE.search(title)


@dataclass
class FoundPost:
    path: Path
    parsed: object = None  # the ParsedPost, for a release announcement
    skipped: str = ""  # why it is not imported
    error: str = ""  # a post that cannot be read: file:line: message


POST_PATTERNS = ("*.md", "*.html", "*.htm")


def release_posts(folder):
    """
    Every post of ``folder`` (markdown, or HTML articles of the new blog): release
    announcements in version order, then the rest.
    """
    found = []
    paths = sorted({path for pattern in POST_PATTERNS for path in Path(folder).glob(pattern)})
    for path in paths:
        try:
            parsed = parse_file(path)
        except PostError as error:
            where = f"{path}:{error.line}" if error.line else str(path)
            found.append(FoundPost(path, error=f"{where}: {error.message}"))
            continue
        if not parsed.version or not announces_release(parsed.title):
            found.append(FoundPost(path, skipped="announces no release"))
        else:
            found.append(FoundPost(path, parsed=parsed))
    releases = [post for post in found if post.parsed is not None]
    releases.sort(key=lambda post: versions.Version.parse(post.parsed.version).key)
    return releases + [post for post in found if post.parsed is None]
