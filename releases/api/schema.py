"""
The OpenAPI schema, made to say exactly what the API accepts and answers.

drf-spectacular describes the views; this hook (SPECTACULAR_SETTINGS' POSTPROCESSING_HOOKS)
then states every query parameter as the server checks it — types, allowed values, patterns,
bounds, and that none may be empty — and every response an operation can give: 200, 304,
400 (each bad parameter named), 404 and 429. schemathesis (`make fuzz`) holds the API to it.
"""

from releases.api.filters import DATETIME_RE, FACET_FIELDS, ISO_DATE_RE, SearchField
from releases.api.pagination import MAX_PAGE, StrictPageNumberPagination
from releases.models import Area, LinkKind, LinkStatus, Release, Stability, Track

VERSION = r"v?[0-9]{1,3}\.[0-9]{1,3}(\.[0-9]{1,3})?((a|b|rc)[0-9]{1,3})?"
STABILITY_VALUES = [*Stability.values, "none"]
CONTROLS = r"\x00-\x1f\x7f-\x9f\u2028\u2029"  # as releases.api.params.CONTROL
WORD, SPACE = rf"[^ {CONTROLS}]", " "  # words are what spaces (U+0020) separate
ORDERINGS = ["release", "title", "area", "position"]


def anchored(pattern):
    return f"^{pattern}$"


def comma_list(values):
    """A pattern for one value of ``values`` or several, comma-separated."""
    one = "(" + "|".join(values) + ")"
    return anchored(f"{one}(,{one})*")


def several(item_pattern, description):
    """A parameter taking several values: repeated, each value one or a comma-separated list."""
    return {
        "schema": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "pattern": item_pattern},
            "minItems": 1,
        },
        "style": "form",
        "explode": True,
        "description": description,
    }


def parameter_schemas():
    """name -> what to set on the parameter; area and track slugs are read from the catalog."""
    version = {"type": "string", "minLength": 1, "pattern": anchored(VERSION)}
    areas = sorted(Area.objects.published().values_list("slug", flat=True)) or ["none-yet"]
    published = list(Release.objects.published().oldest_first().values_list("version", flat=True))
    orderings = [f"-?{name}" for name in ORDERINGS]
    search = SearchField
    return {
        "page": {
            "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
            "description": "A page number, from 1 (or 'last').",
        },
        "page_size": {
            "schema": {
                "type": "integer",
                "minimum": 1,
                "maximum": StrictPageNumberPagination.max_page_size,
            }
        },
        "release": several(
            anchored(f"{VERSION}(,{VERSION})*"),
            "Versions, e.g. 1.8; several comma-separated (1.8,1.9) or repeated.",
        ),
        "stability": several(
            comma_list(STABILITY_VALUES),
            "stable, beta, prototype or none (no stability given); several comma-separated or "
            "repeated.",
        ),
        "area": several(comma_list(areas), "Area slugs (see /api/areas/), one or several."),
        "kind": several(comma_list(LinkKind.values), "Link kinds, one or several."),
        "link_status": several(
            comma_list(LinkStatus.values),
            "What check_links last found: unchecked, ok, redirected (permanently), broken or "
            "unreachable (each only after two failed checks a day apart); one or several.",
        ),
        "facets": several(
            comma_list(list(FACET_FIELDS)),
            "stability, area and/or release: adds `facets` to the answer, the count of features "
            "each value would give with the other filters applied.",
        ),
        "track": {
            "schema": {
                "type": "string",
                "enum": sorted(Track.objects.published().values_list("slug", flat=True))
                or ["none-yet"],
            }
        },
        "ordering": {
            "schema": {"type": "string", "minLength": 1, "pattern": comma_list(orderings)},
        },
        "search": {
            "schema": {
                "type": "string",
                "minLength": 1,
                "maxLength": search.MAX_LENGTH,
                # Words with no control character, separated by spaces.
                "pattern": anchored(rf"{WORD}+({SPACE}+{WORD}+){{0,{search.MAX_WORDS - 1}}}"),
            }
        },
        "updated_since": {"schema": datetime_schema()},
        "since": {"schema": datetime_schema()},
        "released_after": {"schema": date_schema()},
        "released_before": {"schema": date_schema()},
        "min_version": {"schema": version},
        "max_version": {"schema": version},
        "as_of": {"schema": version},
        # /api/state/'s version names a published release.
        "version": {"schema": {"type": "string", "enum": published or ["none-yet"]}},
        "first_release": several(
            anchored(f"{VERSION}(,{VERSION})*"),
            "The release of a track's first appearance, e.g. 2.0; several comma-separated or "
            "repeated.",
        ),
        "stuck_for": {"schema": {"type": "integer", "minimum": 1, "maximum": 100}},
        "promoted_in": {"schema": version},
        "from": {"schema": version},
        "to": {"schema": version},
        "cursor": {"schema": {"type": "string", "minLength": 1, "pattern": "^[A-Za-z0-9_-]+$"}},
        "has_missing_links": {"schema": {"type": "boolean"}},
        "promoted": {"schema": {"type": "boolean"}},
        "is_missing": {"schema": {"type": "boolean"}},
    }


def datetime_schema():
    return {"type": "string", "format": "date-time", "pattern": DATETIME_RE.pattern[:-2] + "$"}


def date_schema():
    return {"type": "string", "format": "date", "pattern": ISO_DATE_RE.pattern[:-2] + "$"}


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
    known = parameter_schemas()
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query":
                    parameter.update(known.get(parameter["name"], {}))
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
