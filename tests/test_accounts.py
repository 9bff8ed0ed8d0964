"""Editors' accounts without a terminal: a password from the environment, or a one-time link."""

import os
import re
import subprocess
import sys
from io import StringIO

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


def create_editor(*args, **env):
    out = StringIO()
    old = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        call_command("create_editor", *args, stdout=out)
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return out.getvalue()


def logs_in(client, username, password):
    """Sign in through the admin's own login page (the throttled one)."""
    response = client.post(
        "/admin/login/?next=/admin/", {"username": username, "password": password}
    )
    return response.status_code == 302 and client.get("/admin/").status_code == 200


def test_no_input_takes_the_password_from_the_environment(client):
    create_editor("erin", "--no-input", EDITOR_PASSWORD="a long enough passphrase 42")
    assert logs_in(client, "erin", "a long enough passphrase 42")


def test_a_weak_password_from_the_environment_is_refused_by_name():
    with pytest.raises(CommandError, match="EDITOR_PASSWORD: This password is too common"):
        create_editor("erin", "--no-input", EDITOR_PASSWORD="password")
    assert not User.objects.filter(username="erin").exists()


def test_without_a_password_it_prints_a_link_that_sets_it_once(client):
    output = create_editor("erin", "--no-input", "--base-url", "http://catalog.example")
    link = re.search(r"http://catalog\.example(/admin/password-set/\S+)", output).group(1)
    assert not User.objects.get(username="erin").has_usable_password()
    form = client.get(link, follow=True)
    assert form.status_code == 200 and b"new_password1" in form.content
    set_url = form.redirect_chain[-1][0] if form.redirect_chain else link
    done = client.post(
        set_url,
        {
            "new_password1": "another fine passphrase 7",
            "new_password2": "another fine passphrase 7",
        },
        follow=True,
    )
    assert b"Your password has been set" in done.content
    assert logs_in(client, "erin", "another fine passphrase 7")
    # Once used, the link no longer works.
    again = client.get(link, follow=True)
    assert b"new_password1" not in again.content


def test_without_a_terminal_it_says_what_to_do_instead_of_a_traceback():
    result = subprocess.run(
        [sys.executable, "manage.py", "create_editor", "erin"],
        cwd=settings.BASE_DIR,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, "DJANGO_DEBUG": "1"},
        timeout=60,
    )
    assert result.returncode != 0
    assert "no terminal to ask for a password: run with --no-input" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("unsafe", ["//evil.example/", "https://evil.example/admin/"])
def test_a_sign_in_whose_next_is_refused_lands_on_the_desk(client, unsafe):
    create_editor("erin", "--no-input", EDITOR_PASSWORD="a long enough passphrase 42")
    response = client.post(
        "/admin/login/",
        {"username": "erin", "password": "a long enough passphrase 42", "next": unsafe},
    )
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert client.get(response["Location"]).status_code == 200
