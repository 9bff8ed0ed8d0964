"""
The OpenAPI schema, made to say exactly what the API accepts and answers.

drf-spectacular describes the views, and each query parameter from its one declaration: a
FilterSet's filters through drf-spectacular's django-filter support (``CatalogFilterExtension``
reads what each field states of itself: releases.queries.fields, ``openapi()``), a form's fields
through ``form_parameters``, ``page`` and ``page_size`` from the paginator. This hook
(SPECTACULAR_SETTINGS' POSTPROCESSING_HOOKS) then adds what holds for every parameter (none
may be empty), a list's ``format``, and every response an operation can give: 200, 304, 400
(each bad parameter named), 404 and 429. schemathesis (`make fuzz`) holds the API to it.
"""

import copy

from drf_spectacular.contrib.django_filters import DjangoFilterExtension
from drf_spectacular.plumbing import build_parameter_type
from drf_spectacular.utils import OpenApiParameter

from releases.queries.filtersets import FACET_FIELDS


def described(filter_):
    """What ``filter_`` (a FilterSet's, unbound) states of itself: its own, or its field's."""
    if hasattr(filter_, "openapi"):
        return filter_.openapi()
    return copy.copy(filter_).field.openapi()  # a field of its own, as a FilterSet's copy has


class CatalogFilterExtension(DjangoFilterExtension):
    """drf-spectacular's django-filter support, each parameter stated as its field checks it."""

    target_class = "releases.api.filters.StrictFilterBackend"
    priority = 1

    def resolve_filter_field(self, auto_schema, model, filterset_class, field_name, filter_field):
        stated = described(filter_field)
        return [
            build_parameter_type(
                name=field_name,
                location=OpenApiParameter.QUERY,
                required=filter_field.extra["required"],
                description=filter_field.extra.get("help_text") or filter_field.label,
                schema=stated["schema"],
                style=stated.get("style"),
                explode=stated.get("explode"),
            )
        ]


def form_parameters(form_class):
    """The query parameters of ``form_class`` (a form of the API's fields), for extend_schema."""
    parameters = []
    for name, field in form_class().fields.items():
        stated = field.openapi()
        parameters.append(
            OpenApiParameter(
                name,
                stated["schema"],
                required=field.required,
                description=str(field.help_text),
                style=stated.get("style"),
                explode=stated.get("explode"),
            )
        )
    return parameters


ERRORS = {
    "ParameterErrors": {
        "type": "object",
        "description": "Each bad query parameter, named, with what is wrong with it.",
        "additionalProperties": {"type": "array", "items": {"type": "string"}},
    },
    "Error": {
        "type": "object",
        "properties": {"detail": {"type": "string"}},
        "required": ["detail"],
    },
}


def error(name, description, **extra):
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
        **extra,
    }


RESPONSES = {
    "414": {
        "description": "The request line is longer than the server reads (8190 bytes).",
        "content": {"text/html": {"schema": {"type": "string"}}},
    },
    "304": {"description": "Not modified: the ETag or Last-Modified sent still holds."},
    "400": error("ParameterErrors", "A query parameter is unknown, repeated, empty or malformed."),
    "404": error("Error", "Nothing there: no such object, or no such page."),
    "429": error(
        "Error",
        "Too many requests from this address: wait as Retry-After says.",
        headers={"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds."}},
    ),
}


FACETS_SCHEMA = {
    "type": "object",
    "description": "Present when `facets` is given: for each facet asked for, each value's "
    "count of features with the other filters applied.",
    "properties": {
        name: {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
        for name in FACET_FIELDS
    },
    "additionalProperties": False,
}


def postprocess(result, generator, request, public):
    """SPECTACULAR_SETTINGS' POSTPROCESSING_HOOKS entry: the truth about parameters and errors."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(ERRORS)
    if "PaginatedFeatureList" in schemas:
        schemas["PaginatedFeatureList"].setdefault("properties", {})["facets"] = FACETS_SCHEMA
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query":
                    parameter.setdefault("schema", {}).setdefault("minLength", 1)
                    if parameter["schema"].get("type") != "string":
                        parameter["schema"].pop("minLength")
                    parameter["allowEmptyValue"] = False
            if operation.get("operationId", "").endswith("_list"):
                add_csv(operation)
            for status, response in RESPONSES.items():
                operation.setdefault("responses", {}).setdefault(status, response)
    return result


def add_csv(operation):
    """A list's ``format``: json (pages), or csv (every matching row, streamed)."""
    if any(parameter["name"] == "format" for parameter in operation.get("parameters", [])):
        return
    operation.setdefault("parameters", []).append(
        {
            "name": "format",
            "in": "query",
            "required": False,
            "allowEmptyValue": False,
            "schema": {"type": "string", "enum": ["json", "csv"]},
            "description": "csv: every matching row (not one page) as CSV with a header row, in "
            "the same order, streamed; nested lists are space-separated (links by URL, "
            "appearances as release:stability).",
        }
    )
    content = operation.get("responses", {}).get("200", {}).setdefault("content", {})
    content["text/csv"] = {"schema": {"type": "string"}}
