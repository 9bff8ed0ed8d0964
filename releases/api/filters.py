"""
Every query parameter of the API and the pages, declared once: one FilterSet per list
endpoint (and a form for /api/compare/ and /api/changes/), and a filter backend that refuses
what it does not know.

A parameter's declaration is its filter (or form field). From it come its validation (the
field cleans it; a malformed value or an unknown parameter is a 400 whose JSON names it),
whether it takes several values (a list field's widget joins ``release=1.8&release=1.9`` as
``1.8,1.9``, and ``MULTI_VALUED`` lists them for the query rule), its OpenAPI description (each
field's ``openapi()``, read by releases.api.schema), the facets, CSV and the pages, which all
go through the same FilterSets. Nothing is silently ignored.
"""

import datetime as dt
import re

import django_filters
from django import forms
from django.db.models import Case, Count, Exists, IntegerField, OuterRef, Q, Subquery, Value, When
from django.db.models.functions import Lower
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework.exceptions import ValidationError

from releases import memory, text, versions
from releases.api.params import CONTROL, whole_number_error
from releases.managers import version_bound
from releases.models import (
    Area,
    Feature,
    FeatureKind,
    Link,
    LinkKind,
    LinkStatus,
    Release,
    Stability,
    Track,
)
from releases.stats import stuck_track_ids
from releases.text import folded_words, words

NO_STABILITY = "none"
ISO_DATE_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
DATETIME_RE = re.compile(
    r"^[1-8][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?"
    r"(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])\Z"
)


# --- fields: parse and validate one query parameter ------------------------------------------


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
            return versions.normalize(value)
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
            return [versions.normalize(part) for part in parts]
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


# --- filters ---------------------------------------------------------------------------------


class Declared:
    """
    A filter of this module: what it declares (its field, its help, its choices) is shared by
    the copies django-filter's FilterSet makes of it, one set a request (its constructor
    deep-copies every filter). Only what binds a copy to its FilterSet is its own: the
    FilterSet and model it is given, and the method it filters through, bound to the copy.
    A deep copy would walk the whole declaration, for every filter, on every request.
    """

    def __deepcopy__(self, memo):
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        if self.method is not None:
            clone.method = self.method  # filters through a method bound to the copy
        return clone


@extend_schema_field(OpenApiTypes.STR)
class VersionFilter(Declared, django_filters.Filter):
    """A version compared as a version: ``lookup`` is "exact", "gte" or "lte" on ``field_name``,
    a version key (an integer that sorts as versions do)."""

    field_class = VersionField

    def __init__(self, *args, lookup="exact", field_name="version_key", **kwargs):
        self.lookup = lookup
        super().__init__(*args, field_name=field_name, **kwargs)

    def filter(self, qs, value):
        if not value:
            return qs
        if self.lookup == "exact":
            return qs.filter(**{self.field_name: versions.Version.parse(value).key})
        return qs.filter(version_bound(value, self.lookup, field=self.field_name))


class TrackFilter(Declared, django_filters.CharFilter):
    field_class = TrackField


def exact_or_in(field_name, values):
    """A lookup for any of ``values``: ``=`` for one (simpler to build, and to plan)."""
    if len(values) == 1:
        return {field_name: values[0]}
    return {f"{field_name}__in": values}


@extend_schema_field(OpenApiTypes.STR)
class VersionListFilter(Declared, django_filters.Filter):
    """Items of these versions: ``release=1.8,1.9`` or ``release=1.8&release=1.9``."""

    field_class = VersionListField

    def filter(self, qs, value):
        if not value:
            return qs
        keys = [versions.Version.parse(version).key for version in value]
        return qs.filter(**exact_or_in(self.field_name, keys))


@extend_schema_field(OpenApiTypes.STR)
class ChoiceListFilter(Declared, django_filters.Filter):
    field_class = ChoiceListField

    def __init__(self, *args, allowed, translate=None, **kwargs):
        self.translate = translate or {}
        super().__init__(*args, allowed=allowed, **kwargs)

    def filter(self, qs, value):
        if not value:
            return qs
        chosen = [self.translate.get(item, item) for item in value]
        return qs.filter(**exact_or_in(self.field_name, chosen))


