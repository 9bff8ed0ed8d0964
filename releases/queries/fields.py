"""
The field of each kind of query parameter: it parses one value, refuses a malformed one with a
message naming what is wrong, and states its OpenAPI schema (``openapi()``, read by
releases.api.schema). Plain Django form fields; the filters and forms of this package use them.
"""

import datetime as dt
import re

from django import forms

from releases import versions
from releases.models import Release, Track
from releases.queries.params import CONTROL, whole_number_error
from releases.text import words

ISO_DATE_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
DATETIME_RE = re.compile(
    r"^[1-8][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?"
    r"(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])\Z"
)


def anchored(pattern):
    return f"^{pattern}$"


def comma_list(values):
    """A pattern for one value of ``values`` or several, comma-separated."""
    one = "(" + "|".join(values) + ")"
    return anchored(f"{one}(,{one})*")


def ecma(pattern):
    """A Python pattern as OpenAPI (ECMA-262) writes it: its groups unnamed, ``\\Z`` as ``$``."""
    unnamed = re.sub(r"\(\?(P<\w+>|:)", "(", pattern)
    return unnamed[:-2] + "$" if unnamed.endswith(r"\Z") else unnamed


# A version as versions.normalize reads it, without its anchors.
VERSION = ecma(versions.VERSION_RE.pattern).removeprefix("^").removesuffix("$")
# Words are what spaces (U+0020) separate; a word holds no control character (params.CONTROL).
WORD = f"[^ {CONTROL.pattern[1:-1]}]"


class JoinedInput(forms.TextInput):
    """Reads a parameter that takes several values: repeated or comma-separated, alike."""

    def value_from_datadict(self, data, files, name):
        values = data.getlist(name) if hasattr(data, "getlist") else [data.get(name)]
        values = [value for value in values if value is not None]
        return ",".join(values) if values else None


def values_of(query, name):
    """The values of ``name`` in ``query``, repeated or comma-separated, as filters read them."""
    joined = JoinedInput().value_from_datadict(query, {}, name)
    return joined.split(",") if joined else []


class StrictField(forms.CharField):
    """A query value as given: Django's CharField would strip it, and "\x85" would vanish."""

    def __init__(self, *, pattern=None, **kwargs):
        kwargs.setdefault("strip", False)
        self.pattern = pattern  # what the schema states, where the field checks more
        super().__init__(**kwargs)

    def openapi(self):
        """How the OpenAPI schema states this parameter (releases.api.schema)."""
        schema = {"type": "string", "minLength": 1}
        if self.pattern:
            schema["pattern"] = self.pattern
        return {"schema": schema}


def several(item_pattern):
    """A parameter taking several values: repeated, each value one or a comma-separated list."""
    return {
        "schema": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "pattern": item_pattern},
            "minItems": 1,
        },
        "style": "form",
        "explode": True,
    }


class VersionField(StrictField):
    def openapi(self):
        return {"schema": {"type": "string", "minLength": 1, "pattern": anchored(VERSION)}}

    def to_python(self, value):
        value = super().to_python(value)
        if not value:
            return None
        try:
            return versions.Version.parse(value)  # parsed here, once: below takes the object
        except versions.InvalidVersion as error:
            raise forms.ValidationError(str(error), code="invalid") from None


class VersionListField(StrictField):
    """One version or several, comma-separated (or the parameter repeated)."""

    widget = JoinedInput

    def openapi(self):
        return several(anchored(f"{VERSION}(,{VERSION})*"))

    def to_python(self, value):
        value = super().to_python(value)
        if not value:
            return None
        parts = [part.strip() for part in value.split(",")]
        try:
            return [versions.Version.parse(part) for part in parts]
        except versions.InvalidVersion as error:
            raise forms.ValidationError(
                f"{error} Several: comma-separate them, or repeat the parameter.", code="invalid"
            ) from None


