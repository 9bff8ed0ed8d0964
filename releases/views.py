"""
The public, read-only API.

Views stay thin: QuerySets say what to read, FilterSets how to narrow it.
"""

from rest_framework import mixins, viewsets

from .filters import AreaFilterSet, FeatureFilterSet, LinkFilterSet, ReleaseFilterSet
from .models import Area, Feature, Link, Release
from .serializers import (
    AreaSerializer,
    FeatureSerializer,
    LinkListSerializer,
    ReleaseDetailSerializer,
    ReleaseSerializer,
)


class ReleaseViewSet(viewsets.ReadOnlyModelViewSet):
    """Published releases, newest version first; a release's page lists its features."""

    lookup_field = "version"
    lookup_value_regex = r"[^/]+"
    filterset_class = ReleaseFilterSet

    def get_queryset(self):
        if self.action == "retrieve":
            return Release.objects.for_api_detail()
        return Release.objects.for_api()

    def get_serializer_class(self):
        return ReleaseDetailSerializer if self.action == "retrieve" else ReleaseSerializer


class FeatureViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """Features of published releases, newest release first, in the order of their post."""

    queryset = Feature.objects.for_api()
    serializer_class = FeatureSerializer
    filterset_class = FeatureFilterSet


class LinkViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """Links of published features; ``is_missing=true`` lists those still to be filled in."""

    queryset = Link.objects.for_api()
    serializer_class = LinkListSerializer
    filterset_class = LinkFilterSet


class AreaViewSet(viewsets.ReadOnlyModelViewSet):
    """The vocabulary of areas, with the number of published features in each."""

    lookup_field = "slug"
    queryset = Area.objects.for_api().prefetch_related("aliases")
    serializer_class = AreaSerializer
    filterset_class = AreaFilterSet
