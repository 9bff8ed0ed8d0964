"""
What the benchmark measures the product against, in the benchmark's settings only:

- the baseline: the same page of features as /api/features/, from the same .values() rows,
  by hand with JsonResponse: no framework, no validation, caching headers or throttling, and
  a count every time. It understands only page, release and stability;
- the ceiling: a JsonResponse with no query at all, under the same stack (gunicorn, every
  middleware);
- /api/check/ and /api/install/ by hand (issue 40): the same answers from the same query
  functions, read with the same forms, through a plain view and JsonResponse: no framework's
  views, renderers, strict-parameter checks, caching headers or throttling.
"""

from django.http import JsonResponse

from releases.api.serializers import feature_items, feature_values
from releases.models import Feature
from releases.queries.check import CheckForm, check
from releases.queries.install import InstallForm, NoWheel, install
from releases.versions import Version

PAGE_SIZE = 50


def baseline_features(request):
    features = Feature.objects.for_api()
    if "release" in request.GET:
        features = features.filter(release_version_key=Version.parse(request.GET["release"]).key)
    if "stability" in request.GET:
        features = features.filter(stability=request.GET["stability"])
    start = (int(request.GET.get("page", "1")) - 1) * PAGE_SIZE
    rows = list(feature_values(features)[start : start + PAGE_SIZE])
    results = feature_items(rows)
    return JsonResponse({"count": features.count(), "results": results})


def baseline_check(request):
    form = CheckForm(request.GET)
    form.is_valid()
    return JsonResponse(check(form.cleaned_data))


def baseline_install(request):
    form = InstallForm(request.GET)
    if not form.is_valid():
        return JsonResponse(form.errors, status=400)
    try:
        return JsonResponse(install(form.cleaned_data))
    except NoWheel as missing:
        return JsonResponse({**missing.errors, "nearest": missing.nearest}, status=400)


def ceiling(request):
    """The ceiling: what a request costs this stack with nothing behind it (no SQL, no cache)."""
    return JsonResponse({"count": 0, "results": []})