class BoundedDateTimeField(StrictField):
    """
    A time as RFC 3339 writes it (2026-01-31T12:00:00Z, 2026-01-31T13:00:00.5+01:00) in the
    years 1000 to 8999: a time every database can compare, in any zone (0001-01-01T00:00+00:01
    would be before the year 1 in UTC).
    """

    def openapi(self):
        return {
            "schema": {
                "type": "string",
                "format": "date-time",
                "pattern": ecma(DATETIME_RE.pattern),
            }
        }

    def to_python(self, value):
        value = super().to_python(value)
        if not value:
            return None
        if not DATETIME_RE.match(value):
            raise forms.ValidationError(
                f"Must be a time such as 2026-01-31T12:00:00Z (years 1000 to 8999); got '{value}'.",
                code="invalid",
            )
        try:
            # In UTC: PostgreSQL takes no zone beyond ±15:59, and RFC 3339 allows ±23:59.
            return dt.datetime.fromisoformat(value).astimezone(dt.UTC)
        except ValueError:
            raise forms.ValidationError(f"'{value}' is not a time of the calendar.") from None


class SearchField(StrictField):
    """Words to look for, within limits that keep every search cheap."""

    MAX_LENGTH, MAX_WORDS = 200, 10

    def openapi(self):
        words = anchored(rf"{WORD}+( +{WORD}+){{0,{self.MAX_WORDS - 1}}}")
        schema = {"type": "string", "minLength": 1, "maxLength": self.MAX_LENGTH, "pattern": words}
        return {"schema": schema}

    def to_python(self, value):
        value = super().to_python(value)
        if value and len(value) > self.MAX_LENGTH:
            raise forms.ValidationError(
                f"At most {self.MAX_LENGTH} characters; got {len(value)}.", code="max_length"
            )
        if value and len(words(value)) > self.MAX_WORDS:
            raise forms.ValidationError(
                f"At most {self.MAX_WORDS} words; got {len(words(value))}.", code="max_words"
            )
        if value is not None and not words(value):
            raise forms.ValidationError("Give at least one word.", code="blank")
        return value


class TrackField(StrictField):
    """A track's slug, refused unless a track has it (as an unknown area is)."""

    def openapi(self):
        slugs = Track.objects.published().order_by("slug").values_list("slug", flat=True)
        return {"schema": {"type": "string", "enum": list(slugs) or ["none-yet"]}}

    def to_python(self, value):
        value = super().to_python(value)
        if value and not Track.objects.published().filter(slug=value).exists():
            raise forms.ValidationError(
                f"Unknown track '{value}' (see /api/tracks/).", code="invalid_choice"
            )
        return value


PLATFORM_VERSION = r"[0-9]{1,4}(\.[0-9]{1,4}){0,3}t?"


class PatternField(StrictField):
    """A value that must match ``PATTERN`` (which the schema states too), or ``MESSAGE``."""

    PATTERN = ""
    MESSAGE = ""  # what it should be; the value given follows

    def __init__(self, **kwargs):
        super().__init__(pattern=anchored(self.PATTERN), **kwargs)

    def to_python(self, value):
        value = super().to_python(value)
        if value and not re.fullmatch(self.PATTERN, value):
            raise forms.ValidationError(f"{self.MESSAGE}; got '{value[:40]}'.", code="invalid")
        return value or None


class PlatformVersionField(PatternField):
    """A version of what a release runs on: Python 3.13 (3.13t), CUDA 12.8, ROCm 6.2.4, 9.0."""

    PATTERN = PLATFORM_VERSION
    MESSAGE = "Not a version such as 3.13, 12.8 or 6.2.4"


class PlatformNameField(PatternField):
    """An operating system as the tables name it: Linux, macOS, Windows."""

    PATTERN = r"[A-Za-z](?:[A-Za-z0-9 .+-]{0,38}[A-Za-z0-9.+-])?"
    MESSAGE = "Not an operating system's name such as Linux"


