"""
Register a webhook: changes in its topics are POSTed to URL, signed (docs/notifications.md).

    python manage.py add_webhook https://hooks.example.org/catalog --topic releases:2.x
    python manage.py add_webhook URL --topic track:flexattention --topic api:torch.jit
    python manage.py add_webhook URL --topic all --secret "$SECRET"

Without ``--secret`` a secret is drawn and printed, once: the catalog never shows it again.
The endpoint follows what changes from now on.
"""

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError

from releases.management.base import CatalogCommand
from releases.notifications import addresses, webhooks
from releases.topics import BadTopic


class Command(CatalogCommand):
    help = "Register a webhook that receives the changes in its topics, signed."

    def add_arguments(self, parser):
        parser.add_argument("url", help="Where deliveries are POSTed: https on a public address.")
        parser.add_argument(
            "--topic",
            action="append",
            dest="topics",
            required=True,
            help="all, releases[:2.x|:2.14], compatibility, schedule, track:SLUG, api:PREFIX; "
            "repeat for several.",
        )
        parser.add_argument("--secret", help="The signing secret (16 characters at least).")
        parser.add_argument("--description", default="", help="Whose it is, what for.")

    def handle(self, *args, url, topics, secret, description, **options):
        try:
            webhook = webhooks.register(url, topics, secret=secret, description=description)
        except (addresses.Refused, BadTopic) as error:
            raise CommandError(str(error)) from None
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from None
        self.stdout.write(
            f"Webhook {webhook.pk}: {webhook.url}, topics {', '.join(webhook.topics)}"
        )
        if secret is None:
            self.stdout.write(
                f"Secret (shown once; keep it where the receiver can read it): {webhook.secret}"
            )
