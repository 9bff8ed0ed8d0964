"""
Once created the "Editors" group; a post_migrate receiver (releases.apps) keeps it now, so
that its permissions follow the models. Kept so that the migration graph stays whole.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("releases", "0001_catalog")]

    operations = []
