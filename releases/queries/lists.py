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
    StateAtFilterSet,
    StateFilterSet,
    TrackFilterSet,
)
from releases.queries.reading import read_list


class Listing(NamedTuple):
    filterset: type
    queryset: object  # a callable: the public rows, before the filters

    def read(self, query, *, queryset=None, **kwargs):
        """
        The page of this list that ``query`` asks for (read_list's keyword arguments), from
        ``queryset`` where the caller has narrowed the public rows already.
        """
        rows = self.queryset() if queryset is None else queryset
        return read_list(query, self.filterset, rows, **kwargs)


RELEASES = Listing(ReleaseFilterSet, Release.objects.for_api)
FEATURES = Listing(FeatureFilterSet, Feature.objects.for_api)
# The tracks' FilterSets apply for_api() themselves, with the version their stages are as of.
TRACKS = Listing(TrackFilterSet, Track.objects.all)
STATE = Listing(StateFilterSet, Track.objects.all)
# The state page's: its version is in the path, so it gives the list with its stages.
STATE_AT = Listing(StateAtFilterSet, Track.objects.for_api)
