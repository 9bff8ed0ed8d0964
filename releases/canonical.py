"""
One URL per thing: a release named by another spelling of its version (``2.6.0``, ``v2.6``,
``2.06``) is permanently redirected to its canonical URL, on the pages and in the API alike,
with the query kept. Versions that name no public release are the same 404 everywhere.
"""

from django.http import HttpResponsePermanentRedirect
from django.urls import reverse


def redirect_to_canonical(request, release, spelled, url_name, **kwargs):
    """A 301 to ``url_name`` with the release's own version, or None if already spelled so."""
    if spelled == release.version:
        return None
    url = reverse(url_name, kwargs={**kwargs, "version": release.version})
    query = request.META.get("QUERY_STRING", "")
    return HttpResponsePermanentRedirect(f"{url}?{query}" if query else url)
