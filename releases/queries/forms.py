"""
The queries that are not lists of one model: /api/compare/'s two versions and /api/changes/'s
place in the change log. Django forms of releases.queries.fields.
"""

from django import forms

from releases import versions
from releases.queries.fields import (
    BoundedDateTimeField,
    PublishedVersionField,
    StrictField,
    WholeNumberField,
)


def to_after_from(form, cleaned):
    """A query's ``to``, if given with ``from``, must be a later version (an error on ``to``)."""
    start, end = cleaned.get("from"), cleaned.get("to")
    if start and end and versions.Version.parse(end) <= versions.Version.parse(start):
        form.add_error("to", f"Must be a later version than from ({start}); got {end}.")
    return cleaned


class CompareForm(forms.Form):
    """
    The query of /api/compare/: two published versions, the second later than the first. A
    version no published release has is refused by name (400), as /api/state/ refuses it.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["from"] = PublishedVersionField(
            listed=False, help_text="The version you run, e.g. 1.7."
        )
        self.fields["to"] = PublishedVersionField(
            listed=False, help_text="The version you upgrade to, e.g. 1.9."
        )

    def clean(self):
        return to_after_from(self, super().clean())


class ChangesForm(forms.Form):
    """The query of /api/changes/: where to start, and how many entries a page holds."""

    since = BoundedDateTimeField(
        required=False,
        help_text="Changes at or after this ISO 8601 time, e.g. 2026-01-31T12:00:00Z. Leave "
        "out both since and cursor to read the whole log from its start.",
    )
    cursor = StrictField(
        required=False,
        pattern="^[A-Za-z0-9_-]+$",
        help_text="Resume after the last entry of a page: the cursor (or the next link) a "
        "previous page gave.",
    )
    page_size = WholeNumberField(
        low=1, high=100, required=False, help_text="Entries a page, 1 to 100 (100)."
    )

    def clean_page_size(self):
        return self.cleaned_data["page_size"] or 100

    def clean_cursor(self):
        from releases.public_log import BadCursor, decode_cursor

        text = self.cleaned_data["cursor"]
        if not text:
            return None
        try:
            return decode_cursor(text)
        except BadCursor as error:
            raise forms.ValidationError(str(error)) from None

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("since") and cleaned.get("cursor"):
            self.add_error("cursor", "Give since or cursor, not both: a cursor knows its place.")
        return cleaned
