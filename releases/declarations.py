"""
What each public model declares once, and everything else reads: its name in the public change
log, where it stands in the order a mirror creates objects, the references whose natural keys
its history and the log carry, and what its own natural key reads through.

A model joins the public catalog with a ``public = Public(...)`` declaration and its
QuerySet's ``published()`` (docs/development.md, "How to add a model"); the write path, the
public log (releases.public_log), the history and the keys (releases.keys) find it here.
"""

import functools
from dataclasses import dataclass

from django.apps import apps


@dataclass(frozen=True)
class Public:
    type: str  # its name in /api/changes/ and on the desk: "feature"
    order: int  # a mirror creates lower orders first: what others refer to comes first
    references: tuple = ()  # foreign keys whose natural keys the history and the log carry
    key_path: tuple = ()  # what its own natural key reads through: a feature's, its release


def declared(model):
    """The model's declaration, or None for a model the public never sees."""
    return getattr(model, "public", None)


@functools.cache
def public_models():
    """{type: model} of every public model, in the order a mirror creates them."""
    found = [model for model in apps.get_app_config("releases").get_models() if declared(model)]
    return {model.public.type: model for model in sorted(found, key=lambda m: m.public.order)}


def type_of(model):
    """The public type of ``model`` (by class name, so that a historical model finds it too)."""
    return next((t for t, m in public_models().items() if m.__name__ == model.__name__), None)
