"""
Topics: what a subscriber of the catalog's changes asks to be told about, and which topics each
entry of the public change log (releases.public_log) belongs to.

A topic is one of:

* ``all``: every entry of the log;
* ``releases``, ``releases:2.x``, ``releases:2.14``: new releases and patches, of every line,
  of one major line, or of one minor;
* ``compatibility`` (and ``compatibility:2.x``, ``compatibility:2.14``): what releases run on
  and pair with: supported platforms, wheels, companion libraries;
* ``schedule`` (and ``schedule:2.x``, ``schedule:2.16``): planned dates added or moved;
* ``track:<slug>``: one capability: the track itself, its features and its stage claims;
* ``api:<prefix>``: upgrade notes that name an API equal to the prefix or under it
  (``api:torch.jit`` finds ``torch.jit.script``, never ``torch.jitter``).

Each public model says which families its entries belong to where it is declared
(``Public(topics=...)``, releases.declarations); this module turns an entry's key and payload
into the exact topic strings it belongs to (``of``), which the log stores beside the entry
(``ChangeTopic``), so that a subscription or a topic's feed is one indexed lookup.
Plain Python: no Django here.
"""

import re
from dataclasses import dataclass

ALL = "all"
RELEASES, COMPATIBILITY, SCHEDULE, TRACK, API = (
    "releases",
    "compatibility",
    "schedule",
    "track",
    "api",
)
SCOPED = (RELEASES, COMPATIBILITY, SCHEDULE)  # families a release line or a minor narrows
FAMILIES = (*SCOPED, TRACK, API)

# The longest topic a subscription or the log stores.
TOPIC_LENGTH = 200

LINE = re.compile(r"^(0|[1-9][0-9]{0,3})\.x$")
MINOR = re.compile(r"^(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")  # torch.onnx.export(...)
VERSION = re.compile(r"^([0-9]+)\.([0-9]+)")


class BadTopic(ValueError):
    """A topic this catalog does not know, with the reason."""


@dataclass(frozen=True)
class Topic:
    family: str  # "all", or one of FAMILIES
    scope: str = ""  # "2.x", "2.14", a track's slug, an API prefix; "" for the whole family

    def __str__(self):
        return f"{self.family}:{self.scope}" if self.scope else self.family


def parse(text):
    """The Topic ``text`` names; BadTopic saying what is wrong with it."""
    if not isinstance(text, str) or not text:
        raise BadTopic(
            "a topic is needed: all, releases, compatibility, schedule, track:SLUG or api:PREFIX"
        )
    if len(text) > TOPIC_LENGTH:
        raise BadTopic(f"a topic has at most {TOPIC_LENGTH} characters")
    family, colon, scope = text.partition(":")
    if family == ALL and not colon:
        return Topic(ALL)
    if family in SCOPED:
        if not colon:
            return Topic(family)
        if LINE.match(scope) or MINOR.match(scope):
            return Topic(family, scope)
        raise BadTopic(
            f"{text!r}: {family} narrows to a line such as {family}:2.x or a minor such as "
            f"{family}:2.14"
        )
    if family == TRACK:
        if colon and SLUG.match(scope):
            return Topic(TRACK, scope)
        raise BadTopic(
            f"{text!r}: a track topic names the track's slug, such as track:flexattention"
        )
    if family == API:
        if colon and DOTTED.match(scope):
            return Topic(API, scope)
        raise BadTopic(f"{text!r}: an API topic names a dotted prefix, such as api:torch.jit")
    raise BadTopic(
        f"{text!r} is not a topic: all, releases, compatibility, schedule, track:SLUG or api:PREFIX"
    )


def parse_all(texts):
    """The topics of ``texts``, once each, in order: ``all`` alone when it is among them."""
    topics = list(dict.fromkeys(str(parse(text)) for text in texts))
    if not topics:
        raise BadTopic("at least one topic is needed")
    return [ALL] if ALL in topics else topics


# --- the topics of a log entry ---------------------------------------------------------------


def scoped(family, version):
    """``releases``, ``releases:2.x`` and ``releases:2.14`` for the version "2.14.1"."""
    found = VERSION.match(version or "")
    if not found:
        return {family}
    major, minor = found.groups()
    return {family, f"{family}:{major}.x", f"{family}:{major}.{minor}"}


def prefixes(name):
    """
    ``api:torch``, ``api:torch.jit``, ``api:torch.jit.script`` of ``torch.jit.script`` (and of
    ``torch.jit.script(optimize=...)``: the dotted name an API starts with).
    """
    found = NAME.match(name) if isinstance(name, str) else None
    if not found:
        return set()
    parts = found.group().split(".")
    found = {f"{API}:{'.'.join(parts[: i + 1])}" for i in range(len(parts))}
    return {topic for topic in found if len(topic) <= TOPIC_LENGTH}


def release_of(type_, key, payload):
    """The version of the release an entry belongs to: its own, or the one it refers to."""
    if type_ == "release" and key:
        return str(key[0])
    if payload and isinstance(payload.get("release"), list) and payload["release"]:
        return str(payload["release"][0])
    if payload and isinstance(payload.get("version"), str):
        return payload["version"]
    return ""


def track_of(type_, key, payload):
    if type_ == "track" and key:
        return str(key[0])
    track = (payload or {}).get("track")
    return str(track[0]) if isinstance(track, list) and track else ""


def of(type_, families, key, payloads, api_names=()):
    """
    The topics an entry of the public type ``type_`` belongs to, its model declaring
    ``families``: from its key and each of ``payloads`` (its payload now, and before an update
    or a deletion, so that a feature moved from one track to another is news on both), and,
    for the ``api`` family, from ``api_names`` (the APIs an upgrade note names).
    """
    found = set()
    payloads = [p for p in payloads if p] or [None]
    for family in families:
        for payload in payloads:
            if family in SCOPED:
                found |= scoped(family, release_of(type_, key, payload))
            elif family == TRACK:
                slug = track_of(type_, key, payload)
                if slug:
                    found.add(f"{TRACK}:{slug}")
            elif family == API:
                found |= prefixes((payload or {}).get("name"))
        if family == API:
            for name in api_names:
                found |= prefixes(name)
    return found
