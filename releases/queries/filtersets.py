"""
Every list's parameters, declared once: one FilterSet per list of the API and the pages (the
upgrade notes' in releases.queries.upgrades). A parameter's declaration is its filter; its
effect lives in its filter (or the FilterSet method it names).
"""

from django.db.models import Exists, OuterRef, Subquery

from releases import versions
from releases.classification import NO_STAGE, ReleaseStatus
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
from releases.queries.filters import (
    AsOfFilter,
    CatalogFilterSet,
    ChoiceListFilter,
    ISODateFilter,
    PublishedAsOfFilter,
    SearchFilter,
    StatusFilter,
    StrictBooleanFilter,
    SupportFilter,
    TrackFilter,
    VersionAwareOrderingFilter,
    VersionFilter,
    VersionListFilter,
    WholeNumberFilter,
    exact_or_in,
    updated_since_filter,
)
from releases.stats import stuck_track_ids

STABILITY_VALUES = [*Stability.values, NO_STAGE]
STABILITY_HELP = (
    "One of stable, beta, prototype, unstable (PyTorch's API-Unstable, from 2.8 on), none (no "
    "stability given), or several comma-separated: stability=beta,prototype."
)


RELEASE_STATUSES = ReleaseStatus.values


def area_slugs():
    return Area.objects.published().order_by("slug").values_list("slug", flat=True)


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
    python = SupportFilter(kind="python", help_text="Releases with builds for this Python: 3.13.")
    cuda = SupportFilter(kind="cuda", help_text="Releases with builds for this CUDA: 12.8.")
    rocm = SupportFilter(kind="rocm", help_text="Releases with builds for this ROCm: 6.4.")
    os = SupportFilter(kind="os", help_text="Releases supported on this operating system.")
    cuda_arch = SupportFilter(
        kind="cuda_arch", help_text="Releases whose CUDA builds include this architecture: 9.0."
    )
    status = StatusFilter(
        allowed=RELEASE_STATUSES,
        help_text="planned (known from the schedule, not out yet), latest (the newest minor "
        "out) or superseded; several comma-separated. Without it, the releases that are out.",
    )

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
        allowed=STABILITY_VALUES, translate={NO_STAGE: ""}, help_text=STABILITY_HELP
    )
    area = ChoiceListFilter(
        field_name="area__slug",
        allowed=area_slugs,
        help_text="Area slug, or several comma-separated (see /api/areas/).",
    )
    kind = ChoiceListFilter(
        allowed=FeatureKind.values,
        left_out=[FeatureKind.NOTICE],
        help_text="feature, deprecation (an announcement that a capability is deprecated or "
        "removed) or notice (a release's non-feature update: a cadence, a new default CUDA); "
        "several comma-separated. Default: feature,deprecation, since a notice is no feature.",
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
        translate={NO_STAGE: ""},
        help_text=help_text + STABILITY_HELP,
    )


class StagesAsOfFilterSet(CatalogFilterSet):
    """Tracks with their stages as of a version: its first filter is an AsOfFilter."""

    class Meta:
        model = Track
        fields = []


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
    as_of = AsOfFilter(
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
    seen_since = VersionFilter(
        method="filter_seen_since",
        help_text="Tracks that appear in this release or a later one, e.g. 2.8 (the matrix "
        "shows its releases from it).",
    )

    def filter_promoted_in(self, queryset, name, value):
        return queryset if not value else queryset.promoted_in(value)

    def filter_seen_since(self, queryset, name, value):
        if not value:
            return queryset
        later = Feature.objects.published().filter(
            track=OuterRef("pk"), release_version_key__gte=versions.Version.parse(value).key
        )
        return queryset.filter(Exists(later))

    def filter_first_release(self, queryset, name, value):
        # Compared as versions (2.0.0 is 2.0): the key of the track's oldest public appearance.
        if not value:
            return queryset
        first = Feature.objects.published().filter(track=OuterRef("pk")).oldest_first()
        keys = [versions.Version.parse(version).key for version in value]
        first_key = Subquery(first.values("release_version_key")[:1])
        queryset = queryset.alias(first_release_key=first_key)
        return queryset.filter(**exact_or_in("first_release_key", keys))


class StateFilterSet(StagesAsOfFilterSet):
    """/api/state/: every track's stage as of a version, narrowed by area and stage."""

    version = PublishedAsOfFilter(
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


class StateAtFilterSet(StateFilterSet):
    """The state page's: its version is in the path, and its list comes with its stages."""

    version = None


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
        translate={NO_STAGE: ""},
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