@extend_schema_field(OpenApiTypes.BOOL)
class StrictBooleanFilter(Declared, django_filters.Filter):
    field_class = StrictBooleanField


@extend_schema_field(OpenApiTypes.STR)
class SearchFilter(Declared, django_filters.Filter):
    """
    Every word must appear in one of ``search_fields``. The query is folded
    (releases.text.fold). With ``folded``, the fields hold what ``releases.text.searchable``
    derives (a column ``prepare_save`` writes): a word matches when it is part of the folded
    text (parts of words too, so "attention" finds FlexAttention) or when its stems are part of
    the text's stems (so "deprecated" finds "deprecation"), the same on every database;
    otherwise fields are compared case-insensitively, as the database does.

    A field across a relation (``links__search_text``) counts its published rows only, each
    word through one ``EXISTS``: a draft's words find nothing, and no row is repeated.

    With ``ranked_by`` (fields, most telling first), the best matches come first: each word
    scores by the first of those fields it matches in (a title's word outweighs any number of
    summary words), then the usual order.
    """

    field_class = SearchField

    def __init__(self, *args, search_fields, folded=False, ranked_by=(), **kwargs):
        self.search_fields = search_fields
        self.folded = folded
        self.ranked_by = ranked_by
        super().__init__(*args, **kwargs)

    def filter(self, qs, value):
        terms = folded_words(value)
        if not terms:
            return qs
        qs = qs.filter(
            *(
                Q(*(self.matches(qs, n, t) for n in self.search_fields), _connector=Q.OR)
                for t in terms
            )
        )
        if not self.ranked_by:
            return qs
        ordering = qs.query.order_by or qs.model._meta.ordering
        return qs.annotate(search_rank=self.rank(qs, terms)).order_by("-search_rank", *ordering)

    def matches(self, qs, name, term):
        """Where the one word ``term`` is found in the field ``name``, as a Q."""
        relation, _, rest = name.partition("__")
        if rest:  # across a relation: its published rows that match, if any
            field = qs.model._meta.get_field(relation)
            related = field.related_model.objects.published().filter(
                self.matches(field.related_model.objects.all(), rest, term),
                **{field.field.name: OuterRef("pk")},
            )
            return Q(Exists(related))
        if not self.folded:
            return Q(**{f"{name}__icontains": term})
        plain, roots = text.query_terms(term)
        found = Q(**{f"{name}__contains": plain})
        return found | Q(**{f"{name}__contains": roots}) if roots else found

    def rank(self, qs, terms):
        """Each word's score (the heaviest field it matches in), summed over the words."""
        weights = [2**place for place in reversed(range(len(self.ranked_by)))]
        return sum(
            (
                Case(
                    *(
                        When(self.matches(qs, name, term), then=Value(weight))
                        for name, weight in zip(self.ranked_by, weights, strict=True)
                    ),
                    default=Value(0),
                    output_field=IntegerField(),
                )
                for term in terms
            ),
            start=Value(0),
        )


class VersionAwareOrderingFilter(Declared, django_filters.OrderingFilter):
    """An OrderingFilter where ``release`` orders by version, not by text."""

    def __init__(self, *args, version_field, text_fields=(), **kwargs):
        self.version_field = version_field
        self.text_fields = set(text_fields)  # ordered as people read them: case-insensitively
        super().__init__(*args, **kwargs)
        allowed = ", ".join(value for value, _ in self.extra["choices"])
        self.extra["error_messages"] = {
            "invalid_choice": f"Unknown ordering '%(value)s'. Allowed: {allowed}."
        }

    def openapi(self):
        names = [value for value, _ in self.extra["choices"] if not value.startswith("-")]
        orderings = [f"-?{name}" for name in names]
        return {"schema": {"type": "string", "minLength": 1, "pattern": comma_list(orderings)}}

    def get_ordering_value(self, param):
        descending = param.startswith("-")
        name = param.lstrip("-")
        if name == "release":
            return [f"{'-' if descending else ''}{self.version_field}"]
        field = super().get_ordering_value(param)
        if name in self.text_fields:
            lowered = Lower(field.lstrip("-"))
            return [lowered.desc() if descending else lowered.asc()]
        return [field]

    def filter(self, qs, value):
        if value in ([], (), {}, "", None):
            return qs
        if any(not param.strip() for param in value):
            allowed = ", ".join(choice for choice, _ in self.extra["choices"])
            raise ValidationError(
                {self.field_name: [f"An empty item in the list. Allowed: {allowed}."]}
            )
        ordering = [field for param in value for field in self.get_ordering_value(param)]
        return qs.order_by(*ordering, "pk")