class ChoiceListField(StrictField):
    """One value or several, comma-separated, each from a fixed list."""

    widget = JoinedInput

    def __init__(self, *, allowed, **kwargs):
        self.allowed = allowed
        super().__init__(**kwargs)

    def choices(self):
        """The values allowed (read from the catalog where they live there)."""
        return list(self.allowed() if callable(self.allowed) else self.allowed)

    def openapi(self):
        return several(comma_list(self.choices() or ["none-yet"]))

    def to_python(self, value):
        value = super().to_python(value)
        if not value:
            return None
        chosen = value.split(",")
        allowed = self.choices()
        unknown = [part for part in chosen if part not in allowed]
        if unknown:
            raise forms.ValidationError(
                f"Unknown value '{', '.join(unknown) or value}'. Allowed: {', '.join(allowed)} "
                "(comma-separate several).",
                code="invalid_choice",
            )
        return chosen


class OneOfField(StrictField):
    """One value from a fixed list."""

    def __init__(self, *, allowed, **kwargs):
        self.allowed = list(allowed)
        super().__init__(**kwargs)

    def openapi(self):
        return {"schema": {"type": "string", "enum": self.allowed}}

    def to_python(self, value):
        value = super().to_python(value)
        if value and value not in self.allowed:
            raise forms.ValidationError(
                f"Unknown value '{value[:40]}'. Allowed: {', '.join(self.allowed)}.",
                code="invalid_choice",
            )
        return value or None


class StrictBooleanField(StrictField):
    """true or false, as JSON spells them (and the schema says)."""

    def openapi(self):
        return {"schema": {"type": "boolean"}}

    def to_python(self, value):
        value = super().to_python(value)
        if not value:
            return None
        if value in ("true", "false"):
            return value == "true"
        raise forms.ValidationError(f"Must be true or false; got '{value}'.", code="invalid")


class ISODateField(StrictField):
    """A day as YYYY-MM-DD, the one spelling (Django's DateField takes 10/25/2006 too)."""

    def openapi(self):
        return {
            "schema": {"type": "string", "format": "date", "pattern": ecma(ISO_DATE_RE.pattern)}
        }

    def to_python(self, value):
        value = super().to_python(value)
        if not value:
            return None
        if not ISO_DATE_RE.match(value):
            raise forms.ValidationError(f"Must be a day as YYYY-MM-DD; got '{value}'.")
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise forms.ValidationError(f"'{value}' is not a day of the calendar.") from None


class PublishedVersionField(VersionField):
    """
    A version, refused unless a published release has it (1.9 finds 1.9.0). Its schema lists
    the published versions, read when the schema is built; ``listed=False`` gives a version's
    pattern instead, for a schema built when its module loads (which must not read the
    database: /api/compare/'s).
    """

    def __init__(self, *args, listed=True, **kwargs):
        self.listed = listed
        super().__init__(*args, **kwargs)

    def openapi(self):
        if not self.listed:
            return super().openapi()
        published = Release.objects.published().oldest_first().values_list("version", flat=True)
        return {"schema": {"type": "string", "enum": list(published) or ["none-yet"]}}

    def to_python(self, value):
        version = super().to_python(value)
        if version and not Release.objects.published().of_version(version).exists():
            raise forms.ValidationError(
                f"No published release {version} (see /api/releases/).", code="invalid_choice"
            )
        return version


class WholeNumberField(StrictField):
    """A whole number in ASCII digits, from ``low`` to ``high``: refused outside, not clamped."""

    def __init__(self, *, low, high, **kwargs):
        self.low, self.high = low, high
        super().__init__(**kwargs)

    def openapi(self):
        return {"schema": {"type": "integer", "minimum": self.low, "maximum": self.high}}

    def to_python(self, value):
        value = super().to_python(value)
        if not value:
            return None
        error = whole_number_error(value, self.low, self.high)
        if error:
            raise forms.ValidationError(error, code="invalid")
        return int(value)


class APIPrefixField(PatternField):
    """The start of an API's name as the release notes spell it: torch.onnx, torch.load."""

    PATTERN = r"[^\s\x00-\x1f\x7f](?:[^\x00-\x1f\x7f]{0,198}[^\s\x00-\x1f\x7f])?"
    MESSAGE = "Not the start of an API's name such as torch.onnx (up to 200 characters)"
