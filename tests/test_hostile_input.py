"""
No bad input reaches a 500: a table of hostile requests over every public endpoint, each with
the status it must get and the parameter its error must name, sent over real HTTP.
"""

import json
import urllib.error
import urllib.request

import pytest

LONG = "x" * 201
ELEVEN_WORDS = "+".join(["word"] * 11)
ARABIC_18 = "%D9%A1.%D9%A8"  # ١.٨
SUPERSCRIPT_2 = "%C2%B2"  # ²
FULLWIDTH_1 = "%EF%BC%91"  # １
CURSOR = "WyJ2MiIsIDdd"  # entry 7 of the public change log

# (method, path with its raw query, status, what the JSON error must name: a parameter,
# "detail", or None for a success)
CASES = {
    "features": [
        ("GET", f"/api/features/?page={SUPERSCRIPT_2}", 400, "page"),
        ("GET", f"/api/features/?page_size={SUPERSCRIPT_2}", 400, "page_size"),
        ("GET", f"/api/features/?page={FULLWIDTH_1}", 400, "page"),
        ("GET", "/api/features/?page=0", 400, "page"),
        ("GET", "/api/features/?page=-1", 400, "page"),
        ("GET", "/api/features/?page=1.5", 400, "page"),
        ("GET", "/api/features/?page=99999", 404, "detail"),
        ("GET", "/api/features/?page=10000000000", 400, "page"),
        ("GET", "/api/features/?page_size=0", 400, "page_size"),
        ("GET", "/api/features/?page_size=101", 400, "page_size"),
        ("GET", "/api/features/?page_size=", 400, "page_size"),
        ("GET", "/api/features/?page=foo&page=1", 400, "page"),
        ("GET", "/api/features/?page=last", 200, None),
        ("GET", "/api/features/?ordering=,", 400, "ordering"),
        ("GET", "/api/features/?ordering=title,,position", 400, "ordering"),
        ("GET", "/api/features/?ordering=bogus", 400, "ordering"),
        ("GET", "/api/features/?ordering=-title,release", 200, None),
        ("GET", "/api/features/?updated_since=0001-01-01T00:00:00%2B00:01", 400, "updated_since"),
        ("GET", "/api/features/?updated_since=9999-12-31T23:59:59-14:00", 400, "updated_since"),
        ("GET", "/api/features/?updated_since=", 400, "updated_since"),
        ("GET", "/api/features/?updated_since=yesterday", 400, "updated_since"),
        ("GET", "/api/features/?updated_since=2026-02-30T00:00:00Z", 400, "updated_since"),
        ("GET", "/api/features/?updated_since=2026-01-01T00:00:00", 400, "updated_since"),
        ("GET", "/api/features/?updated_since=2026-01-01T00:00:00Z", 200, None),
        ("GET", "/api/releases/?updated_since=7470-09-26T20:07:25%2B23:04", 200, None),
        ("GET", "/api/links/?updated_since=1897-12-21T14:06:44-22:37", 200, None),
        ("GET", "/api/features/?updated_since=2026-01-01T00:00:00%2B05:99", 400, "updated_since"),
        ("GET", "/api/features/?stability=", 400, "stability"),
        ("GET", "/api/features/?stability=alpha", 400, "stability"),
        ("GET", "/api/features/?stability=BETA", 400, "stability"),
        ("GET", "/api/features/?stability=beta,,prototype", 400, "stability"),
        ("GET", "/api/features/?stability=beta,prototype", 200, None),
        ("GET", "/api/features/?stability=beta&stability=prototype", 200, None),
        ("GET", "/api/features/?release=1.8&release=1.9", 200, None),
        ("GET", "/api/features/?release=1.8,1.9", 200, None),
        ("GET", f"/api/features/?release={ARABIC_18}", 400, "release"),
        ("GET", "/api/features/?release=abc", 400, "release"),
        ("GET", "/api/features/?min_version=abc&min_version=1.8", 400, "min_version"),
        ("GET", f"/api/features/?min_version={ARABIC_18}", 400, "min_version"),
        ("GET", "/api/features/?min_version=%201.8", 400, "min_version"),
        ("GET", "/api/features/?track=no-such-track", 400, "track"),
        ("GET", "/api/features/?track=torch-fft&track=torch-linalg", 400, "track"),
        ("GET", "/api/features/?track=torch-fft", 200, None),
        ("GET", "/api/features/?area=nowhere", 400, "area"),
        ("GET", "/api/features/?has_missing_links=yes", 400, "has_missing_links"),
        (
            "GET",
            "/api/features/?has_missing_links=foo&has_missing_links=true",
            400,
            "has_missing_links",
        ),
        ("GET", "/api/features/?promoted=1", 400, "promoted"),
        ("GET", f"/api/features/?search={LONG}", 400, "search"),
        ("GET", f"/api/features/?search={ELEVEN_WORDS}", 400, "search"),
        ("GET", "/api/features/?search=%00", 400, "search"),
        ("GET", "/api/features/?search=a%0Db", 400, "search"),
        ("GET", "/api/features/?search=a%E2%80%A8b", 400, "search"),
        ("GET", "/api/features/?search=%C2%85", 400, "search"),
        ("GET", "/api/features/?search=%20torch", 400, "search"),
        ("GET", "/api/features/?search=torch", 200, None),
        ("GET", "/api/features/?format=xml", 400, "format"),
        ("GET", "/api/features/?format=", 400, "format"),
        ("GET", "/api/features/?format=json", 200, None),
        ("GET", "/api/features/?unknown=1", 400, "unknown"),
        ("GET", "/api/features/?%00=1", 400, "'\\x00'"),
    ],
    "releases": [
        ("GET", "/api/releases/?released_after=10/25/2006", 400, "released_after"),
        ("GET", "/api/releases/?released_after=2021-02-30", 400, "released_after"),
        ("GET", "/api/releases/?released_before=2021-1-5", 400, "released_before"),
        ("GET", "/api/releases/?max_version=2", 400, "max_version"),
        ("GET", "/api/releases/?search=a&search=b", 400, "search"),
        ("GET", "/api/releases/%00/", 404, "detail"),
        ("GET", "/api/releases/9.9/", 404, "detail"),
        ("GET", "/api/releases/1.8/?page=2", 400, "page"),
        ("GET", "/api/releases/1.8/?format=json", 200, None),
        ("GET", "/api/releases/1.8.json/", 404, "detail"),
        ("GET", "/api/releases/1.8/extra/", 404, "detail"),
    ],
    "links": [
        ("GET", "/api/links/?is_missing=foo&is_missing=true", 400, "is_missing"),
        ("GET", "/api/links/?is_missing=TRUE", 400, "is_missing"),
        ("GET", "/api/links/?kind=documentation,rfc", 200, None),
        ("GET", "/api/links/?kind=Documentation", 400, "kind"),
        ("GET", "/api/links/?release=1.7&release=1.7x", 400, "release"),
        ("GET", "/api/links/?area=", 400, "area"),
    ],
    "areas and tracks": [
        ("GET", "/api/areas/?search=", 400, "search"),
        ("GET", "/api/areas/no-such/", 404, "detail"),
        ("GET", "/api/areas/frontend-apis/?x=1", 400, "x"),
        ("GET", "/api/tracks/?as_of=1.x", 400, "as_of"),
        ("GET", "/api/tracks/?promoted_in=%00", 400, "promoted_in"),
        ("GET", "/api/tracks/?stability=stable&stability=beta", 200, None),
        ("GET", "/api/tracks/%2B0.0/", 404, "detail"),
        ("GET", "/api/tracks/torch-fft/", 200, None),
    ],
    "compare and changes": [
        ("GET", "/api/compare/", 400, "from"),
        ("GET", "/api/compare/?from=1.9&to=1.8", 400, "to"),
        ("GET", "/api/compare/?from=1.8&to=1.8", 400, "to"),
        ("GET", "/api/compare/?from=&to=1.9", 400, "from"),
        ("GET", "/api/compare/?from=1.7&from=1.8&to=1.9", 400, "from"),
        ("GET", "/api/compare/?from=%D9%A1.%D9%A7&to=1.9", 400, "from"),
        ("GET", "/api/compare/?from=1.7&to=1.9&extra=1", 400, "extra"),
        ("GET", "/api/compare/?from=1.7&to=1.9", 200, None),
        ("GET", "/api/changes/?since=yesterday", 400, "since"),
        ("GET", "/api/changes/?cursor=garbage", 400, "cursor"),
        ("GET", f"/api/changes/?since=2026-01-01T00:00:00Z&cursor={CURSOR}", 400, "cursor"),
        ("GET", "/api/changes/?page_size=101", 400, "page_size"),
        ("GET", f"/api/changes/?page_size={SUPERSCRIPT_2}", 400, "page_size"),
        ("GET", "/api/changes/?since=0001-01-01T00:00:00%2B00:01", 400, "since"),
        ("GET", f"/api/changes/?cursor={CURSOR}", 200, None),
    ],
    "schema, docs, root and feeds": [
        ("GET", "/api/schema/?version=%00", 400, "version"),
        ("GET", "/api/schema/?version=", 400, "version"),
        ("GET", "/api/schema/?version=a%22%3Bfilename%3Devil.html", 400, "version"),
        ("GET", "/api/schema/?lang=fr", 400, "lang"),
        ("GET", "/api/schema/?format=xml", 400, "format"),
        ("GET", "/api/schema/?format=json", 200, None),
        ("GET", "/api/docs/?x=1", 400, "x"),
        ("GET", "/api/docs/", 200, None),
        ("GET", "/api/?x=1", 400, "x"),
        ("GET", "/api/?format=xml", 400, "format"),
        ("GET", "/api/nothing-here/", 404, "detail"),
        ("GET", "/feeds/releases/?x=1", 400, "x"),
        ("GET", "/feeds/tracks/no-such/", 404, "detail"),
        ("GET", "/feeds/tracks/torch-fft/?page=1", 400, "page"),
    ],
    "methods": [
        ("TRACE", "/feeds/releases/", 405, "detail"),
        ("OPTIONS", "/feeds/releases/", 200, None),
        ("POST", "/api/features/", 405, "detail"),
        ("PUT", "/api/releases/1.8/", 405, "detail"),
        ("DELETE", "/api/releases/1.8/", 405, "detail"),
        ("PATCH", "/api/tracks/torch-fft/", 405, "detail"),
        ("TRACE", "/api/", 405, "detail"),
        ("OPTIONS", "/api/features/", 200, None),
        ("HEAD", "/api/features/?page=0", 400, None),
    ],
    "requests Django cannot read (releases.web.bad_requests)": [
        ("GET", "/api/features/?" + "&" * 1000, 400, "query string"),
        ("GET", "/api/releases/?" + "release=1.8&" * 1500, 400, "query string"),
        ("GET", "/feeds/releases/?" + "&" * 1001, 400, "query string"),
        ("GET", "/api/features/?" + "&" * 998, 200, None),  # 999 empty fields: within the limit
        ("GET", "/api/features/?search=%FF", 400, "search"),
        ("GET", "/api/features/?search=caf%E9", 400, "search"),  # Latin-1, not UTF-8
        ("GET", "/api/features/?x%C0%AF=1", 400, "x\\xc0\\xaf"),  # an overlong "/"
        ("GET", "/api/features/?search=%C3%A9t%C3%A9", 200, None),
        ("POST", "/api/features/?" + "&" * 1000, 400, "query string"),
    ],
}


