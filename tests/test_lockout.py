"""
Sign-in locks through the admin's real login page: failures lock the pair (username, address),
never another user or another address, and a username failed from many addresses is paced.
"""

import datetime as dt

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

PASSWORD = "a long and unguessable passphrase"
HOME, ELSEWHERE = "192.0.2.10", "198.51.100.20"


@pytest.fixture
def editors(db):
    for name in ("alice", "bob"):
        User.objects.create_user(name, password=PASSWORD, is_staff=True)


def sign_in(username, password, address):
    """A POST to the admin's login page from ``address``, in a browser of its own."""
    return Client().post(
        reverse("admin:login") + "?next=/admin/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
    )


def text(response):
    """The page's text with its spaces as a reader sees them (the wait keeps "15 minutes" on
    one line with a no-break space)."""
    return " ".join(response.content.decode().split())


def signed_in(response):
    return response.status_code == 302 and response["Location"] == "/admin/"


def test_five_failures_lock_the_pair_and_nobody_else(editors):
    for attempt in range(1, 6):
        response = sign_in("alice", "wrong", HOME)
        # The form again with its error; the fifth failure answers with the lockout.
        assert response.status_code == (429 if attempt == 5 else 200)
    refused = sign_in("alice", PASSWORD, HOME)
    assert refused.status_code == 429
    assert "Too many failed sign-ins" in refused.content.decode()
    # Bob, from the same address, and Alice, from another, sign in.
    assert signed_in(sign_in("bob", PASSWORD, HOME))
    assert signed_in(sign_in("alice", PASSWORD, ELSEWHERE))
    # Still locked where the failures came from, and the refusals did not count as failures.
    assert sign_in("alice", PASSWORD, HOME).status_code == 429
    assert AccessAttempt.objects.get(username="alice").failures_since_start == 5


def test_the_lockout_page_is_the_admins_and_says_the_time_in_words(editors):
    for _ in range(5):
        sign_in("alice", "wrong", HOME)
    response = sign_in("alice", PASSWORD, HOME)
    html = text(response)
    assert response.status_code == 429
    assert "PT15M" not in html
    assert "paused for 15 minutes" in html and "try again in 15 minutes" in html
    assert 'id="site-name"' in html and "PyTorch Release Catalog" in html  # the admin's header
    assert "releases/admin.css" in html
    assert int(response["Retry-After"]) in range(14 * 60, 15 * 60 + 1)
    # Later, the page says what is left.
    AccessAttempt.objects.update(attempt_time=dt.datetime.now(dt.UTC) - dt.timedelta(minutes=10))
    assert "try again in 5 minutes" in text(sign_in("alice", PASSWORD, HOME))
    # After the cool-off, the address may try again.
    AccessAttempt.objects.update(attempt_time=dt.datetime.now(dt.UTC) - dt.timedelta(minutes=16))
    assert signed_in(sign_in("alice", PASSWORD, HOME))


def attack(username, addresses, tries_each=1):
    """Wrong passwords from each of ``addresses``: the status of each answer."""
    return [
        sign_in(username, f"guess {n}", address).status_code
        for address in addresses
        for n in range(tries_each)
    ]


def test_a_username_attacked_from_many_addresses_is_paced(editors, settings):
    addresses = [f"203.0.113.{n}" for n in range(1, 13)]
    # Ten failures, one from each of ten addresses: each answered with the form.
    assert attack("alice", addresses[:10]) == [200] * 10
    # Now an address that has failed for alice waits, with a page that says so.
    paced = sign_in("alice", "guess again", addresses[0])
    assert paced.status_code == 429
    html = text(paced)
    assert "once every 30 seconds" in html and "try again in 30 seconds" in html
    assert 25 <= int(paced["Retry-After"]) <= 30
    # ... even with the right password: the pace does not let an attacker probe for it.
    assert sign_in("alice", PASSWORD, addresses[0]).status_code == 429
    # Refused attempts are not failures: hammering does not lock the addresses for longer.
    assert attack("alice", addresses[:10], tries_each=3) == [429] * 30
    assert sum(a.failures_since_start for a in AccessAttempt.objects.all()) == 10
    # A fresh address is never refused: the owner signs in.
    assert signed_in(sign_in("alice", PASSWORD, ELSEWHERE))
    # Nor is anyone else slowed down.
    assert signed_in(sign_in("bob", PASSWORD, addresses[0]))
    # Once the pace has passed since the latest failure, one more try each time.
    AccessAttempt.objects.update(attempt_time=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=31))
    assert sign_in("alice", "guess again", addresses[1]).status_code == 200
    assert sign_in("alice", "guess again", addresses[2]).status_code == 429


def test_few_failures_from_many_addresses_are_not_paced(editors):
    assert attack("alice", [f"203.0.113.{n}" for n in range(1, 10)]) == [200] * 9
    # Nine failures are below the username's threshold of ten: the owner's typo is forgiven.
    assert signed_in(sign_in("alice", PASSWORD, "203.0.113.1"))
