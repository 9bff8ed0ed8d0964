"""
Reading a post file: bytes to text, the Jekyll front matter, the post's date, version and URL.
A file that cannot be read raises PostError naming the line at fault.
"""

import datetime as dt
import os
import re
import stat

import yaml

from releases import versions

from .results import PostError

DEFAULT_BASE_URL = "https://pytorch.org/"
TITLE_VERSION_RE = re.compile(
    r"\bPyTorch\s+v?(\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc)\d+)?)(?![\w.])", re.I
)
# Jekyll's post names: YYYY-M-D-slug.md, with or without zero padding.
FILENAME_DATE_RE = re.compile(r"(?:^|/)([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})-[^/]*$")
# The blog's Jekyll permalinks: a post "2022-6-28-pytorch-1.12-released.md" is published at
# /blog/pytorch-1.12-released/ unless its front matter names another URL.
JEKYLL_POST_RE = re.compile(r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}-(?P<title>.+)\.(?:md|markdown)$")
# Front-matter dates as Jekyll takes them: a day, optionally a time and a zone.
DATE_RE = re.compile(
    r"^(?P<year>[0-9]{4})-(?P<month>[0-9]{1,2})-(?P<day>[0-9]{1,2})"
    r"(?:[T ]+(?P<time>[0-9]{1,2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)"
    r"\s*(?P<zone>Z|[+-][0-9]{2}:?[0-9]{2})?)?$"
)
# What the catalog stores: posts larger than this are refused before they are read whole.
MAX_POST_BYTES = 2 * 1024 * 1024


def decode(data):
    """Bytes of a post to text, refusing binary files with the line of the first bad byte."""
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise PostError("this is a binary file, not a markdown post (NUL byte)", line)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise PostError(f"not UTF-8 text ({error.reason} at byte {error.start})", line) from None


class FrontMatterLoader(yaml.SafeLoader):
    """YAML's safe loader, leaving dates as text: parse_date reads them as Jekyll does, and a
    date that is no date ("2030-02-30") becomes an error naming its line, not a crash."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if not tag.endswith(":timestamp")]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }


def split_front_matter(text):
    """Return (front matter dict, body, number of the body's first line)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise PostError("no front matter: a post starts with a '---' line and a title", 1)
    for index in range(1, len(lines)):
        if lines[index].strip() in {"---", "..."}:
            break
    else:
        raise PostError("the front matter opened on line 1 is never closed with '---'", 1)
    try:
        meta = yaml.load("".join(lines[1:index]), Loader=FrontMatterLoader) or {}
    except yaml.YAMLError as error:
        # Where the broken construct began, else where the parser gave up.
        mark = getattr(error, "context_mark", None) or getattr(error, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 2
        problem = getattr(error, "problem", None) or "cannot be read"
        raise PostError(f"the front matter is not valid YAML: {problem}", line) from None
    if not isinstance(meta, dict):
        raise PostError("the front matter is not a set of 'key: value' lines", 2)
    return meta, "".join(lines[index + 1 :]), index + 2


def key_line(text, key):
    """The line of ``key:`` in the front matter (2, its first line, if not found)."""
    for number, line in enumerate(text.splitlines()[1:], start=2):
        if line.strip() in {"---", "..."}:
            break
        if line.split(":", 1)[0].strip() == key:
            return number
    return 2


def parse_date(value):
    """A date from a front-matter value (a day, with a time and zone or not); else None."""
    match = DATE_RE.match(str(value).strip())
    if match is None:
        return None
    try:
        return dt.date(int(match["year"]), int(match["month"]), int(match["day"]))
    except ValueError:
        return None


def release_date_from(meta, filename, date_line):
    """
    The post's date: its front matter's ``date:``, else the date in its file name, as Jekyll
    reads them. A date that is there but is not a date is an error, never silently dropped.
    """
    if meta.get("date") not in (None, ""):
        date = parse_date(meta["date"])
        if date is None:
            raise PostError(
                f"'date: {meta['date']}' is not a date: write YYYY-MM-DD, optionally with a "
                "time and zone (2021-03-04 10:00:00 -0800)",
                date_line,
            )
        return date
    match = FILENAME_DATE_RE.search(str(filename or ""))
    if match:
        try:
            return dt.date(*(int(part) for part in match.groups()))
        except ValueError:
            raise PostError(
                f"the file name's date {'-'.join(match.groups())} is not a date", 1
            ) from None
    return None


def version_from_title(title):
    match = TITLE_VERSION_RE.search(title or "")
    return versions.normalize(match.group(1)) if match else None


def url_of_file(filename, base_url=DEFAULT_BASE_URL):
    """The URL the blog publishes a dated post file at; "" for a file name without a date."""
    match = JEKYLL_POST_RE.match(os.path.basename(str(filename or "")))
    if match is None:
        return ""
    return f"{base_url.rstrip('/')}/blog/{match['title']}/"


def read_text(path):
    """
    A post file's text; PostError for what is not a regular file, is larger than
    MAX_POST_BYTES (refused before it is read whole), or is unreadable, empty or binary.
    """
    try:
        # Checked before opening: opening a pipe would wait for a writer.
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise PostError("not a regular file: give the path of a markdown post")
        with open(path, "rb") as handle:
            data = handle.read(MAX_POST_BYTES + 1)
    except OSError as error:
        raise PostError(f"cannot read the file: {error.strerror}") from None
    if len(data) > MAX_POST_BYTES:
        raise PostError(
            f"the file is larger than {MAX_POST_BYTES // (1024 * 1024)} MiB, the most a post "
            "may be: is it really a release post?"
        )
    if not data.strip():
        raise PostError("the file is empty", 1)
    return decode(data)
