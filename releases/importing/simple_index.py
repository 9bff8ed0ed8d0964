"""
Reading a package index's Simple Repository API: one project's page, in its JSON form (PEP
691, with PEP 700's ``versions``, ``upload-time`` and ``size``, PEP 592's ``yanked``, PEP 714's
``core-metadata``) or its HTML form (PEP 503, with the same facts as ``data-*`` attributes),
into plain dataclasses; and what a wheel's file name says it was built for (``packaging``
reads names, versions and tags). No Django here: ``releases.importing.indexes`` records it.

What a version "is" on an index follows PEP 592: it is yanked when every one of its files is.
A version's first upload is the earliest ``upload-time`` of its files; an HTML page has none.
"""

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from email.parser import HeaderParser
from html.parser import HTMLParser

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
HTML_TYPE = "application/vnd.pypi.simple.v1+html"
# What a request asks for: JSON first, the HTML forms where an index offers only those.
ACCEPT = f"{JSON_TYPE}, {HTML_TYPE};q=0.2, text/html;q=0.01"

# The platforms people name, from a wheel's platform tag: (pattern, name with {arch}).
PLATFORM_FAMILIES = (
    (re.compile(r"^(?:many|musl)?linux(?:1|2010|2014|_[0-9]+_[0-9]+)?_(?P<arch>.+)$"), "linux"),
    (re.compile(r"^macosx_[0-9]+_[0-9]+_(?P<arch>.+)$"), "macos"),
    (re.compile(r"^win_(?P<arch>.+)$"), "windows"),
    (re.compile(r"^win(?P<arch>32)$"), "windows"),
)
ARCHES = {"i686": "x86", "32": "x86", "universal2": "universal2"}
PYTHON_TAG = re.compile(r"^(?:cp|py)(?P<major>[0-9])(?P<minor>[0-9]{1,2})?$")


class PageError(ValueError):
    """The page is not a project page of a Simple Repository API (in one line)."""


@dataclass(frozen=True)
class IndexFile:
    """One file of a project page."""

    filename: str
    url: str
    upload_time: dt.datetime | None = None
    size: int | None = None
    yanked: bool = False
    yanked_reason: str = ""
    requires_python: str = ""
    has_metadata: bool = False  # the index serves its core metadata (PEP 658/714)


@dataclass(frozen=True)
class Project:
    """A project page: its name, its files, and the versions it lists (PEP 700, JSON only)."""

    name: str
    files: tuple
    versions: tuple = ()


@dataclass(frozen=True)
class Built:
    """What a wheel's file name says: the version, its variant and what it runs on."""

    version: Version  # the public version: 2.5.1 of 2.5.1+cu124
    variant: str  # the local version: cu124 of 2.5.1+cu124; "" for none
    pythons: tuple  # "3.13", "3.13t" (free-threaded); empty for a pure-Python wheel
    platforms: tuple  # "linux-x86_64", "macos-arm64", "windows-amd64"; "any" for pure Python


@dataclass
class VersionFacts:
    """One final version of a project on the index, from its files."""

    version: Version
    files: list = field(default_factory=list)

    @property
    def first_upload(self):
        times = [f.upload_time for f in self.files if f.upload_time is not None]
        return min(times) if times else None

    @property
    def yanked(self):
        return bool(self.files) and all(f.yanked for f in self.files)

    @property
    def yanked_reason(self):
        return next((f.yanked_reason for f in self.files if f.yanked_reason), "")

    @property
    def requires_python(self):
        return next((f.requires_python for f in self.files if f.requires_python), "")


# --- pages ---------------------------------------------------------------------------------


def parse_project(body, content_type, url):
    """The project page ``body`` (bytes) as a Project; PageError saying what is wrong."""
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind == JSON_TYPE or kind.endswith("+json") or kind == "application/json":
        return parse_json(body, url)
    if kind in {HTML_TYPE, "text/html", "application/xhtml+xml", ""}:
        return parse_html(body, url)
    raise PageError(f"the answer is {kind}, not a project page")


def parse_json(body, url):
    try:
        page = json.loads(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as error:
        raise PageError(f"not JSON: {error}") from None
    if not isinstance(page, dict) or not isinstance(page.get("files"), list):
        raise PageError("a JSON page with no list of files")
    meta = page.get("meta")
    api = meta.get("api-version", "") if isinstance(meta, dict) else ""
    if not isinstance(api, str) or not api.startswith("1."):
        raise PageError(f"API version {api!r}: only 1.x is understood")
    files = tuple(json_file(item, url) for item in page["files"])
    listed = page.get("versions", [])
    if not isinstance(listed, list) or not all(isinstance(v, str) for v in listed):
        raise PageError("'versions' is not a list of strings")
    return Project(name=text_of(page.get("name"), "name"), files=files, versions=tuple(listed))


def json_file(item, url):
    if not isinstance(item, dict):
        raise PageError("a file that is not an object")
    filename = text_of(item.get("filename"), "filename")
    yanked = item.get("yanked", False)
    if not isinstance(yanked, bool | str):
        raise PageError(f"{filename}: 'yanked' is neither true, false nor a reason")
    size = item.get("size")
    if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 0):
        raise PageError(f"{filename}: 'size' is not a whole number")
    metadata = item.get("core-metadata", item.get("dist-info-metadata", False))
    return IndexFile(
        filename=filename,
        url=text_of(item.get("url"), "url"),
        upload_time=timestamp(item.get("upload-time"), filename),
        size=size,
        yanked=bool(yanked),
        yanked_reason=yanked if isinstance(yanked, str) else "",
        requires_python=optional_text(item.get("requires-python"), filename, "requires-python"),
        has_metadata=bool(metadata),
    )


