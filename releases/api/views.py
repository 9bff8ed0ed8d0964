"""
The public, read-only API.

Views stay thin: QuerySets say what to read, FilterSets how to narrow it (and which
parameters there are: releases.queries), the paginator how to page and count it.
"""

from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework import mixins, routers, viewsets
from rest_framework.exceptions import NotFound
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from releases import canonical, public_log, stats, versions
from releases.api.exports import CSVRenderer, built, csv_response, serialized
from releases.api.schema import form_parameters
from releases.api.serializers import (
    AreaSerializer,
    ChangeLogSerializer,
    CompareSerializer,
    FeatureSerializer,
    LinkListSerializer,
    ReleaseDetailSerializer,
    ReleaseSerializer,
    TrackSerializer,
    feature_items,
    feature_values,
)
from releases.api.stats import GraduationSerializer, ReleaseStatsSerializer, StateSerializer
from releases.api.upgrades import UpgradeNoteSerializer
from releases.models import Area, Link, Release, Track
from releases.queries import reading
from releases.queries.facets import feature_facets
from releases.queries.fields import values_of
from releases.queries.filtersets import (
    AreaFilterSet,
    GraduationFilterSet,
    LinkFilterSet,
    ReleaseStatsFilterSet,
)
from releases.queries.forms import ChangesForm, CompareForm
from releases.queries.pagination import Rows
from releases.queries.params import reject_bad_query
from releases.tracks import upgrade_between


class CSVListMixin:
    """``format=csv`` on the list: every matching row, streamed (releases.api.exports)."""

    csv_name = ""

    def get_renderers(self):
        renderers = super().get_renderers()
        if self.action == "list":
            renderers.append(CSVRenderer())
        return renderers

    def csv_items(self, queryset):
        """Every item of the filtered list, as the API shows them."""
        return serialized(queryset, self.get_serializer_class(), self.get_serializer_context())

    def list(self, request, *args, **kwargs):
        if self.wants_csv(request):
            return self.csv_list()
        return super().list(request, *args, **kwargs)

    @staticmethod
    def wants_csv(request):
        return request.accepted_renderer.format == "csv"

    def csv_list(self):
        # Every row, so page and page_size do not apply; a malformed one is still a 400.
        if self.paginator is not None:
            self.paginator.validate(self.request)
        items = self.csv_items(self.filter_queryset(self.get_queryset()))
        columns = list(self.get_serializer_class()().fields)
        return csv_response(items, columns, self.csv_name)

    def finalize_response(self, request, response, *args, **kwargs):
        # Errors stay JSON, whatever the format asked for: a 400 names its parameter.
        if response.status_code >= 400 and getattr(request, "accepted_renderer", None):
            if request.accepted_renderer.format == "csv":
                request.accepted_renderer = JSONRenderer()
                request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)


class ReleaseViewSet(CSVListMixin, viewsets.ReadOnlyModelViewSet):
    """Published releases, newest version first; a release's page lists its features."""

    csv_name = "releases"

    lookup_field = "version"
    lookup_value_regex = r"[^/]+"

    # The list's; a release's own item takes no filter (a planned release has one too).
    filterset_class = reading.RELEASES.filterset

    def get_queryset(self):
        if self.action == "retrieve":
            return Release.objects.for_api_detail().with_compatibility().with_wheels()
        return reading.RELEASES.queryset().with_compatibility()

    def get_serializer_class(self):
        return ReleaseDetailSerializer if self.action == "retrieve" else ReleaseSerializer

    @extend_schema(
        responses={
            200: ReleaseDetailSerializer,
            301: OpenApiResponse(
                description="Another spelling of a release's version (2.6.0, v2.6): its own "
                "URL is in Location."
            ),
        }
    )
    def retrieve(self, request, *args, version, **kwargs):
        """A release by any spelling of its version: another spelling is a 301 to its own."""
        try:
            # Through the filter backend, which refuses parameters the detail does not take.
            release = self.filter_queryset(self.get_queryset()).of_version(version).first()
        except versions.InvalidVersion:
            release = None
        if release is None:
            raise NotFound()  # the same answer as for any unknown path: nothing echoed
        moved = canonical.redirect_to_canonical(
            request, release, version, "releases:release-detail"
        )
        return moved or Response(self.get_serializer(release).data)


