"""
Where a feature's facts come from, for readers: the post it was read from (``source_*``,
recorded by the importer) and, for each fact an editor corrected since, who and when.

A fact is an editor's correction when it differs from what the importer last read
(``Feature.imported_values``). Only the post's own words count: the title and the stage. A stage
from an accepted claim is still the post's word (its prose), and areas and tracks are the
catalog's own filing, not corrections of the post.
"""

from dataclasses import dataclass
from datetime import datetime

from releases import actions
from releases.models import Feature, StageSource

POST_FIELDS = ("title", "stability")


@dataclass(frozen=True)
class Edit:
    """One corrected fact: the field, what the post says, and who changed it, when."""

    field: str
    post_value: str
    who: str = ""
    when: datetime | None = None

    def __str__(self):
        text = f"{self.field} edited"
        if self.who:
            text += f" by {self.who}"
        if self.when:
            text += f" on {self.when.date().isoformat()}"
        return text


def edited_fields(feature):
    """The post's facts of ``feature`` that differ from what the importer read."""
    imported = feature.imported_values or {}
    names = []
    for name in POST_FIELDS:
        if name not in imported or getattr(feature, name) == imported[name]:
            continue
        if name == "stability" and feature.stage_source == StageSource.CLAIM:
            continue  # the post's prose states it: an accepted claim, not a correction
        names.append(name)
    return names


def mark_edits(features):
    """
    Set ``edits`` (a list of Edit) on each of ``features``: who changed each corrected fact,
    and when, read from the history in one query for all of them (none if nothing was
    corrected). The change that counts is the latest that gave the field its current value.
    """
    features = list(features)
    edited = {}
    for feature in features:
        feature.edits = []
        names = edited_fields(feature)
        if names:
            edited[feature.pk] = (feature, names)
    if not edited:
        return features
    records = (
        Feature.history.filter(id__in=list(edited))
        .order_by("id", "history_date", "history_id")
        .values_list(
            "id",
            "history_type",
            "history_date",
            "history_user__username",
            "history_change_reason",
            *POST_FIELDS,
        )
    )
    since = {}  # (feature id, field) -> the record that set the current value
    for pk, kind, date, username, reason, *values in records:
        feature, names = edited[pk]
        for name, value in zip(POST_FIELDS, values, strict=True):
            if name not in names:
                continue
            if value != getattr(feature, name):
                since.pop((pk, name), None)
            elif (pk, name) not in since:
                since[(pk, name)] = (kind, date, username or reason or "")
    for feature, names in edited.values():
        imported = feature.imported_values
        for name in names:
            kind, date, who = since.get((feature.pk, name), ("", None, ""))
            if kind == actions.CREATED:
                # Created with the corrected value (loaded from fixtures, say): the history
                # does not know who corrected it, or when.
                who, date = "", None
            feature.edits.append(Edit(name, imported[name] or "", who, date))
    return features
