"""
The one rule every public endpoint's query follows (README, "Query parameters"):

- a parameter is given once, unless it takes several values (the FilterSets declare which:
  releases.queries.reading.MULTI_VALUED): those may be repeated (``release=1.8&release=1.9``) or
  comma-separated (``release=1.8,1.9``), alike;
- no value is empty or begins or ends with spaces, and no name or value holds a control
  character (NUL, CR, LF, ...);
- numbers are ASCII digits; a value outside its range is refused, not clamped;
- only the parameters an endpoint names (checked by the endpoint, which knows them).

``problems()`` applies the first two to any request; each break of the rule is named, all at
once, in a 400 whose JSON maps the parameter to what is wrong.
"""

import re

from rest_framework.exceptions import ValidationError

# C0 and C1 controls, DEL, and the line and paragraph separators.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# At most 18 digits: checked before int() converts it, which refuses (a 500) past 4,300.
ASCII_WHOLE_NUMBER = re.compile(r"[0-9]{1,18}\Z")


def problems(query, several):
    """
    {parameter: [message]} for every break of the rule in ``query`` (a QueryDict), where the
    parameters named in ``several`` may be repeated.
    """
    found = {}
    for name in query:
        values = query.getlist(name)
        label = name if not CONTROL.search(name) else repr(name)
        if CONTROL.search(name):
            found[label] = ["A parameter's name may not hold control characters."]
        elif any(CONTROL.search(value) for value in values):
            found[label] = ["May not hold control characters (such as NUL, CR or LF)."]
        elif any(value == "" for value in values):
            found[label] = ["May not be empty: give a value, or leave the parameter out."]
        elif any(value != value.strip(" ") for value in values):
            found[label] = ["May not begin or end with spaces."]
        elif len(values) > 1 and name not in several:
            found[label] = [f"Given {len(values)} times; give it once."]
    return found


def whole_number_error(raw, low, high):
    """What is wrong with ``raw`` as a whole number from ``low`` to ``high`` (ASCII digits
    only), or None."""
    if raw is None or not ASCII_WHOLE_NUMBER.match(raw) or not low <= int(raw) <= high:
        shown = raw if raw is None or len(raw) <= 20 else f"{raw[:20]}…"
        return f"Must be a whole number from {low} to {high}; got {shown!r}."
    return None


def whole_number(raw, name, low, high):
    """``raw`` as an int from ``low`` to ``high`` (ASCII digits only), or a 400 naming ``name``."""
    error = whole_number_error(raw, low, high)
    if error:
        raise ValidationError({name: [error]})
    return int(raw)


def without_empty(query):
    """``query`` without its empty values: what a page's form (which sends every field) meant."""
    data = query.copy()
    for name in list(data):
        kept = [value for value in data.getlist(name) if value != ""]
        if kept:
            data.setlist(name, kept)
        else:
            del data[name]
    return data


def reject_bad_query(query_params, allowed, form_errors=None):
    """One 400 naming every unknown query parameter and every malformed value."""
    message = (
        f"Unknown query parameter. Allowed: {', '.join(sorted(allowed))}."
        if allowed
        else "Unknown query parameter: this address takes none."
    )
    errors = {name: [message] for name in sorted(set(query_params) - set(allowed))}
    if errors or form_errors:
        raise ValidationError({**(form_errors or {}), **errors})
