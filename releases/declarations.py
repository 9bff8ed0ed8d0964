"""
What each public model declares once, and everything else reads: its name in the public change
log, where it stands in the order a mirror creates objects, the references whose natural keys
its history and the log carry, what its own natural key reads through, and what a write to it
reaches elsewhere: the API items that show it (``shown_in``, stamped so that ``updated_since``
finds them), the public objects whose public state it may change (``reaches``, which the public
log compares), and the references without whose public state it is not public (``public_with``).

A model joins the public catalog with a ``public = Public(...)`` declaration and its
QuerySet's ``published()`` (docs/development.md, "How to add a model"); the write path, the
public log (releases.public_log), the history and the keys (releases.keys) find it here.
"""

import functools
from dataclasses import dataclass, field

from django.apps import apps

from releases import topics


@dataclass(frozen=True)
class Reaches:
    """
    The rows of public type ``type`` whose ``lookup`` is among the values of ``through`` in the
    written rows, now and before the write; only the rows whose write changed one of ``when``
    count (every row, when ``when`` is empty; a created or deleted row always counts).
    """

    type: str
    lookup: str = "pk"  # the path from the reached model: "features__release"
    through: str = "id"  # the written rows' attribute: "track_id"
    when: tuple = ()


# The longest public type name the public log's tables hold (PublicObject.type, PublicChange.type).
TYPE_LENGTH = 20


@dataclass(frozen=True)
class Public:
    type: str  # its name in /api/changes/ and on the desk: "feature"
    order: int  # a mirror creates lower orders first: what others refer to comes first
    references: tuple = ()  # foreign keys whose natural keys the history and the log carry
    key_path: tuple = ()  # what its own natural key reads through: a feature's, its release
    shown_in: tuple = ()  # Reaches: the API items that show it (their updated_at is stamped)
    reaches: tuple = ()  # Reaches: other objects whose public state a write to it may change
    public_with: tuple = ()  # foreign keys to objects it is public only with: a claim's feature
    # The topic families its changes belong to (releases.topics): "releases", "track", ...;
    # () for a model only the topic "all" follows. Said by every model, so none is forgotten.
    topics: tuple = field(kw_only=True)

    def __post_init__(self):
        # SQLite would store a longer name; PostgreSQL refuses it on the first write to the log.
        if not 0 < len(self.type) <= TYPE_LENGTH:
            raise ValueError(f"a public type name has 1 to {TYPE_LENGTH} characters: {self.type!r}")
        unknown = set(self.topics) - set(topics.FAMILIES)
        if unknown:
            raise ValueError(f"{self.type}: no topic family {sorted(unknown)}: {topics.FAMILIES}")


def declared(model):
    """The model's declaration, or None for a model the public never sees."""
    return getattr(model, "public", None)


def model(name):
    """
    The model ``name`` of the app, looked up when it is called. The write path (releases.writes,
    public_log, revision) and the QuerySets (releases.managers) run inside the models' own
    methods, and the models import them: importing the models back would be a loop at import
    time. This is the one lazy way the core reaches a model; tests/test_layout.py reads each
    ``model("Name")`` as an import of the module that defines it and holds the loop to the core.
    """
    return apps.get_model("releases", name)


@functools.cache
def public_models():
    """{type: model} of every public model, in the order a mirror creates them."""
    found = [model for model in apps.get_app_config("releases").get_models() if declared(model)]
    return {model.public.type: model for model in sorted(found, key=lambda m: m.public.order)}


def type_of(model):
    """The public type of ``model`` (by class name, so that a historical model finds it too)."""
    return next((t for t, m in public_models().items() if m.__name__ == model.__name__), None)


def reached(declared_reaches, rows, before):
    """
    (type, lookup, values) for each of ``declared_reaches`` that a write of ``rows`` (model
    instances or history records, by ``id``) reaches, ``before`` holding each updated row's
    values before the write ({id: {attname: value}}): the rows of ``type`` whose ``lookup`` is
    among ``values``.
    """
    for reach in declared_reaches:
        changed = [
            row
            for row in rows
            if not reach.when
            or row.id not in before
            or any(before[row.id].get(a, getattr(row, a)) != getattr(row, a) for a in reach.when)
        ]
        values = {getattr(row, reach.through) for row in changed}
        values |= {before.get(row.id, {}).get(reach.through) for row in changed}
        values -= {None}
        if values:
            yield reach.type, reach.lookup, values