def area_slugs():
    return Area.objects.published().order_by("slug").values_list("slug", flat=True)


class StrictForm(forms.Form):
    """The form a FilterSet validates its query with (CatalogFilterSet.get_form_class)."""

    def add_error(self, field, error):
        if isinstance(error, forms.ValidationError):
            memory.without_traceback(error)
        super().add_error(field, error)


class CatalogFilterSet(django_filters.FilterSet):
    """
    A FilterSet whose form holds the fields of the parameters a request gives (and of the
    required ones), not one for every filter: each request cleans what it asks for, and a
    form class is built once for each set of parameters (get_form_class, django-filter's hook).
    """

    _forms = {}  # (FilterSet, parameter names) -> form class

    def __init__(self, data=None, queryset=None, *, request=None, prefix=None):
        super().__init__(data, queryset, request=request, prefix=prefix)
        self.given = tuple(
            name
            for name, filter_ in self.filters.items()
            if name in self.data or filter_.extra.get("required")
        )

    def get_form_class(self):
        key = (type(self), self.given)
        form_class = self._forms.get(key)
        if form_class is None:
            fields = {name: self.filters[name].field for name in self.given}
            form_class = type(f"{type(self).__name__}Form", (StrictForm,), fields)
            self._forms[key] = form_class
        return form_class


STABILITY_VALUES = [*Stability.values, NO_STABILITY]
STABILITY_HELP = (
    "One of stable, beta, prototype, unstable (PyTorch's API-Unstable, from 2.8 on), none (no "
    "stability given), or several comma-separated: stability=beta,prototype."
)


class BoundedDateTimeFilter(Declared, django_filters.IsoDateTimeFilter):
    field_class = BoundedDateTimeField


class ISODateFilter(Declared, django_filters.DateFilter):
    field_class = ISODateField


def updated_since_filter():
    return BoundedDateTimeFilter(
        field_name="updated_at",
        lookup_expr="gte",
        help_text="Only what changed at or after this ISO 8601 time (e.g. 2026-01-31T12:00:00Z), "
        "to sync a mirror.",
    )


class ReleaseFilterSet(CatalogFilterSet):
    min_version = VersionFilter(
        lookup="gte", help_text="Releases at or after this version (1.10 > 1.9)."
    )
    max_version = VersionFilter(lookup="lte", help_text="Releases at or before this version.")
    released_after = ISODateFilter(
        field_name="release_date", lookup_expr="gte", help_text="Released on or after (YYYY-MM-DD)."
    )
    released_before = ISODateFilter(
        field_name="release_date",
        lookup_expr="lte",
        help_text="Released on or before (YYYY-MM-DD).",
    )
    search = SearchFilter(
        search_fields=["title", "version", "summary", "highlights"],
        ranked_by=["title", "version", "summary", "highlights"],
        help_text="Words that must all appear in the version, title, summary or highlights "
        "(on PostgreSQL, best matches first).",
    )
    updated_since = updated_since_filter()

    class Meta:
        model = Release
        fields = []


FOLDING_HELP = (
    "Case, compatibility forms (full-width letters, ligatures), soft hyphens and zero-width "
    "characters make no difference: ｆｆｔ finds fft."
)

# The facets /api/features/ counts on request: parameter name -> the field counted.
FACET_FIELDS = {"stability": "stability", "area": "area__slug", "release": "release__version"}


