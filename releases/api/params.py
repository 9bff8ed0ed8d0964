"""
The API's content negotiation: an unknown ``format`` is a 400 naming the formats there are.
The query rule itself is the query layer's (releases.queries.params).
"""

from rest_framework.exceptions import ValidationError
from rest_framework.negotiation import DefaultContentNegotiation


class StrictContentNegotiation(DefaultContentNegotiation):
    """An unknown ``format`` is a 400 naming the formats there are (DRF answers 404)."""

    def select_renderer(self, request, renderers, format_suffix=None):
        # What DRF would choose for a client that accepts anything and names no format (most
        # clients: curl, wrk, scripts), without parsing the header to find it out.
        if (
            not format_suffix
            and "format" not in request.query_params
            and request.META.get("HTTP_ACCEPT", "*/*") == "*/*"
        ):
            return renderers[0], renderers[0].media_type
        return super().select_renderer(request, renderers, format_suffix)

    def filter_renderers(self, renderers, format):
        chosen = [renderer for renderer in renderers if renderer.format == format]
        if not chosen:
            allowed = ", ".join(sorted({renderer.format for renderer in renderers}))
            raise ValidationError({"format": [f"Unknown format '{format}'. Allowed: {allowed}."]})
        return chosen
