"""
What a colleague changed since an editor read an object: the refusal of a stale save names the
fields, who changed them and when, from the history.

Every write through ``changes`` adds one to the row's ``row_version`` and writes one history
record, so the ``current - read`` newest records of an object are the changes made since the
version that was read, and the record before them is that version itself.
"""

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from releases.actions import DELETED


@dataclass
class Change:
    who: str
    when: object
    fields: list


@dataclass
class Conflict:
    """The changes made to an object since ``read_version``; ``read`` is that version's record."""

    model: type
    read_version: int
    current_version: int | None
    changes: list = field(default_factory=list)
    read: object = None

    @property
    def changed_fields(self):
        """The names of the fields changed since, oldest change first, each once."""
        return list(dict.fromkeys(name for change in self.changes for name in change.fields))

    @property
    def deleted(self):
        return self.current_version is None

    def message(self):
        name = self.model._meta.verbose_name
        if self.deleted:
            return f"This {name} was deleted while you were editing it."
        if not self.changes:
            return (
                f"This {name} was changed while you were editing it (you read version "
                f"{self.read_version}, it is now at {self.current_version})."
            )
        done = "; ".join(
            f"{change.who} changed {', '.join(map(self.verbose, change.fields)) or 'nothing'} "
            f"at {timezone.localtime(change.when):%Y-%m-%d %H:%M}"
            for change in self.changes
        )
        return f"Not saved: this {name} changed while you were editing it. {done}."

    def verbose(self, name):
        try:
            return str(self.model._meta.get_field(name).verbose_name)
        except Exception:  # a field the model no longer has
            return name


def current_version(model, pk, lock=False):
    """The row's version now (None if it is gone); locked until the transaction ends, if asked."""
    rows = model._base_manager.filter(pk=pk)
    if lock and transaction.get_connection().in_atomic_block:
        rows = rows.select_for_update()
    return rows.values_list("row_version", flat=True).first()


def conflict_since(model, pk, read_version, current):
    """The Conflict of a form read at ``read_version`` with the row now at ``current``."""
    conflict = Conflict(model, read_version, current)
    if current is None or current <= read_version:
        return conflict
    since = current - read_version
    records = list(
        model.history.filter(id=pk)
        .exclude(history_type=DELETED)
        .select_related("history_user")
        .order_by("-history_id")[: since + 1]
    )
    newer, read = records[:since], records[since:]
    conflict.read = read[0] if read else None
    for record in reversed(newer):
        previous = record.prev_record
        changed = record.diff_against(previous).changed_fields if previous is not None else []
        who = record.history_user.get_username() if record.history_user else ""
        conflict.changes.append(
            Change(
                who=who or record.history_change_reason or "someone",
                when=record.history_date,
                fields=changed,
            )  # fmt: skip
        )
    return conflict