class FeatureFilterSet(CatalogFilterSet):
    release = VersionListFilter(
        field_name="release_version_key",
        help_text="Features of this release, e.g. 1.8; several comma-separated or repeated.",
    )
    min_version = VersionFilter(
        lookup="gte",
        field_name="release_version_key",
        help_text="Features of releases at or after this version.",
    )
    max_version = VersionFilter(
        lookup="lte",
        field_name="release_version_key",
        help_text="Features of releases at or before this version.",
    )
    stability = ChoiceListFilter(
        allowed=STABILITY_VALUES, translate={NO_STABILITY: ""}, help_text=STABILITY_HELP
    )
    area = ChoiceListFilter(
        field_name="area__slug",
        allowed=area_slugs,
        help_text="Area slug, or several comma-separated (see /api/areas/).",
    )
    kind = ChoiceListFilter(
        allowed=FeatureKind.values,
        help_text="feature, or deprecation (an announcement that a capability is deprecated or "
        "removed); or both comma-separated.",
    )
    has_missing_links = StrictBooleanFilter(
        method="filter_has_missing_links",
        help_text="true: features with a link the post promised but left empty; false: none.",
    )
    promoted = StrictBooleanFilter(
        method="filter_promoted",
        help_text="true: features more stable than their track's previous appearance.",
    )
    track = TrackFilter(field_name="track__slug", help_text="A track's slug (see /api/tracks/).")
    updated_since = updated_since_filter()
    search = SearchFilter(
        search_fields=["search_text", "links__search_text"],
        folded=True,
        ranked_by=["title_search", "search_text", "links__search_text"],
        help_text="Words that must all appear in the title, the summary or a link's label, "
        "best matches first (title, then summary, then links). Other forms of a word match "
        "too (deprecated finds deprecation, compiling finds compile), and so do parts of "
        "words (attention finds FlexAttention). " + FOLDING_HELP,
    )
    facets = ChoiceListFilter(
        method="filter_facets",
        allowed=list(FACET_FIELDS),
        help_text="stability, area and/or release: adds `facets`, how many features each "
        "choice would give with the other filters applied.",
    )
    ordering = VersionAwareOrderingFilter(
        version_field="release_version_key",
        text_fields=["title", "area"],
        fields=(
            ("release", "release"),
            ("title", "title"),
            ("area__name", "area"),
            ("position", "position"),
        ),
        help_text="release, title, area or position; prefix with - to reverse. "
        "Default: newest release first, then post order.",
    )

    class Meta:
        model = Feature
        fields = []

    def filter_has_missing_links(self, queryset, name, value):
        return queryset if value is None else queryset.with_missing_links(value)

    def filter_facets(self, queryset, name, value):
        return queryset  # counts beside the list (feature_facets), not a filter

    def filter_promoted(self, queryset, name, value):
        return queryset if value is None else queryset.promoted(value)


class LinkFilterSet(CatalogFilterSet):
    release = VersionListFilter(
        field_name="feature__release_version_key",
        help_text="Links of this release's features; several comma-separated or repeated.",
    )
    kind = ChoiceListFilter(
        allowed=LinkKind.values, help_text="Link kind, or several comma-separated."
    )
    is_missing = StrictBooleanFilter(
        method="filter_is_missing", help_text="true: links still to be filled in; false: the rest."
    )
    area = ChoiceListFilter(
        field_name="feature__area__slug",
        allowed=area_slugs,
        help_text="Area slug of the link's feature, or several comma-separated.",
    )
    link_status = ChoiceListFilter(
        field_name="status",
        allowed=LinkStatus.values,
        help_text="What check_links last found: unchecked, ok, redirected (permanently), broken "
        "or unreachable (each only after two failed checks a day apart), or several "
        "comma-separated: link_status=broken,unreachable.",
    )
    updated_since = updated_since_filter()

    class Meta:
        model = Link
        fields = []

    def filter_is_missing(self, queryset, name, value):
        if value is None:
            return queryset
        return queryset.missing() if value else queryset.present()


class AreaFilterSet(CatalogFilterSet):
    search = SearchFilter(
        search_fields=["name", "slug", "aliases__name"],
        help_text="Words that must all appear in the area's name or one of its aliases.",
    )

    class Meta:
        model = Area
        fields = []


def stage_filter(help_text):
    """The stability filter of tracks: their stage as the FilterSet annotated it."""
    return ChoiceListFilter(
        field_name="stage",
        allowed=STABILITY_VALUES,
        translate={NO_STABILITY: ""},
        help_text=help_text + STABILITY_HELP,
    )


