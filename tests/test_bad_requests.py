"""
Requests the catalog cannot read are 400s in every mode, with one line in the log and no
traceback: too many query parameters or form fields, an oversized or malformed body, a query
string that is not UTF-8. In-process with DEBUG on and off, then in real server processes:
runserver as `make run` starts it, and gunicorn as `make serve` does.
"""

import logging
import subprocess
from types import SimpleNamespace

import pytest

from bench import serve
from tests.conftest import http

AMPERSANDS_1000 = "?" + "&" * 1000
AMPERSANDS_1500 = "?" + "&" * 1500
FORM_FIELDS_1200 = "&".join(f"field{number}=1" for number in range(1200))
BODY_3_MB = "a=" + "x" * 3_000_000
FORM = "application/x-www-form-urlencoded"


class Records(logging.Handler):
    def __init__(self):
        super().__init__()
        self.records = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture
def logged():
    """The records the request and security loggers receive (django.security keeps its own)."""
    handler = Records()
    loggers = [logging.getLogger("django.request"), logging.getLogger("django.security")]
    for logger in loggers:
        logger.addHandler(handler)
    yield handler.records
    for logger in loggers:
        logger.removeHandler(handler)


@pytest.fixture(params=[True, False], ids=["debug", "production"])
def debug(request, settings):
    settings.DEBUG = request.param
    return request.param


def one_line(records):
    assert len(records) == 1, [record.getMessage() for record in records]
    assert records[0].exc_info is None
    return records[0].getMessage()


@pytest.mark.parametrize("query", [AMPERSANDS_1000, AMPERSANDS_1500])
def test_too_many_query_parameters_is_a_json_400_under_the_api(client, db, debug, logged, query):
    response = client.get("/api/features/" + query)
    assert response.status_code == 400
    # The API's 400 (ParameterErrors in the schema), naming the query string as a whole.
    assert response.json() == {"query string": ["More than 1000 parameters."]}
    message = one_line(logged)
    assert logged[0].name == "django.security.TooManyFieldsSent"
    assert "GET /api/features/: query string: More than 1000 parameters." in message


def test_too_many_query_parameters_is_the_400_page_elsewhere(client, db, debug, logged):
    response = client.get("/features/" + AMPERSANDS_1500)
    assert response.status_code == 400
    assert "<strong>query string</strong>: More than 1000 parameters." in response.text
    assert "<h1>Bad request</h1>" in response.text
    one_line(logged)


@pytest.mark.parametrize(
    ("body", "content_type", "problem"),
    [
        (FORM_FIELDS_1200, FORM, "More than 1000 fields."),
        (BODY_3_MB, FORM, "Larger than 2621440 bytes."),
        ("garbage", "multipart/form-data; boundary=", "Malformed: it cannot be read."),
    ],
    ids=["too-many-fields", "too-large", "malformed-multipart"],
)
def test_a_form_that_cannot_be_read_is_a_400(
    client, db, debug, logged, body, content_type, problem
):
    response = client.post("/admin/login/", body, content_type=content_type)
    assert response.status_code == 400
    assert f"<strong>form</strong>: {problem}" in response.text
    assert f"POST /admin/login/: form: {problem}" in one_line(logged)


def test_a_query_value_that_is_not_utf8_is_a_400_naming_the_parameter(client, db, debug, logged):
    percent = client.get("/api/features/?search=%FF&release=1.8")
    assert percent.status_code == 400 and list(percent.json()) == ["search"]
    raw = client.get("/api/features/", QUERY_STRING="search=caf\xe9")  # Latin-1 é, as sent
    assert raw.status_code == 400 and list(raw.json()) == ["search"]
    page = client.get("/features/?q%FF=1")
    assert page.status_code == 400 and "<strong>q\\xff</strong>" in page.text
    assert [record.exc_info for record in logged] == [None, None, None]


def test_utf8_queries_pass(client, catalog, logged):
    assert client.get("/api/features/?search=%C3%A9t%C3%A9&release=1.8").status_code == 200
    assert client.get("/api/features/?" + "&".join(["release=1.8"] * 5)).status_code == 200
    assert logged == []


# --- real servers, as `make run` and `make serve` start them -----------------------------------


@pytest.fixture(scope="module")
def production(tmp_path_factory, production_catalog):
    """A database with the fixtures and collected static files, for both kinds of server."""
    return production_catalog(tmp_path_factory.mktemp("bad-requests"))


def start(mode, env, log):
    port = serve.free_port()
    if mode == "make serve":
        command = serve.gunicorn_command(port, workers=1)
    else:  # make run: runserver with DEBUG on (without its reloader, which only watches files)
        env = {**env, "DJANGO_DEBUG": "1"}
        command = [serve.PYTHON, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
    process = subprocess.Popen(
        command,
        env=env,
        cwd=serve.ROOT,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    serve.wait_until_up(url, process, timeout=30)
    return process, SimpleNamespace(url=url)


@pytest.mark.live_server
@pytest.mark.parametrize("mode", ["make run", "make serve"])
def test_a_real_server_answers_400_and_logs_one_line_without_a_traceback(
    mode, production, tmp_path
):
    log_path = tmp_path / "server.log"
    with open(log_path, "w") as log:
        process, server = start(mode, production, log)
        try:
            statuses = [
                http(server, "/api/features/" + AMPERSANDS_1000).status,
                http(server, "/api/features/" + AMPERSANDS_1500).status,
                http(server, "/features/" + AMPERSANDS_1500).status,
                http(server, "/admin/login/", "POST", data=FORM_FIELDS_1200.encode()).status,
                http(server, "/admin/login/", "POST", data=BODY_3_MB.encode()).status,
                http(server, "/api/features/?search=%FF").status,
                http(server, "/api/features/", headers={"Host": "evil.example"}).status,
            ]
            assert http(server, "/api/releases/").status == 200  # and the server still serves
        finally:
            serve.stop(process)
    output = log_path.read_text(errors="replace")
    assert statuses == [400] * 7
    assert "Traceback" not in output, output[-3000:]
    # One line a bad request (an access log line aside, under runserver).
    assert output.count("Bad Request") == 6, output[-3000:]
    assert output.count("Invalid HTTP_HOST header") == 1, output[-3000:]
