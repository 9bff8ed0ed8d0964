"""
When the database cannot be reached: an honest 503 with ``Retry-After``, in the surface's own
format (the API's JSON error, the catalog's page, the admin's plain page), instead of a bare
"Server Error (500)". Nothing to restart: Django opens a new connection for the next request,
so answers come back by themselves when the database does.

Django's ``handler500`` is the seam: it runs while the exception is being handled, so it can
tell a database that is away (``OperationalError``, ``InterfaceError``: refused, reset, locked
past its timeout, read-only, out of disk) from a bug, which stays a 500.
"""

import logging
import sys

from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views.defaults import server_error as django_server_error

from releases.outage import database_away, one_line
from releases.surfaces import answers_as_api

logger = logging.getLogger("releases.unavailable")

RETRY_AFTER_SECONDS = 30
DETAIL = "The catalog's database cannot be reached just now; try again in a little while."
PLAIN_PAGE = (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Unavailable for a '
    f"moment</title></head><body><h1>Unavailable for a moment</h1><p>{DETAIL}</p></body></html>"
)


def unavailable(request):
    """The 503 for ``request``: JSON under the API, the catalog's page elsewhere."""
    if answers_as_api(request.path):
        response = JsonResponse({"detail": DETAIL}, status=503)
    else:
        # No template tag here reads the database: the page can be drawn without it.
        try:
            page = render_to_string("503.html", {"detail": DETAIL})
        except Exception:  # noqa: BLE001 - the page must not fail too: a plain one instead
            logger.exception("the 503 page could not be drawn; a plain one answered")
            page = PLAIN_PAGE
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


def server_error(request, *args, **kwargs):
    """handler500: a database that is away is a 503; anything else a 500, JSON under the API
    (as its other errors), Django's page elsewhere."""
    error = sys.exc_info()[1]
    if database_away(error):
        logger.warning(
            "the database is unavailable (%s: %s): %s %s answered 503",
            type(error).__name__,
            one_line(error),
            request.method,
            request.path,
        )
        return unavailable(request)
    if answers_as_api(request.path):  # the API's errors are JSON, a 500 too
        return JsonResponse({"detail": "Server error: the failure is logged."}, status=500)
    return django_server_error(request, *args, **kwargs)


class AlreadyTold(logging.Filter):
    """
    A filter for ``django.request``: Django logs every 5xx with its traceback; a database that
    is away is told once a request by ``server_error``, in one line, so its 503 is not logged
    again with a traceback per request.
    """

    def filter(self, record):
        error = record.exc_info[1] if record.exc_info else None
        return not (getattr(record, "status_code", None) == 503 and database_away(error))
