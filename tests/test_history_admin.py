"""Every change can be seen and undone in the admin; merges need permissions; logins lock."""

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.urls import reverse

from releases.models import Feature, Link, Track

pytestmark = pytest.mark.django_db


@pytest.fixture
def editor(catalog):
    call_command("create_editor", "eddie", "--no-input", verbosity=0)
    user = User.objects.get(username="eddie")
    user.set_password("a long and unguessable passphrase")
    user.save()
    return user


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


def package():
    return Feature.objects.get(release__version="1.9", slug="torch-package")


def edit_summary(client, feature, summary):
    url = reverse("admin:releases_feature_change", args=[feature.pk])
    form = client.get(url).context["adminform"].form
    data = {name: form[name].value() for name in form.fields if form[name].value() is not None}
    data.update(
        {
            "summary": summary,
            "links-TOTAL_FORMS": "0",
            "links-INITIAL_FORMS": "0",
            "links-MIN_NUM_FORMS": "0",
            "links-MAX_NUM_FORMS": "1000",
        }
    )
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors


def test_an_editor_sees_who_changed_what_and_reverts_it(editor_client, editor):
    original = package().summary
    edit_summary(editor_client, package(), "A hasty rewrite.")
    assert package().summary == "A hasty rewrite."

    history = editor_client.get(reverse("admin:releases_feature_history", args=[package().pk]))
    page = history.content.decode()
    assert (
        "eddie" in page and "A hasty rewrite." in page and "load_catalog pytorch-1.9.json" in page
    )

    first, latest = Feature.history.filter(id=package().pk).order_by("history_id")
    compare = editor_client.get(
        reverse("admin:releases_feature_compare", args=[package().pk]),
        {"a": first.history_id, "b": latest.history_id},
    )
    changed = [row for row in compare.context["rows"] if row[3]]
    assert [(str(field), before, after) for field, before, after, _ in changed] == [
        ("summary", original, "A hasty rewrite.")
    ]

    revert_url = reverse("admin:releases_feature_simple_history", args=[package().pk, first.pk])
    form = editor_client.get(revert_url).context["adminform"].form
    data = {name: form[name].value() for name in form.fields if form[name].value() is not None}
    assert editor_client.post(revert_url, data).status_code == 302
    assert package().summary == original
    reverted = Feature.history.filter(id=package().pk).latest("history_id")
    assert reverted.history_user == editor and reverted.summary == original


def test_a_deleted_feature_comes_back_with_its_links(editor_client, editor):
    doomed = package()
    pk = doomed.pk
    links = sorted(doomed.links.values_list("label", "url"))
    track = doomed.track
    assert links
    doomed.delete()  # an administrator deleted it; editors cannot delete features
    Track.objects.filter(pk=track.pk).orphaned().delete()

    listing = editor_client.get(reverse("admin:releases_feature_deleted"))
    assert "torch.package" in listing.content.decode()
    record = listing.context["tables"][0].records[0]
    response = editor_client.post(
        reverse("admin:releases_feature_deleted"), {"record": record.history_id}
    )
    assert response.status_code == 302
    back = package()
    assert back.pk == pk
    assert sorted(back.links.values_list("label", "url")) == links
    assert back.track.features.get() == back  # its track was gone: a new one of its own
    recovered = Feature.history.filter(id=back.pk).latest("history_id")
    assert recovered.history_type == "+" and recovered.history_user == editor
    assert Link.history.filter(feature_id=back.pk, history_type="+").count() >= len(links)
    assert (
        not editor_client.get(reverse("admin:releases_feature_deleted"))
        .context["tables"][0]
        .records
    )


def test_merge_and_split_need_the_permissions_they_use(client, catalog):
    clerk = User.objects.create_user("clerk", is_staff=True)
    clerk.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_feature", "change_feature", "view_track"])
    )
    client.force_login(clerk)
    changelist = reverse("admin:releases_feature_changelist")
    actions = dict(client.get(changelist).context["action_form"].fields["action"].choices)
    assert "merge_into_track" not in actions and "split_into_own_track" not in actions
    target = Track.objects.get(slug="torch-fft")
    client.post(
        changelist,
        {
            "action": "merge_into_track",
            "_selected_action": [package().pk],
            "apply": "1",
            "track": target.pk,
        },
    )
    assert package().track.slug == "torch-package"


def test_merges_and_splits_are_in_the_history(editor_client, editor):
    changelist = reverse("admin:releases_feature_changelist")
    target = Track.objects.get(slug="torch-fft")
    own = package().track
    editor_client.post(
        changelist,
        {
            "action": "merge_into_track",
            "_selected_action": [package().pk],
            "apply": "1",
            "track": target.pk,
        },
    )
    assert package().track == target
    moved = Feature.history.filter(id=package().pk).latest("history_id")
    assert moved.history_user == editor
    assert moved.history_change_reason == "merged into track torch-fft"
    gone = Track.history.get(id=own.pk, history_type="-")
    assert gone.history_user == editor
    assert LogEntry.objects.filter(object_id=str(package().pk), user=editor).exists()

    editor_client.post(
        changelist, {"action": "split_into_own_track", "_selected_action": [package().pk]}
    )
    split = Feature.history.filter(id=package().pk).latest("history_id")
    assert split.history_change_reason == "split into its own track"
    assert package().track != target


def test_logins_lock_after_five_failures_and_an_administrator_can_unlock(client, editor):
    login = reverse("admin:login")
    for attempt in range(1, 6):
        response = client.post(login, {"username": "eddie", "password": "wrong"})
        # The form again with its error; the fifth failure answers with the lockout.
        assert response.status_code == (429 if attempt == 5 else 200)
    locked = client.post(
        login, {"username": "eddie", "password": "a long and unguessable passphrase"}
    )
    assert locked.status_code == 429
    assert "Too many failed sign-ins" in locked.content.decode()
    # Only the pair (username, address) is locked: tests/test_lockout.py.

    call_command("axes_reset_username", "eddie", verbosity=0)
    call_command("axes_reset_ip", "127.0.0.1", verbosity=0)
    unlocked = client.post(
        login, {"username": "eddie", "password": "a long and unguessable passphrase"}
    )
    assert unlocked.status_code == 302


@pytest.mark.parametrize(
    "path",
    [
        "/admin/releases/feature/65/change/history/",
        "/admin/releases/feature/abc/history/",
        "/admin/releases/feature/abc/history/1/",
        "/admin/releases/feature/1/history/x%00/",
        "/admin/releases/feature/abc/history/compare/",
        "/admin/releases/feature/999999/history/compare/",
    ],
)
def test_history_urls_that_name_nothing_are_404s(editor_client, path):
    assert editor_client.get(path).status_code == 404


def test_merging_two_features_of_one_release_is_refused_with_a_message(editor_client):
    linalg = Feature.objects.get(release__version="1.9", slug="torch-linalg")
    response = editor_client.post(
        reverse("admin:releases_feature_changelist"),
        {
            "action": "merge_into_track",
            "_selected_action": [package().pk],
            "apply": "1",
            "track": linalg.track.pk,
        },
        follow=True,
    )
    assert "would appear twice in one release" in response.content.decode()
    assert package().track.slug == "torch-package"
