"""
Create (or update) a staff account in the "Editors" group: it can curate the catalog in the
admin without being a superuser.

    python manage.py create_editor NAME [--email E]                  # asks for a password
    EDITOR_PASSWORD=... python manage.py create_editor NAME --no-input
    python manage.py create_editor NAME --no-input [--base-url URL]  # prints a one-time link

At a terminal it asks for the password. With ``--no-input`` it takes the password from the
``EDITOR_PASSWORD`` environment variable, or, without one, prints a link that sets the
password once (Django's password-reset token: it stops working once used, or after
``PASSWORD_RESET_TIMEOUT``).
"""

import getpass
import os
import sys

from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from releases.editors import ensure_editors_group
from releases.management.base import CatalogCommand

PASSWORD_VARIABLE = "EDITOR_PASSWORD"


class Command(CatalogCommand):
    help = 'Create or update a staff account in the "Editors" group.'

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--no-input",
            action="store_false",
            dest="interactive",
            help=f"Ask nothing: take the password from {PASSWORD_VARIABLE}, or print a "
            "one-time link that sets it.",
        )
        parser.add_argument(
            "--base-url",
            default="http://127.0.0.1:8000",
            help="Where the catalog is served, for the one-time link.",
        )

    def handle(self, *args, username, email, interactive, base_url, **options):
        User = get_user_model()
        candidate = User(username=username, email=email)
        if interactive:
            if not sys.stdin.isatty():
                raise CommandError(
                    "no terminal to ask for a password: run with --no-input, with "
                    f"{PASSWORD_VARIABLE} set, or without it to get a one-time link"
                )
            password = self.ask_password(candidate)
        else:
            password = os.environ.get(PASSWORD_VARIABLE) or None
            if password is not None:
                try:
                    password_validation.validate_password(password, candidate)
                except ValidationError as error:
                    raise CommandError(f"{PASSWORD_VARIABLE}: {' '.join(error.messages)}") from None
        with transaction.atomic():
            group = ensure_editors_group()
            user, created = User.objects.get_or_create(username=username, defaults={"email": email})
            user.is_staff = True
            if email:
                user.email = email
            if password:
                user.set_password(password)
            elif created:
                user.set_unusable_password()
            user.save()
            user.groups.add(group)
        verb = "Created" if created else "Updated"
        self.stdout.write(self.style.SUCCESS(f"{verb} editor '{username}'."))
        if not interactive and password is None and not user.has_usable_password():
            self.stdout.write(
                "Set the password once, within "
                f"{self.hours()} hours, at:\n  {base_url.rstrip('/')}{set_password_path(user)}"
            )

    @staticmethod
    def hours():
        from django.conf import settings

        return settings.PASSWORD_RESET_TIMEOUT // 3600

    def ask_password(self, user):
        while True:
            try:
                password = getpass.getpass("Password: ")
                again = getpass.getpass("Password (again): ")
            except EOFError:
                raise CommandError("no password given") from None
            if password != again:
                self.stderr.write("The passwords do not match.")
                continue
            try:
                password_validation.validate_password(password, user)
            except ValidationError as error:
                self.stderr.write(" ".join(error.messages))
                continue
            return password


def set_password_path(user):
    """The path of the one-time page that sets ``user``'s password."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    return reverse("password-set", kwargs={"uidb64": uid, "token": token})
