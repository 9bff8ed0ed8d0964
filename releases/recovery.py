"""
Recovering what was deleted on its own — a link, an area's alias — from its last history
record. (A deleted feature comes back with the links deleted along with it:
``history.recover_feature``.)
"""

from django.core.exceptions import ValidationError
from django.db import transaction

from releases.actions import DELETED
from releases.history import CannotRecover, latest_records
from releases.models import AreaAlias, Link

# What each recoverable model hangs from: it comes back only while that still exists.
PARENTS = {Link: "feature", AreaAlias: "area"}


def deleted(model):
    """The last records of deleted objects of ``model`` whose parent still exists, newest first."""
    parent = PARENTS[model]
    parent_model = model._meta.get_field(parent).related_model
    return (
        latest_records(model)
        .filter(history_type=DELETED, **{f"{parent}_id__in": parent_model.objects.values("pk")})
        .exclude(id__in=model.objects.values("pk"))
        .order_by("-history_date", "-history_id")
    )


def recover(record):
    """Bring back the object of a deletion ``record``, as it was; CannotRecover says why not."""
    model = record.instance_type
    if model.objects.filter(pk=record.id).exists():
        raise CannotRecover(f"{model._meta.verbose_name} {record.id} is not deleted.")
    obj = record.instance
    obj._state.adding = True
    try:
        obj.validate_constraints()
    except ValidationError as error:
        raise CannotRecover(
            f"Cannot recover {model._meta.verbose_name} {obj}: " + " ".join(error.messages)
        ) from None
    with transaction.atomic():
        obj.save()
    return obj
