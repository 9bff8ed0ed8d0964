"""
Create (or update) a staff account in the "Editors" group: it can curate the catalog in the
admin without being a superuser.

    python manage.py create_editor NAME [--email E]

Asks for a password when run at a terminal; with --no-input the account gets no usable
password until someone runs `manage.py changepassword NAME`.
"""

import getpass

from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand
from django.db import transaction

from releases.editors import ensure_editors_group


class Command(BaseCommand):
    help = 'Create or update a staff account in the "Editors" group.'

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument("--no-input", action="store_false", dest="interactive")

    def handle(self, *args, username, email, interactive, **options):
        User = get_user_model()
        password = self.ask_password(User(username=username, email=email)) if interactive else None
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

    def ask_password(self, user):
        while True:
            password = getpass.getpass("Password: ")
            if password != getpass.getpass("Password (again): "):
                self.stderr.write("The passwords do not match.")
                continue
            try:
                password_validation.validate_password(password, user)
            except ValidationError as error:
                self.stderr.write(" ".join(error.messages))
                continue
            return password
