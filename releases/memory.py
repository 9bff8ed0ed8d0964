"""
The memory work, in one place: what the catalog does so that what a request builds is freed
with its response rather than by the garbage collector, and so that a worker's collections
stay short. The measurements behind each are in bench/README.md ("The garbage collector",
"CSV memory", and the worker's freeze under "Reads during an import"); tests/test_serving.py asserts
that a feature list, and its 400, leave nothing of DRF's, django-filter's, the queries' or
ours for the collector, and that a warmed-up worker freezes what it keeps.
"""

import gc
import itertools
from contextlib import contextmanager

from django.core.signals import request_finished

from releases import adapters

# Requests after which a worker's live objects are frozen (settle).
SETTLE_AFTER = (100, 1_000, 10_000)
_finished = itertools.count(1)


def let_go(response):
    """
    Break the reference cycles DRF leaves once a response is rendered: a viewset keeps its
    handlers as methods bound to itself, the response's renderer context holds the response,
    and the view, the DRF request's parser context and the renderer context refer to one
    another. Nothing reads them after rendering.
    """
    context = getattr(response, "renderer_context", None)
    if not context or not response.is_rendered:
        return
    context.pop("response", None)
    if "view" in context:
        adapters.break_view_cycles(context["view"])
    parser_context = getattr(context.get("request"), "parser_context", None)
    if parser_context:
        parser_context.clear()


@contextmanager
def letting_go(filterset):
    """
    ``filterset`` for the block, its cycles broken after it (once its queryset is built, or
    its errors raised): django-filter gives each filter its FilterSet as ``parent`` and a
    method bound to the filter, and the form and its bound fields refer to one another.
    """
    try:
        yield filterset
    finally:
        adapters.break_filterset_cycles(filterset)


def without_traceback(error):
    """``error`` without its traceback: Django's ValidationError lists itself, a cycle that
    would hold the request's frames until the collector came."""
    error.__traceback__ = None
    return error


def forget_prefetched(objects):
    """
    Drop what was prefetched for ``objects``: prefetching links objects both ways (an area holds
    its aliases, each alias its area), so a chunk of an export would otherwise wait for the
    collector.
    """
    adapters.clear_prefetched(objects)


def settle(**kwargs):
    """
    After a worker's 100th, 1,000th and 10,000th request, collect, then freeze what it keeps
    (the app, Django's and DRF's lazily built caches) out of the collector's sight, so that a
    full collection scans only what requests leave. Collecting first keeps the garbage of the
    requests so far out of the frozen set, where it would stay for good.
    """
    served = next(_finished)
    if served in SETTLE_AFTER:
        gc.collect()
        gc.freeze()
    if served >= SETTLE_AFTER[-1]:
        request_finished.disconnect(settle)


def settle_after_warming_up():
    """Freeze a WSGI worker's live objects as it warms up (config/wsgi.py)."""
    request_finished.connect(settle)
