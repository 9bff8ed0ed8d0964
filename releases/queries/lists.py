"""
Each list the API and the pages both serve, declared once: its FilterSet and the queryset it
narrows (what is public). The API's viewsets take theirs from here; the pages read theirs with
``Listing.read`` (releases.queries.reading.read_list).
"""

from typing import NamedTuple

from releases.models import Feature, Release, Track
from releases.queries.filtersets import (
    FeatureFilterSet,
    ReleaseFilterSet,
    StateFilterSet,
    TrackFilterSet,
)
from releases.queries.reading import read_list


class Listing(NamedTuple):
    filterset: type
    queryset: object  # a callable: the public rows, before the filters

    def read(self, query, **kwargs):
        """The page of this list that ``query`` asks for (read_list's keyword arguments)."""
        return read_list(query, self.filterset, self.queryset(), **kwargs)


RELEASES = Listing(ReleaseFilterSet, Release.objects.for_api)
FEATURES = Listing(FeatureFilterSet, Feature.objects.for_api)
# The tracks' FilterSets apply for_api() themselves, with the version their stages are as of.
TRACKS = Listing(TrackFilterSet, Track.objects.all)
STATE = Listing(StateFilterSet, Track.objects.all)