def send(server, method, path):
    request = urllib.request.Request(f"{server.url}{path}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_the_table_holds_at_least_eighty_cases():
    assert sum(len(cases) for cases in CASES.values()) >= 80


@pytest.mark.parametrize("group", list(CASES))
def test_hostile_input_gets_the_status_and_error_it_must(live_catalog, group):
    wrong = []
    for method, path, status, names in CASES[group]:
        got, headers, body = send(live_catalog, method, path)
        problem = None
        if got != status:
            problem = f"status {got}, expected {status}: {body[:200]!r}"
        elif names is not None:
            try:
                error = json.loads(body)
            except ValueError:
                error = None
            if not isinstance(error, dict) or names not in error:
                problem = f"the error does not name {names!r}: {body[:200]!r}"
        # Nothing the client sent may reach a response header.
        for name, value in headers.items():
            if "evil" in value or "\x00" in value:
                problem = f"header {name} carries the client's input: {value!r}"
        if problem:
            wrong.append(f"{method} {path}: {problem}")
    assert not wrong, "\n".join(wrong)


def test_options_and_head_are_throttled_like_get(client, catalog, settings):
    settings.API_ANON_RATE = "2/m"
    assert client.options("/feeds/releases/").status_code == 200
    assert client.head("/api/features/").status_code == 200
    throttled = client.options("/feeds/releases/")
    assert throttled.status_code == 429 and throttled["Retry-After"]
