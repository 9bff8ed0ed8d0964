"""
The admin's forms. Every model admin's change form is a VersionedForm: it carries the version
of the row it was read at, and a save from a stale form is refused with what the other editor
changed (VersionedAdminMixin puts that hidden field into an admin's or inline's fieldsets).
Beside it, the feature list's "Merge into track" form and the form that takes a release post,
uploaded or pasted, for the import page.
"""

from django import forms
from django.contrib.admin.utils import flatten_fieldsets
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.forms.models import model_to_dict

from releases import concurrency, writes
from releases.importing.parse import MAX_POST_BYTES, PostError, decode, parse_post
from releases.models import Feature, Track

# Links are typed without a scheme more often than not; assume https (Django 6's default).
URL_FIELDS = {models.URLField: {"assume_scheme": "https"}}


class VersionedForm(forms.ModelForm):
    """
    A model form that carries the version of the row it was read at (a hidden field). A save
    from a stale form is refused with what the other editor changed, who and when; the form
    keeps the editor's input, takes the other editor's values for the fields this editor left
    alone, and moves to the current version, so that saving again applies the editor's change
    on top of the other's.
    """

    read_version = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        instance = self.instance
        if self.is_existing:
            # A revert's form holds an old version built from the history: the row's is now.
            loaded = instance._state.db is not None
            version = instance.row_version if loaded else self.current_version(lock=False)
            self.fields["read_version"].initial = version

    @property
    def is_existing(self):
        return self.instance.pk is not None and not self.instance._state.adding

    def current_version(self, lock):
        return concurrency.current_version(type(self.instance), self.instance.pk, lock=lock)

    def clean(self):
        data = super().clean()
        if not self.is_existing or not self.has_changed():
            return data  # a new row, or one the form leaves as it is: nothing to lose
        read = (data.get("read_version") or "").strip()
        if not (read.isascii() and read.isdigit()):
            raise ValidationError(
                "This form does not say which version it was read at: reload the page and "
                "make your changes again.",
                code="no_version",
            )
        # Locked until the admin's transaction ends: no write slips between check and save.
        current = self.current_version(lock=True)
        if int(read) != current:
            model = type(self.instance)
            conflict = concurrency.conflict_since(model, self.instance.pk, int(read), current)
            self.keep_input(conflict)
            raise ValidationError(
                f"{conflict.message()} Your changes are kept below, with the other editor's in "
                "the fields you left alone: check them and save again.",
                code="stale",
            )
        writes.expect_version(self.instance, int(read))
        return data

    def keep_input(self, conflict):
        """The form's data for a second try: the editor's input on the other's writes."""
        if conflict.deleted:
            return
        data = self.data.copy()
        data[self.add_prefix("read_version")] = str(conflict.current_version)
        current_row = type(self.instance)._base_manager.get(pk=self.instance.pk)
        current = model_to_dict(current_row)
        read = model_to_dict(conflict.read.instance) if conflict.read is not None else None
        for name in conflict.changed_fields:
            if name not in self.fields or read is None or name not in current:
                continue
            field, key = self.fields[name], self.add_prefix(name)
            if field.has_changed(read.get(name), self[name].data):
                continue  # this editor's own change: kept as typed
            value = field.prepare_value(current[name])
            if isinstance(value, bool):
                if value:
                    data[key] = "on"
                else:
                    data.pop(key, None)
            else:
                data[key] = "" if value is None else str(value)
        self.data = data


class VersionedAdminMixin:
    """Admins and inlines whose forms carry the version they were read at."""

    form = VersionedForm

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if "read_version" in flatten_fieldsets(fieldsets):
            return fieldsets
        (name, options), *rest = fieldsets
        return [(name, {**options, "fields": [*options["fields"], "read_version"]}), *rest]


class MergeIntoTrackForm(forms.Form):
    track = forms.ModelChoiceField(
        queryset=Track.objects.order_by(Lower("name")),
        help_text="The track the selected features join: type to search by name or slug.",
    )

    class Media:
        js = ["releases/merge.js"]

    def __init__(self, *args, admin_site, **kwargs):
        super().__init__(*args, **kwargs)
        # The admin's own searchable picker (select2), fed by the track list's search.
        field = self.fields["track"]
        field.widget = AutocompleteSelect(Feature._meta.get_field("track"), admin_site)
        field.widget.choices = field.choices


class ImportPostForm(forms.Form):
    """A release post, uploaded or pasted, read by the same parser as `import_post`."""

    post_file = forms.FileField(
        required=False,
        label="Post file",
        help_text="A markdown post with Jekyll front matter, as in the blog's _posts folder.",
    )
    post_text = forms.CharField(
        required=False,
        label="Or paste the post",
        widget=forms.Textarea(attrs={"rows": 12, "cols": 90}),
        strip=False,
    )
    file_name = forms.CharField(
        required=False,
        max_length=255,
        label="File name",
        help_text="For pasted text: the post's file name, whose date Jekyll reads "
        "(2031-5-6-pytorch-7-1.md). Optional.",
    )

    def clean(self):
        data = super().clean()
        upload, text = data.get("post_file"), data.get("post_text") or ""
        if upload and text.strip():
            raise ValidationError("Give a file or pasted text, not both.")
        if upload:
            if upload.size > MAX_POST_BYTES:
                raise ValidationError(
                    f"{upload.name}: larger than {MAX_POST_BYTES // (1024 * 1024)} MiB, the "
                    "most a post may be."
                )
            self.source_name = upload.name
            try:
                text = decode(upload.read())
            except PostError as error:
                raise ValidationError(self.where(error.line, error.message)) from None
        elif text.strip():
            self.source_name = data.get("file_name") or "pasted post"
            if len(text.encode("utf-8")) > MAX_POST_BYTES:
                raise ValidationError("The text is larger than a post may be (2 MiB).")
        else:
            raise ValidationError("Choose a post file or paste a post.")
        self.post_text = text
        try:
            self.parsed = parse_post(text, filename=data.get("file_name") or self.source_name)
        except PostError as error:
            raise ValidationError(self.where(error.line, error.message)) from None
        if not self.parsed.version:
            raise ValidationError(
                self.where(2, "cannot tell the version from the title: put it in the title")
            )
        return data

    def where(self, line, message):
        name = getattr(self, "source_name", "the post")
        return f"{name}, line {line}: {message}" if line else f"{name}: {message}"