class StagesAsOfFilterSet(CatalogFilterSet):
    """
    Tracks with their stage as of the version the parameter ``AS_OF`` names (or their current
    stage without it): the stages are annotated before the other filters, which read them.
    """

    AS_OF = None

    class Meta:
        model = Track
        fields = []

    def filter_queryset(self, queryset):
        queryset = queryset.for_api(as_of=self.form.cleaned_data.get(self.AS_OF))
        return super().filter_queryset(queryset)

    def as_of_first(self, queryset, name, value):
        return queryset  # applied in filter_queryset, before the other filters


def track_search():
    """A track's search, as the track list and the state declare it."""
    return SearchFilter(
        search_fields=["search_text", "features__search_text"],
        folded=True,
        help_text="Words that must all appear in the name or description, or in the title or "
        "summary of one of its published features; other forms of a word match too "
        "(deprecated finds deprecation). " + FOLDING_HELP,
    )


class TrackFilterSet(StagesAsOfFilterSet):
    AS_OF = "as_of"

    as_of = VersionFilter(
        method="as_of_first",
        help_text="Stages as of this version: only appearances up to it count.",
    )
    search = track_search()
    area = ChoiceListFilter(
        field_name="area__slug", allowed=area_slugs, help_text="Area slug, or several."
    )
    stability = stage_filter("The current stage (or as of `as_of`). ")
    promoted_in = VersionFilter(
        method="filter_promoted_in", help_text="Tracks whose stage rose in this release."
    )
    first_release = VersionListFilter(
        method="filter_first_release",
        help_text="Tracks that first appeared in this release, e.g. 2.0; several "
        "comma-separated or repeated.",
    )

    def filter_promoted_in(self, queryset, name, value):
        return queryset if not value else queryset.promoted_in(value)

    def filter_first_release(self, queryset, name, value):
        # Compared as versions (2.0.0 is 2.0): the key of the track's oldest public appearance.
        if not value:
            return queryset
        first = Feature.objects.published().filter(track=OuterRef("pk")).oldest_first()
        keys = [versions.Version.parse(version).key for version in value]
        first_key = Subquery(first.values("release_version_key")[:1])
        queryset = queryset.alias(first_release_key=first_key)
        return queryset.filter(**exact_or_in("first_release_key", keys))


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


@extend_schema_field(OpenApiTypes.STR)
class PublishedVersionFilter(VersionFilter):
    field_class = PublishedVersionField


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


@extend_schema_field(OpenApiTypes.INT)
class WholeNumberFilter(Declared, django_filters.Filter):
    field_class = WholeNumberField


class StateFilterSet(StagesAsOfFilterSet):
    """/api/state/: every track's stage as of a version, narrowed by area and stage."""

    AS_OF = "version"

    version = PublishedVersionFilter(
        method="as_of_first",
        required=True,
        error_messages={"required": "Required."},
        help_text="The version: each track's stage as of it (its latest appearance at or "
        "before it), e.g. 1.8. A published release's.",
    )
    area = ChoiceListFilter(
        field_name="area__slug", allowed=area_slugs, help_text="Area slug, or several."
    )
    stability = stage_filter("The stage as of `version`. ")
    # "Is torch.fft stable as of 1.9?" is one row, not a page of every track.
    search = track_search()
    track = TrackFilter(field_name="slug", help_text="A track's slug (see /api/tracks/).")


class ReleaseStatsFilterSet(CatalogFilterSet):
    min_version = VersionFilter(
        lookup="gte", help_text="Releases at or after this version (1.10 > 1.9)."
    )
    max_version = VersionFilter(lookup="lte", help_text="Releases at or before this version.")

    class Meta:
        model = Release
        fields = []


