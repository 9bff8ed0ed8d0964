"""
The site's 400 and 404 handlers (``handler400``, ``handler404``): JSON where the API's own
errors are (releases.surfaces.answers_as_api), the catalog's pages elsewhere.
"""

from django.http import JsonResponse
from django.views.defaults import bad_request as django_bad_request
from django.views.defaults import page_not_found

from releases.surfaces import answers_as_api


def public_error(default):
    """An error handler: JSON where the API's own errors are (answers_as_api); else Django's."""

    def handler(request, exception=None, **kwargs):
        if answers_as_api(request.path):
            detail = "Not found." if default is page_not_found else "Bad request."
            status = 404 if default is page_not_found else 400
            return JsonResponse({"detail": detail}, status=status)
        return default(request, exception)

    return handler


not_found = public_error(page_not_found)
bad_request = public_error(django_bad_request)
