"""
A faceted search's counts: how many published features each choice of a facet would give,
with the other filters of the query applied.
"""

from django.db.models import Count

from releases import memory
from releases.classification import NO_STAGE
from releases.models import Feature, Stability
from releases.queries.filtersets import FACET_FIELDS, FeatureFilterSet
from releases.queries.pagination import PRESENTATION


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
                result[name][NO_STAGE] = counts[""]
        else:
            rows = features.values_list(FACET_FIELDS[name]).annotate(total=Count("pk"))
            result[name] = dict(sorted(rows))
    return result
