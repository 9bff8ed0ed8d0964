"""
The kinds of filter the FilterSets declare (django-filter's, each with its field from
releases.queries.fields), and the FilterSet base every list's FilterSet derives from.
"""

import django_filters
from django import forms
from django.db.models import Case, Exists, IntegerField, OuterRef, Q, Value, When
from django.db.models.functions import Lower
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework.exceptions import ValidationError

from releases import adapters, memory, text, versions
from releases.managers import version_bound
from releases.models import Support, SupportKind, Wheel
from releases.models.compat import accelerator_variant
from releases.queries.fields import (
    APIPrefixField,
    BoundedDateTimeField,
    ChoiceListField,
    ISODateField,
    PlatformNameField,
    PlatformVersionField,
    PublishedVersionField,
    SearchField,
    StrictBooleanField,
    TrackField,
    VersionField,
    VersionListField,
    WholeNumberField,
    comma_list,
)
from releases.text import folded_words


class Declared:
    """
    A filter of this module: what it declares (its field, its help, its choices) is shared by
    the copies django-filter's FilterSet makes of it, one set a request (its constructor
    deep-copies every filter). Only what binds a copy to its FilterSet is its own: the
    FilterSet and model it is given, and the method it filters through, bound to the copy.
    A deep copy would walk the whole declaration, for every filter, on every request.
    """

    def __deepcopy__(self, memo):
        return adapters.shared_filter_copy(self)


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


class AsOfFilter(VersionFilter):
    """
    Tracks with their stages as of this version, or their current stages without it: the
    stages the list's other filters read. Applied even when not given, and declared first, so
    that it runs before them (a FilterSet applies its filters in the order it declares them).
    """

    always = True

    def filter(self, qs, value):
        return qs.for_api(as_of=value or None)


# What a published wheel can show a release was built for (SupportFilter.built).
BUILT_BY = ("os", "cuda", "rocm")


class SupportFilter(Declared, django_filters.CharFilter):
    """Releases that support this version of ``kind`` (a stable or an experimental build)."""

    field_class = PlatformVersionField

    def __init__(self, *args, kind, **kwargs):
        self.kind = kind
        if kind == "os":
            self.field_class = PlatformNameField
        super().__init__(*args, **kwargs)

    def filter(self, qs, value):
        if not value:
            return qs
        found = Exists(
            Support.objects.published().filter(
                release=OuterRef("pk"), kind=self.kind, version__iexact=value
            )
        )
        built = self.built(value)
        return qs.filter(found | Exists(built) if built is not None else found)

    def built(self, value):
        """
        The published wheels that show the release was built for ``value`` (an OS, a CUDA, a
        ROCm), or None where wheels tell nothing (Python, an architecture). An OS and an
        accelerator asked together must be one wheel's: CUDA 10.2 builds on Windows.
        """
        if self.kind not in BUILT_BY:
            return None
        asked = {self.kind: value, **self.parent.form.cleaned_data}
        wheels = Wheel.objects.published().filter(release=OuterRef("pk"))
        if asked.get(SupportKind.OS):
            wheels = wheels.filter(platform__startswith=f"{asked[SupportKind.OS].lower()}-")
        for kind in (SupportKind.CUDA, SupportKind.ROCM):
            if asked.get(kind) and (self.kind == kind or self.kind == SupportKind.OS):
                named = {accelerator_variant(kind, asked[kind])}
                if kind == SupportKind.ROCM:  # named in full where the install page did: 5.1.1
                    named.add(f"rocm{asked[kind]}")
                wheels = wheels.filter(variant__in=named)
        return wheels


class APIPrefixFilter(Declared, django_filters.CharFilter):
    """Upgrade notes naming an API that begins with the value (releases.managers.upgrades)."""

    field_class = APIPrefixField

    def filter(self, qs, value):
        return qs.naming(value) if value else qs


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

    def __init__(self, *args, allowed, translate=None, left_out=(), **kwargs):
        self.translate = translate or {}
        # Where the query names no choice: all but these (a notice is no feature). Left out
        # rather than chosen, so that the list keeps the index that gives its order.
        self.left_out = list(left_out)
        if self.left_out:  # so that it filters a query that does not name it too
            self.always = True
        super().__init__(*args, allowed=allowed, **kwargs)

    def filter(self, qs, value):
        if not value and self.left_out:
            return qs.exclude(**exact_or_in(self.field_name, self.left_out))
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


@extend_schema_field(OpenApiTypes.STR)
class PublishedVersionFilter(VersionFilter):
    field_class = PublishedVersionField


class PublishedAsOfFilter(AsOfFilter):
    field_class = PublishedVersionField


@extend_schema_field(OpenApiTypes.STR)
class StatusFilter(ChoiceListFilter):
    """
    Releases by status (planned, latest, superseded; the list annotates it). Applied when not
    given too: a list shows the releases that are out.
    """

    always = True

    def filter(self, qs, value):
        if not value:
            return qs.filter(planned=False)
        return qs.filter(**exact_or_in("status", value))


@extend_schema_field(OpenApiTypes.INT)
class WholeNumberFilter(Declared, django_filters.Filter):
    field_class = WholeNumberField


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
    form_base = StrictForm  # a FilterSet whose parameters are checked together gives its own

    def __init__(self, data=None, queryset=None, *, request=None, prefix=None):
        super().__init__(data, queryset, request=request, prefix=prefix)
        self.given = tuple(
            name
            for name, filter_ in self.filters.items()
            if name in self.data or filter_.extra.get("required") or getattr(filter_, "always", 0)
        )

    def get_form_class(self):
        key = (type(self), self.given)
        form_class = self._forms.get(key)
        if form_class is None:
            fields = {name: self.filters[name].field for name in self.given}
            form_class = type(f"{type(self).__name__}Form", (self.form_base,), fields)
            self._forms[key] = form_class
        return form_class