class GraduationFilterSet(CatalogFilterSet):
    area = ChoiceListFilter(
        field_name="area__slug", allowed=area_slugs, help_text="Area slug, or several."
    )
    stability = ChoiceListFilter(
        field_name="stage",
        allowed=STABILITY_VALUES,
        translate={NO_STABILITY: ""},
        help_text="The current stage. " + STABILITY_HELP,
    )
    stuck_for = WholeNumberFilter(
        method="filter_stuck_for",
        low=1,
        high=100,
        help_text="Only tracks at prototype or beta whose stage has held for this many "
        "releases or more, up to the newest (1 to 100).",
    )

    class Meta:
        model = Track
        fields = []

    def filter_stuck_for(self, queryset, name, value):
        return queryset.filter(pk__in=stuck_track_ids(value))


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
        cleaned = super().clean()
        start, end = cleaned.get("from"), cleaned.get("to")
        if start and end and versions.Version.parse(end) <= versions.Version.parse(start):
            self.add_error("to", f"Must be a later version than from ({start}); got {end}.")
        return cleaned


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


# --- backend ---------------------------------------------------------------------------------


def reject_bad_query(query_params, allowed, form_errors=None):
    """One 400 naming every unknown query parameter and every malformed value."""
    message = (
        f"Unknown query parameter. Allowed: {', '.join(sorted(allowed))}."
        if allowed
        else "Unknown query parameter: this address takes none."
    )
    errors = {name: [message] for name in sorted(set(query_params) - set(allowed))}
    if errors or form_errors:
        raise ValidationError({**(form_errors or {}), **errors})


class StrictFilterBackend(DjangoFilterBackend):
    """django-filter, plus a 400 for any query parameter the endpoint does not know."""

    ALWAYS_ALLOWED = {"format"}

    def allowed_parameters(self, request, queryset, view):
        allowed = set(self.ALWAYS_ALLOWED)
        if getattr(view, "action", None) == "list":
            filterset_class = self.get_filterset_class(view, queryset)
            if filterset_class is not None:
                allowed |= set(filterset_class.base_filters)
            paginator = getattr(view, "paginator", None)
            allowed |= set(getattr(paginator, "query_parameters", ()))
        return allowed

    def filter_queryset(self, request, queryset, view):
        allowed = self.allowed_parameters(request, queryset, view)
        filterset = None
        if getattr(view, "action", None) == "list":
            filterset = self.get_filterset(request, queryset, view)
        if filterset is None:
            reject_bad_query(request.query_params, allowed)
            return queryset
        with memory.letting_go(filterset):
            errors = None if filterset.is_valid() else filterset.errors
            reject_bad_query(request.query_params, allowed, errors)
            return filterset.qs


def filtersets():
    """Every FilterSet of the catalog."""
    found, pending = [], [CatalogFilterSet]
    while pending:
        found.extend(subclasses := pending.pop().__subclasses__())
        pending.extend(subclasses)
    return found


# The parameters that take several values (releases.api.params.problems lets them repeat):
# those whose field reads them joined.
MULTI_VALUED = frozenset(
    name
    for filterset in filtersets()
    for name, filter_ in filterset.base_filters.items()
    if issubclass(filter_.field_class.widget, JoinedInput)
)

# Parameters that shape the answer (its page, form, order and facets), not which items it
# holds: neither a facet nor a list's count depends on them.
PRESENTATION = frozenset({"facets", "ordering", "page", "page_size", "format"})


def feature_facets(params, wanted):
    """
    For each facet in ``wanted``: how many published features each of its values would give
    with every other filter of ``params`` applied (its own left out, as a faceted search does).
    One grouped query per facet, whatever the catalog's size.
    """
    result = {}
    for name in wanted:
        others = params.copy()
        for key in {name, *PRESENTATION}:
            others.pop(key, None)
        filterset = FeatureFilterSet(others, queryset=Feature.objects.for_api())
        with memory.letting_go(filterset):
            features = filterset.qs.order_by()
        if name == "release":
            rows = features.values_list("release__version", "release_version_key").annotate(
                total=Count("pk")
            )
            ordered = sorted(rows, key=lambda row: -row[1])
            result[name] = {version: total for version, _, total in ordered}
        elif name == "stability":
            counts = dict(features.values_list("stability").annotate(total=Count("pk")))
            result[name] = {stage: counts.get(stage, 0) for stage in Stability.values}
            if counts.get(""):
                result[name][NO_STABILITY] = counts[""]
        else:
            rows = features.values_list(FACET_FIELDS[name]).annotate(total=Count("pk"))
            result[name] = dict(sorted(rows))
    return result