def text_of(value, name):
    if not isinstance(value, str) or not value:
        raise PageError(f"'{name}' is missing or not text")
    return value


def optional_text(value, filename, name):
    if value is None:
        return ""
    if not isinstance(value, str):
        raise PageError(f"{filename}: '{name}' is not text")
    return value


def timestamp(value, filename):
    """PEP 700's ``upload-time`` (ISO 8601 in UTC, with Z), as an aware datetime."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise PageError(f"{filename}: 'upload-time' is not text")
    try:
        moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise PageError(f"{filename}: 'upload-time' {value[:40]!r} is not a time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


class AnchorReader(HTMLParser):
    """The anchors of a PEP 503 page: (href, text, attributes). Flat, so depth costs nothing."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.anchors, self.open = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.open = [dict(attrs), []]

    def handle_data(self, data):
        if self.open is not None:
            self.open[1].append(data)

    def handle_endtag(self, tag):
        if tag == "a" and self.open is not None:
            attrs, text = self.open
            self.anchors.append((attrs, "".join(text).strip()))
            self.open = None


def parse_html(body, url):
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise PageError(f"not UTF-8: {error}") from None
    if "<" not in text:
        raise PageError("not an HTML page")
    reader = AnchorReader()
    reader.feed(text)
    reader.close()
    files = []
    for attrs, anchor_text in reader.anchors:
        href = attrs.get("href") or ""
        filename = anchor_text or href.split("#")[0].rsplit("/", 1)[-1]
        if not filename or not href:
            continue
        yanked = "data-yanked" in attrs
        metadata = attrs.get("data-core-metadata", attrs.get("data-dist-info-metadata"))
        files.append(
            IndexFile(
                filename=filename,
                url=href,
                yanked=yanked,
                yanked_reason=(attrs.get("data-yanked") or "") if yanked else "",
                requires_python=attrs.get("data-requires-python") or "",
                has_metadata=metadata not in (None, "false"),
            )
        )
    name = canonicalize_name(url.rstrip("/").rsplit("/", 1)[-1] or "project")
    return Project(name=name, files=tuple(files))


# --- file names ----------------------------------------------------------------------------


def built(filename):
    """What a wheel's name says it was built for; None for an sdist; ValueError if garbled."""
    if filename.endswith(".whl"):
        try:
            _name, version, _build, tags = parse_wheel_filename(filename)
        except (InvalidWheelFilename, InvalidVersion) as error:
            raise ValueError(f"{filename}: {error}") from None
        pythons = sorted({p for tag in tags if (p := python_of(tag.interpreter, tag.abi))})
        platforms = sorted({platform_of(tag.platform) for tag in tags})
        public = Version(version.public)
        return Built(public, version.local or "", tuple(pythons), tuple(platforms))
    try:
        parse_sdist_filename(filename)
    except (InvalidSdistFilename, InvalidVersion) as error:
        raise ValueError(f"{filename}: {error}") from None
    return None


def version_of(filename):
    """The version a distribution's file name carries (a wheel's or an sdist's)."""
    if filename.endswith(".whl"):
        return parse_wheel_filename(filename)[1]
    return parse_sdist_filename(filename)[1]


def python_of(interpreter, abi):
    """3.13 of cp313, 3.13t of cp313/cp313t (free-threaded); None for py3 or other Pythons."""
    match = PYTHON_TAG.match(interpreter)
    if match is None or match["minor"] is None:
        return None
    version = f"{match['major']}.{match['minor']}"
    return f"{version}t" if abi.endswith("t") and abi.startswith("cp") else version


def platform_of(tag):
    """linux-x86_64, macos-arm64, windows-amd64 of a platform tag; the tag itself otherwise."""
    for pattern, family in PLATFORM_FAMILIES:
        match = pattern.match(tag)
        if match:
            arch = match["arch"]
            return f"{family}-{ARCHES.get(arch, arch)}"
    return tag


def final_versions(project):
    """
    {Version: VersionFacts} of the project's final versions (pre-releases and developmental
    releases aside; 0.2.2.post3 is final), the files of every variant together; and the file
    names that could not be read.
    """
    found, garbled = {}, []
    for file in project.files:
        try:
            version = version_of(file.filename)
        except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
            garbled.append(file.filename)
            continue
        if version.is_prerelease or version.is_devrelease:
            continue
        public = Version(version.public)
        found.setdefault(public, VersionFacts(public)).files.append(file)
    return found, garbled


def requirement_on(metadata, package):
    """
    The specifier a distribution's core metadata (bytes: its METADATA file) requires of
    ``package`` ("==2.5.1"), without extras or markers' alternatives; "" for no requirement.
    """
    headers = HeaderParser().parsestr(metadata.decode("utf-8", "replace"), headersonly=True)
    wanted = canonicalize_name(package)
    for line in headers.get_all("Requires-Dist") or []:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name) == wanted and not requirement.marker:
            return str(requirement.specifier)
    return ""
