"""
What every page shares: its query read as the API reads one (the query layer), checked,
and a 400 page naming what it refuses; links to the API's URL for the same data.
"""

import functools
from urllib.parse import urlencode

from django.shortcuts import render
from django.urls import reverse
from rest_framework.exceptions import ValidationError

from releases.classification import NO_STAGE
from releases.models import (
    Stability,
)
from releases.queries.params import reject_bad_query, without_empty

STAGES = Stability.choices


def api_url(name, query=None, **kwargs):
    url = reverse(f"releases:{name}", kwargs=kwargs or None)
    return f"{url}?{urlencode(query, doseq=True)}" if query else url


def checks_query(view):
    """
    The page ``view``, with its query as its form meant it (empty fields left out) and checked
    as the API checks one: what the API's checks refuse (a ValidationError naming each
    parameter) is the 400 page naming it.
    """

    @functools.wraps(view)
    def page(request, *args, **kwargs):
        request.GET = without_empty(request.GET)
        try:
            return view(request, *args, **kwargs)
        except ValidationError as error:
            return render(request, "400.html", {"problems": error.detail}, status=400)

    return page


def takes_no_query(request):
    """A 400 naming every parameter of a page that takes none, as the API's details do."""
    reject_bad_query(request.GET, set())


def other_pages(request):
    """The page's query without ``page``: what the links to the other pages add theirs to."""
    query = request.GET.copy()
    query.pop("page", None)
    return query


STAGE_COLUMNS = [*STAGES, (NO_STAGE, "No stage")]


def tally(counts):
    """(value, label, count) of each of STAGE_COLUMNS, from ``counts``: {stability: how many},
    "" for no stage (a Counter of features' or tracks' stages, or a count read in SQL)."""
    return [
        (value, label, counts.get("" if value == NO_STAGE else value, 0))
        for value, label in STAGE_COLUMNS
    ]
