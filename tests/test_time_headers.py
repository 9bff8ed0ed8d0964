"""
Time headers tell the truth: Last-Modified is the real time of the last change, never later than
Date, and conditional requests still notice every revision, several in one second included.
Over real HTTP, where the server sets Date.
"""

import email.utils
import time

from releases import revision
from releases.models import Release
from tests.conftest import http


def get(server, path="/api/releases/", **headers):
    return http(server, path, headers=headers)


def seconds(header):
    return email.utils.parsedate_to_datetime(header).timestamp()


def change(summary):
    Release.objects.filter(version="1.9").update(summary=summary)


def next_second():
    """Sleep to the start of the next whole second: what follows shares no second with before."""
    time.sleep(1 - time.time() % 1 + 0.01)


def test_after_a_burst_of_saves_last_modified_is_not_ahead_of_date(live_catalog):
    before = int(time.time())
    for number in range(40):
        change(f"Save number {number}.")
    response = get(live_catalog)
    assert response.status == 200
    modified, date = seconds(response.headers["Last-Modified"]), seconds(response.headers["Date"])
    assert before <= modified <= date


def test_two_revisions_in_one_second_have_different_etags(live_catalog):
    for _ in range(5):  # the two writes take milliseconds: rarely, a second ends between them
        next_second()
        change("First.")
        first = get(live_catalog)
        change("Second.")
        second = get(live_catalog)
        if first.headers["Last-Modified"] == second.headers["Last-Modified"]:
            break
    assert first.headers["Last-Modified"] == second.headers["Last-Modified"]
    assert first.headers["ETag"] != second.headers["ETag"]
    assert get(live_catalog, **{"If-None-Match": first.headers["ETag"]}).status == 200
    assert get(live_catalog, **{"If-None-Match": second.headers["ETag"]}).status == 304


def test_if_modified_since_alone_notices_a_change_in_the_same_second(live_catalog):
    for _ in range(5):
        next_second()
        change("First.")
        held = get(live_catalog)
        change("Second.")
        if revision.current().shares_second:
            break
    assert revision.current().shares_second
    since = get(live_catalog, **{"If-Modified-Since": held.headers["Last-Modified"]})
    assert since.status == 200 and b"Second." in since.body


def test_if_modified_since_alone_still_gets_a_304_for_the_only_revision_of_its_second(
    live_catalog,
):
    next_second()
    change("Alone in its second.")
    assert not revision.current().shares_second
    held = get(live_catalog)
    assert get(live_catalog, **{"If-Modified-Since": held.headers["Last-Modified"]}).status == 304


def test_the_first_revision_of_a_second_learns_of_a_later_one(live_catalog):
    # Two writers in one second: the first one's revision, asked again, knows of the second
    # (the database's row counts the revisions of each second).
    for _ in range(5):
        next_second()
        change("First.")
        first = revision.current()
        held = get(live_catalog)
        change("Second.")
        if revision.current().shares_second:
            break
    assert not first.shares_second and revision.current().shares_second
    assert revision.shares_second(first)
    assert get(live_catalog, **{"If-Modified-Since": held.headers["Last-Modified"]}).status == 200


def test_an_old_etag_wins_over_a_current_if_modified_since(live_catalog):
    change("First.")
    held = get(live_catalog)
    next_second()
    change("Second.")
    current = get(live_catalog)
    # The client's date says "nothing new", its ETag says otherwise: RFC 9110 trusts the ETag.
    response = get(
        live_catalog,
        **{
            "If-None-Match": held.headers["ETag"],
            "If-Modified-Since": current.headers["Last-Modified"],
        },
    )
    assert response.status == 200 and b"Second." in response.body
