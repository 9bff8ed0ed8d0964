"""
Requests the catalog cannot read: a 400 in every mode, and one line in the log.

What Django refuses to parse — more query parameters or form fields than
``DATA_UPLOAD_MAX_NUMBER_FIELDS``, a form body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``, too many
files, a malformed multipart body — and a query string whose parameters are not UTF-8 are
answered by ``UnreadableRequestMiddleware``, before any other middleware reads the request.

Left to Django, the first four end in a 400 with a traceback in the log; with DEBUG on, too
many query parameters end in a 500: the debug page for the 400 reads ``request.GET`` again,
which raises again inside the exception handler of each middleware in turn, each logging its
traceback, until the server answers 500 (Django ticket #35673). The log filter
``WithoutTraceback`` keeps every ``django.security`` record to one line, for what this
middleware does not see (a Host header not allowed, say).
"""

import logging
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import JsonResponse, QueryDict
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.utils.log import log_response

from releases.surfaces import answers_as_api

UNREADABLE = (TooManyFieldsSent, TooManyFilesSent, RequestDataTooBig, MultiPartParserError)
NOT_UTF8 = "Is not UTF-8: percent-encode the UTF-8 bytes of the text (%C3%A9 for é)."


def reason(exc, part):
    """What was wrong with ``part`` (the query string, or the form), in the client's words."""
    if isinstance(exc, TooManyFieldsSent):
        noun = "parameters" if part == "query string" else "fields"
        return f"More than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} {noun}."
    if isinstance(exc, TooManyFilesSent):
        return f"More than {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files."
    if isinstance(exc, RequestDataTooBig):
        return f"Larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes."
    return "Malformed: it cannot be read."


def not_utf8(query_string):
    """
    The names of the parameters of ``query_string`` (raw bytes) whose name or value is not
    UTF-8 once percent-decoded, which Django would decode with replacement characters.
    """
    if query_string.isascii() and b"%" not in query_string:
        return []  # most queries: nothing encoded
    try:
        unquote_to_bytes(query_string).decode("utf-8")
        return []  # splitting UTF-8 at ASCII "&" and "=" leaves every part UTF-8
    except UnicodeDecodeError:
        pass
    names = []
    for field in query_string.split(b"&"):
        name, _, value = field.partition(b"=")
        for part in (name, value):
            try:
                unquote_to_bytes(part).decode("utf-8")
            except UnicodeDecodeError:
                names.append(unquote_to_bytes(name).decode("utf-8", "backslashreplace"))
                break
    return names


def raw_query_string(request):
    """The query string's bytes: WSGI servers pass them as Latin-1 text."""
    query = request.META.get("QUERY_STRING", "")
    try:
        return query.encode("latin-1")
    except UnicodeEncodeError:  # already decoded, so already valid text
        return query.encode("utf-8")


class UnreadableRequestMiddleware:
    """
    Outermost but for the security headers: parse the query string and a POST's form with
    Django's limits, check the query string is UTF-8, and refuse what fails with the 400 every
    other bad request gets (JSON under /api/ and /feeds/ naming the parameter, or the query
    string or form when no one parameter is at fault; else the 400 page), logged in one line
    on the ``django.security`` logger Django itself would use. What passes is parsed once and
    kept: every later reader sees the same.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        part = "query string"
        try:
            request.GET  # noqa: B018 (parsed here, kept on the request)
            if request.method == "POST":
                part = "form"
                request.POST  # noqa: B018 (CsrfViewMiddleware would read it next)
        except UNREADABLE as exc:
            if part == "query string":
                request.GET = QueryDict()  # nothing after this may trip on it again
            return self.refused(request, exc, part)
        names = not_utf8(raw_query_string(request))
        if names:
            return self.bad_request(request, {name: [NOT_UTF8] for name in names})
        return self.get_response(request)

    def refused(self, request, exc, part):
        message = reason(exc, part)
        response = self.bad_request(request, {part: [message]})
        # Django's own helper: it marks the response logged, so the handler adds no second line.
        log_response(
            "Bad Request: %s %s: %s: %s",
            request.method,
            request.path,
            part,
            message,
            response=response,
            request=request,
            logger=logging.getLogger(f"django.security.{type(exc).__name__}"),
            level="warning",
        )
        return response

    @staticmethod
    def bad_request(request, problems):
        """The API's 400 (schema ParameterErrors) under /api/ and /feeds/, else the 400 page."""
        if answers_as_api(request.path):
            return JsonResponse(problems, status=400)
        return render(request, "400.html", {"problems": problems}, status=400)


class WithoutTraceback(logging.Filter):
    """
    A log handler's filter: a record with an exception becomes one line, naming the
    exception. For ``django.security`` records, whose exception is the client's bad request:
    its traceback only says where Django noticed.
    """

    def filter(self, record):
        if record.exc_info:
            error = record.exc_info[1]
            record.msg = f"{record.getMessage()} ({type(error).__name__})"
            record.args = ()
            record.exc_info = record.exc_text = None
        return True
