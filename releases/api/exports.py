"""
CSV: ``format=csv`` on a list streams every matching row — not one page — with a header row,
in the list's own filters and order, in constant memory: rows are read in chunks (each with
its prefetched relations) and written as they are read.

Every cell is safe to open in a spreadsheet: text that a spreadsheet would run as a formula
is neutralised with a leading apostrophe (``formula_safe``); numbers stay numbers.
"""

import csv
import io
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.http import StreamingHttpResponse
from rest_framework.renderers import BaseRenderer, JSONRenderer

from releases import memory

CHUNK = 200  # rows read and turned into items at a time
BUFFER = 1 << 16  # characters written to the client at a time


class CSVRenderer(BaseRenderer):
    """Names the format for content negotiation; the list streams the rows itself."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        # Lists stream their rows and errors are switched to JSON before rendering
        # (CSVListMixin): anything else that reaches here is rendered as JSON too.
        return JSONRenderer().render(data, accepted_media_type, renderer_context)


def without_format(url):
    """An item's own URL, without the ``format=csv`` DRF carries over into links."""
    parts = urlsplit(url)
    query = [(name, value) for name, value in parse_qsl(parts.query) if name != "format"]
    return urlunsplit(parts._replace(query=urlencode(query)))


def cell(value):
    """A JSON value of an item as one CSV cell: lists joined, nested objects flattened."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(("http://", "https://")) and "format=" in value:
        return without_format(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(cell(item) for item in value)
    if isinstance(value, dict):
        # A source is where its post says it ("post:line"); a link is its URL (or
        # "missing:label"); an appearance its "release:stability".
        if "post" in value and "line" in value:
            return f"{value['post']}:{value['line']}"
        if "url" in value:
            return value["url"] or f"missing:{value.get('label', '')}"
        if "release" in value and "stability" in value:
            return f"{value['release']}:{value['stability'] or 'none'}"
        return " ".join(f"{key}={cell(item)}" for key, item in value.items())
    return str(value)


# What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection"): its first
# character, or its first after blanks, since some spreadsheets skip those. The full-width
# forms are a precaution: a spreadsheet that normalises what it reads would see a formula.
FORMULA_STARTS = frozenset("=+-@\t\r＝＋－＠")


def formula_safe(text):
    """
    ``text`` as a spreadsheet shows it and never runs it: a cell that would start a formula
    (``=HYPERLINK(...)``, ``+1``, ``-2+3``, ``@SUM(...)``, a tab or carriage return first,
    the same after spaces) gets a leading apostrophe, as OWASP recommends.
    """
    if text[:1] in FORMULA_STARTS or text.lstrip()[:1] in FORMULA_STARTS:
        return "'" + text
    return text


def csv_cell(value):
    """A JSON value as a CSV cell a spreadsheet cannot run: numbers as they are, text made safe."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)  # a JSON number, negative ones too, stays a number
    return formula_safe(cell(value))


def chunks(iterable):
    """Lists of CHUNK items of ``iterable`` (the last one shorter)."""
    chunk = []
    for item in iterable:
        chunk.append(item)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    yield chunk


def serialized(queryset, serializer_class, context):
    """Items of ``queryset`` as ``serializer_class`` shows them, serialized chunk by chunk."""
    for chunk in chunks(queryset.iterator(chunk_size=CHUNK)):
        yield from serializer_class(chunk, many=True, context=context).data
        memory.forget_prefetched(chunk)


def built(rows, build):
    """Items built by ``build`` from chunks of ``rows``, a ``.values()`` queryset."""
    for chunk in chunks(rows.iterator(chunk_size=CHUNK)):
        yield from build(chunk)


def lines(items, columns):
    """The header, then one row of cells per item."""
    yield columns
    for item in items:
        yield [csv_cell(item[column]) for column in columns]


def streamed(rows):
    """CSV text in pieces of about 64 kB: one write to the client each, not one a row."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    for row in rows:
        writer.writerow(row)
        if buffer.tell() >= BUFFER:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate(0)
    yield buffer.getvalue()


def csv_response(items, columns, filename):
    response = StreamingHttpResponse(
        streamed(lines(items, columns)), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    return response