class FeatureViewSet(CSVListMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """Features of published releases, newest release first, in the order of their post."""

    csv_name = "features"

    def csv_items(self, queryset):
        # The list's own items (values rows, a links query a chunk): 100,000 in seconds.
        return built(feature_values(queryset), feature_items)

    queryset = reading.FEATURES.queryset()
    serializer_class = FeatureSerializer  # the contract; items are built from values rows
    filterset_class = reading.FEATURES.filterset

    def list(self, request, *args, **kwargs):
        if self.wants_csv(request):
            return self.csv_list()
        features = self.filter_queryset(self.get_queryset())
        rows = self.paginate_queryset(Rows(features, build=feature_values))
        response = self.get_paginated_response(feature_items(rows))
        wanted = values_of(request.query_params, "facets")
        if wanted:
            response.data["facets"] = feature_facets(request.query_params, dict.fromkeys(wanted))
        return response


class LinkViewSet(CSVListMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """Links of published features; ``is_missing=true`` lists those still to be filled in."""

    csv_name = "links"

    queryset = Link.objects.for_api()
    serializer_class = LinkListSerializer
    filterset_class = LinkFilterSet


class UpgradeViewSet(CSVListMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """
    Upgrade notes: what may need a change in user code between two versions (``from``,
    ``to``), breaking changes first, then removals, then deprecations, by release and area.
    """

    csv_name = "upgrade-notes"
    serializer_class = UpgradeNoteSerializer
    filterset_class = reading.UPGRADES.filterset

    def get_queryset(self):
        return reading.UPGRADES.queryset()


class AreaViewSet(CSVListMixin, viewsets.ReadOnlyModelViewSet):
    """The vocabulary of areas, with the number of published features in each."""

    csv_name = "areas"

    lookup_field = "slug"
    queryset = Area.objects.for_api().prefetch_related("aliases")
    serializer_class = AreaSerializer
    filterset_class = AreaFilterSet


class TrackViewSet(CSVListMixin, viewsets.ReadOnlyModelViewSet):
    """
    Capabilities across releases, each with its stage (the stability of its latest
    appearance) and its appearances in version order.
    """

    lookup_field = "slug"
    serializer_class = TrackSerializer
    filterset_class = reading.TRACKS.filterset
    csv_name = "tracks"

    def get_queryset(self):
        if self.action == "retrieve":
            return Track.objects.for_api()
        return reading.TRACKS.queryset()


class StateViewSet(CSVListMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """
    Every track's stage as of ``version`` (required): the stability of its latest appearance
    at or before it, the release that set it, and since when the stage has held. Tracks first
    seen after ``version`` are left out.
    """

    csv_name = "state"
    serializer_class = StateSerializer
    filterset_class = reading.STATE.filterset
    queryset = reading.STATE.queryset()


class ReleaseStatsViewSet(CSVListMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """Each published release's features by stage, oldest first: the home page's chart."""

    csv_name = "release-stats"
    serializer_class = ReleaseStatsSerializer
    filterset_class = ReleaseStatsFilterSet

    def get_queryset(self):
        return stats.release_stats()


class GraduationViewSet(CSVListMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """
    Each track's road to stable: how many releases it took from its first appearance to its
    first stable one, and how many its current stage has held (``stuck_for`` lists those
    kept at prototype or beta for that many releases or more). The /graduation/ page's data.
    """

    csv_name = "graduation"
    serializer_class = GraduationSerializer
    filterset_class = GraduationFilterSet

    def get_queryset(self):
        return Track.objects.for_api()

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "positions": stats.release_positions()}


class CompareView(APIView):
    """What upgrading from one version to another brings: tracks added, promoted, demoted."""

    @extend_schema(parameters=form_parameters(CompareForm), responses=CompareSerializer)
    def get(self, request):
        form = CompareForm(request.query_params)
        errors = None if form.is_valid() else form.errors
        reject_bad_query(request.query_params, {*form.fields, "format"}, errors)
        start, end = form.cleaned_data["from"], form.cleaned_data["to"]
        changes = upgrade_between(start, end)
        return Response({"from": str(start), "to": str(end), **CompareSerializer(changes).data})


class ChangeLogView(APIView):
    """
    What was created, updated and deleted, oldest first: a mirror replays it to stay equal to
    the catalog, and resumes from the cursor of the last page it read.
    """

    @extend_schema(parameters=form_parameters(ChangesForm), responses=ChangeLogSerializer)
    def get(self, request):
        form = ChangesForm(request.query_params)
        errors = None if form.is_valid() else form.errors
        reject_bad_query(request.query_params, {*form.fields, "format"}, errors)
        data = form.cleaned_data
        entries, more = public_log.entries_after(data["since"], data["cursor"], data["page_size"])
        last = entries[-1].pk if entries else data["cursor"]
        cursor = public_log.encode_cursor(last) if last is not None else None
        following = None
        if more:
            query = {"cursor": cursor}
            if "page_size" in request.query_params:
                query["page_size"] = data["page_size"]
            following = request.build_absolute_uri(f"{request.path}?{urlencode(query)}")
        return Response(
            ChangeLogSerializer(
                {
                    "next": following,
                    "cursor": cursor,
                    "results": [public_log.as_item(entry) for entry in entries],
                }
            ).data
        )


class RootView(routers.APIRootView):
    """Every endpoint of the API, and the feeds."""

    def get(self, request, *args, **kwargs):
        reject_bad_query(request.query_params, {"format"})
        response = super().get(request, *args, **kwargs)
        absolute = request.build_absolute_uri
        response.data.update(
            {
                "compare": absolute(reverse("releases:compare")),
                "changes": absolute(reverse("releases:changes")),
                "schema": absolute(reverse("releases:schema")),
                "docs": absolute(reverse("releases:docs")),
                "feeds": {
                    "releases": absolute(reverse("feed-releases")),
                    "tracks": absolute("/feeds/tracks/") + "<slug>/",
                },
            }
        )
        return response


class JSONErrorsMixin:
    """Errors as JSON, as the rest of the API gives them, whatever renders the page."""

    def finalize_response(self, request, response, *args, **kwargs):
        if response.status_code >= 400:
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)


class SchemaView(JSONErrorsMixin, SpectacularAPIView):
    """The OpenAPI schema, as JSON (format=json) or YAML (the default)."""

    api_version = settings.SPECTACULAR_SETTINGS["VERSION"]  # never taken from the query

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        reject_bad_query(request.query_params, {"format"})
        return super().get(request, *args, **kwargs)


class DocsView(JSONErrorsMixin, SpectacularSwaggerView):
    """
    Swagger UI for the API. The API is read-only and anonymous, so its "try it out" requests
    need no CSRF token: without one, the page is the same for everyone and cacheable (a token
    in a cached page would hand one client's token to all). Nor does it sign in through
    OAuth pop-ups, so it keeps the site's own Cross-Origin-Opener-Policy, like every answer.
    """

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        reject_bad_query(request.query_params, set())
        response = super().get(request, *args, **kwargs)
        response.data["csrf_token"] = ""
        del response["Cross-Origin-Opener-Policy"]
        return response
