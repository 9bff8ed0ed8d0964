"""
Public means published, whatever editors do: random sequences of the catalog's writes — import
as a draft, edit a draft, publish, unpublish, approve, delete, rename, merge, split, revert —
and after each one, a mirror that replays /api/changes/ holds exactly what the public API
shows, and no string of a draft appears in any public response.

Each example runs in a transaction that is rolled back at its end; after each step, the new
revision starts as the step's commit would start it (``revision.bump``).
"""

import itertools
import json
import os
import textwrap

import pytest
from django.core.management import call_command
from django.db import transaction
from hypothesis import HealthCheck, given, note
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from releases import public_log, publishing, revision, tracks
from releases.models import (
    Area,
    Companion,
    Feature,
    Link,
    PatchRelease,
    PublicChange,
    Release,
    ScheduleDate,
    StageClaim,
    Support,
    Track,
    UpgradeAPI,
    UpgradeNote,
    Webhook,
)
from releases.notifications import tasks, webhooks, worker

# 100 examples (hypothesis's default) in CI and make test, about four minutes a database;
# PUBLIC_MIRROR_EXAMPLES=20 for a quicker loop, more for a longer hunt.
EXAMPLES = int(os.environ.get("PUBLIC_MIRROR_EXAMPLES", "100"))

# Every string a step writes carries a token ("zq" and a number): a token that was never
# public must never appear in a public response.
POST = """\
---
title: 'PyTorch {version} Release'
date: 2030-01-{day:02d}
---

# {token} updates

## [Beta] Faster {token} kernels

Some words. [Documentation](https://example.org/{token}/docs)

## [Prototype] The {token} exporter

More words. [Tutorial](https://example.org/{token}/tutorial)
"""

ADDITION = """\
---
title: 'PyTorch {version} Release'
date: {date}
---

# Frontend APIs

## [Beta] A late {token} addition

Added later. [Docs](https://example.org/{token}/late)
"""

PAGES = [
    "/",
    "/releases/",
    "/tracks/",
    "/matrix/",
    "/features/",
    "/features/?search=zq",
    "/sitemap.xml",
    "/feeds/releases/",
    "/api/features/?facets=stability,area,release",
    "/api/features/?search=zq",
    "/api/features/?format=csv",
    "/api/links/?format=csv",
    "/api/tracks/?format=csv",
    "/api/releases/?format=csv",
    # Issue 33: upgrade notes, by API, on the checklist, the deprecations and in CSV.
    "/api/upgrade/?format=csv",
    "/api/upgrade/?api=zq",
    "/upgrade/?api=zq",
    "/deprecations/",
]


class Rollback(Exception):
    """Ends an example: everything it wrote is rolled back."""


class World:
    """One example's catalog: the steps, the mirror, and the tokens seen in public."""

    def __init__(self, client, tmp_path, receiver=None):
        self.client, self.tmp_path, self.receiver = client, tmp_path, receiver
        self.numbers = itertools.count(1)
        self.tokens, self.public_tokens = set(), set()
        self.before = None

    def start_receiving(self):
        """A webhook of every change, from now: what it receives must add up to the log."""
        # The log is read in order: the entries there are now, the receiver never gets.
        self.before = PublicChange.objects.count()
        self.receiver.posts.clear()  # the last example's
        webhooks.register(self.receiver.url("/mirror"), ["all"])

    def received(self):
        """
        The webhook's deliveries so far, as the change log's items, in the order sent: planned
        and sent by the worker's own task, called in this transaction (the task worker would
        close a connection it finds in one).
        """
        worker.plan()
        for webhook_id in Webhook.objects.values_list("pk", flat=True):
            while webhooks.next_due(webhook_id) is not None:
                assert tasks.deliver_webhook.call(webhook_id)
        return [json.loads(body) for path, _, body in self.receiver.posts if path == "/mirror"]

    def token(self):
        token = f"zq{next(self.numbers)}x"
        self.tokens.add(token)
        return token

    def write_post(self, text):
        path = self.tmp_path / f"post-{next(self.numbers)}.md"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return str(path)

    # --- the steps: each picks its object with ``pick`` and may do nothing ----------------------

    def import_draft(self, pick):
        number = next(self.numbers)
        post = POST.format(version=f"3.{number}", day=number % 28 + 1, token=self.token())
        call_command("import_post", self.write_post(post), verbosity=0)

    def edit_draft(self, pick):
        feature = pick(Feature.objects.filter(release__is_published=False))
        if feature:
            feature.title = f"{feature.title} {self.token()}"
            feature.summary = f"Edited {self.token()}"
            feature.save()

    def publish(self, pick):
        release = pick(Release.objects.drafts().with_checklist())
        if release:
            publishing.publish([release])

    def unpublish(self, pick):
        release = pick(Release.objects.published())
        if release:
            publishing.unpublish([release])

    def add_to_published(self, pick):
        release = pick(Release.objects.published())
        if release:
            post = ADDITION.format(
                version=release.version, date=release.release_date, token=self.token()
            )
            call_command("import_post", self.write_post(post), verbosity=0)

    def approve(self, pick):
        feature = pick(Feature.objects.awaiting_approval())
        if feature:
            Feature.objects.filter(pk=feature.pk).update(needs_approval=False)

    def delete(self, pick):
        feature = pick(Feature.objects.all())
        if feature:
            feature.delete()

    def rename(self, pick):
        track = pick(Track.objects.all())
        if track:
            token = self.token()
            track.name, track.slug = f"Renamed {token}", f"renamed-{token}"
            track.save()

    def merge(self, pick):
        feature, target = pick(Feature.objects.all()), pick(Track.objects.all())
        if feature and target and not tracks.merge_conflicts([feature], target):
            tracks.merge([feature], into=target)

    def split(self, pick):
        feature = pick(Feature.objects.all())
        if feature:
            tracks.split([feature])

    def revert(self, pick):
        edited = Feature.history.filter(history_type="~").values("id")
        feature = pick(Feature.objects.filter(pk__in=edited))
        if feature:
            first = feature.history.earliest("history_id")
            restored = first.instance
            # What simple-history's revert view saves: the record's fields, today's references.
            restored.release_id, restored.area_id = feature.release_id, feature.area_id
            if not Track.objects.filter(pk=restored.track_id).exists():
                restored.track_id = feature.track_id
            restored.save()

    def note(self, pick):
        """An imported upgrade note, waiting for review; a removal where a deprecation of an
        earlier release is there to complete."""
        release = pick(Release.objects.all())
        if release is None:
            return
        token, number = self.token(), next(self.numbers)
        earlier = pick(
            UpgradeNote.objects.filter(
                kind="deprecation", release__version_key__lt=release.version_key
            )
        )
        note = UpgradeNote.objects.create(
            release=release,
            slug=f"pr-{number}",
            kind="removal" if earlier else "deprecation",
            area=f"Area {token}",
            summary=f"The {token} API goes",
            removes=earlier,
            pull_requests=[number],
            needs_review=True,
        )
        UpgradeAPI.objects.create(note=note, name=f"zq.api.{token}")

    def review_note(self, pick):
        note = pick(UpgradeNote.objects.filter(needs_review=True))
        if note:
            note.needs_review = False
            note.save()

    def delete_note(self, pick):
        note = pick(UpgradeNote.objects.all())
        if note:
            note.delete()

    STEPS = [
        "note",
        "review_note",
        "delete_note",
        "import_draft",
        "edit_draft",
        "publish",
        "unpublish",
        "add_to_published",
        "approve",
        "delete",
        "rename",
        "merge",
        "split",
        "revert",
    ]

    # --- what the public sees ------------------------------------------------------------------

    def get(self, path, **params):
        response = self.client.get(path, params)
        assert response.status_code == 200, (path, response.content[:300])
        return response

    def listed(self, path):
        items, page = [], 1
        while True:
            response = self.get(path, page=page, page_size=100)
            self.seen.append(response.content.decode())
            body = response.json()
            items += body["results"]
            if not body["next"]:
                return items
            page += 1

    def changes(self):
        entries, body = [], self.get("/api/changes/", page_size=100).json()
        while True:
            entries += body["results"]
            if not body["next"]:
                return entries, body
            body = self.get("/api/changes/", cursor=body["cursor"], page_size=100).json()

    def check(self, deliver=True):
        """
        The mirror equals the public API, and no secret is in a public response; with
        ``deliver``, what a webhook of every change received makes the same mirror (delivered
        after some steps only, so that some deliveries gather several steps' changes).
        """
        self.seen = []
        entries, _ = self.changes()
        mirror = replay(entries)
        public = {
            "release": {
                (r["version"],): r["title"]
                for r in self.listed("/api/releases/?status=planned,latest,superseded")
            },
            "feature": {
                (f["release"], f["slug"]): (f["title"], f["stability"], f["track"], f["area"])
                for f in self.listed("/api/features/")
            },
            "link": {
                (link["release"], link["feature"], link["label"], link["url"] or "")
                for link in self.listed("/api/links/")
            },
            "track": {(t["slug"],): t["name"] for t in self.listed("/api/tracks/")},
            "area": {(a["slug"],): a["name"] for a in self.listed("/api/areas/")},
        }
        mirrored = {
            "release": {key: v["title"] for key, v in mirror["release"].items()},
            "feature": {
                key: (v["title"], v["stability"] or None, v["track"][0], v["area"][0])
                for key, v in mirror["feature"].items()
            },
            "link": set(mirror["link"]),
            "track": {key: v["name"] for key, v in mirror["track"].items()},
            "area": {key: v["name"] for key, v in mirror["area"].items()},
        }
        assert mirrored == public
        if self.before is not None and deliver:  # a webhook receiver holds the same mirror
            assert replay(entries[: self.before] + self.received()) == mirror
        claims = {tuple(c.natural_key()) for c in StageClaim.objects.published()}
        assert set(mirror["claim"]) == claims
        # What releases run on and pair with (issue 32): the same rule, the same log.
        for model in (Support, Companion, PatchRelease, ScheduleDate, UpgradeNote, UpgradeAPI):
            rows = {tuple(row.natural_key()) for row in model.objects.published()}
            assert set(mirror[model.public.type]) == rows, model.public.type
        notes = {(item["release"], item["slug"]) for item in self.listed("/api/upgrade/")}
        assert notes == {key[-2:] for key in mirror["upgrade"]}
        self.public_tokens |= {token for token in self.tokens if token in published_text()}
        secrets = self.tokens - self.public_tokens
        body = json.dumps(entries) + "".join(self.seen)
        assert not [secret for secret in secrets if secret in body]

    def check_every_surface(self):
        secrets = self.tokens - self.public_tokens
        paths = list(PAGES)
        for release in Release.objects.published().newest_first()[:2]:
            paths += [f"/releases/{release.version}/", f"/api/releases/{release.version}/"]
        for track in Track.objects.published().order_by("-pk")[:2]:
            paths += [f"/tracks/{track.slug}/", f"/feeds/tracks/{track.slug}/"]
        for path in paths:
            body = b"".join(self.get(path)) if "csv" in path else self.get(path).content
            leaked = [secret for secret in secrets if secret in body.decode()]
            assert not leaked, (path, leaked)
        for draft in Release.objects.drafts():
            for path in (f"/releases/{draft.version}/", f"/api/releases/{draft.version}/"):
                response = self.client.get(path)
                never = self.client.get(path.replace(draft.version, "9.99"))
                assert response.status_code == never.status_code == 404
                assert draft.version not in response.content.decode()


def published_text():
    """Every string the rule (each model's ``published()``) lets the public see."""
    texts = [
        *Release.objects.published().values_list("title", "summary", "highlights"),
        *Feature.objects.published().values_list("title", "slug", "summary"),
        *Link.objects.published().values_list("label", "url"),
        *Track.objects.published().values_list("name", "slug", "description"),
        *Area.objects.published().values_list("name", "slug"),
        *UpgradeNote.objects.published().values_list("area", "summary"),
        *UpgradeAPI.objects.published().values_list("name", flat=True),
    ]
    return repr(texts)


def replay(entries):
    """A mirror: every entry applied in order to a dict of objects by natural key."""
    mirror = {kind: {} for kind in public_log.types()}
    for entry in entries:
        objects, key = mirror[entry["type"]], tuple(entry["key"])
        known = key in objects
        if entry["previous_key"]:
            known = objects.pop(tuple(entry["previous_key"]), None) is not None or known
        # Only what was announced is updated or deleted; only what was not is created.
        assert known == (entry["action"] != "created"), entry
        if entry["action"] == "deleted":
            del objects[key]
        else:
            objects[key] = entry["object"]
    for key, feature in mirror["feature"].items():  # no dangling reference
        assert (key[0],) in mirror["release"] and tuple(feature["track"]) in mirror["track"]
    for key in mirror["link"]:
        assert key[:2] in mirror["feature"]
    return mirror


@pytest.fixture
def world(db, client, tmp_path, settings, stand_in):
    # Three releases of the real fixtures: enough of every kind of object (2.9 with its upgrade
    # notes, whose deprecations the "note" step's removals complete), small enough to keep 100
    # examples within a few minutes.
    releases = ["1.8", "1.9", "2.9"]
    call_command("load_catalog", *(f"--release={v}" for v in releases), verbosity=0)
    settings.API_PAGE_CACHE_SECONDS = 0
    return lambda: World(client, tmp_path, stand_in)


@hypothesis_settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(st.sampled_from(World.STEPS), min_size=1, max_size=6),
    data=st.data(),
)
def test_a_mirror_of_the_change_log_is_the_public_catalog(world, steps, data):
    note(f"steps: {steps}")
    state = world()

    def pick(queryset):
        objects = list(queryset.order_by("pk")[:50])
        if not objects:
            return None
        return objects[data.draw(st.integers(0, len(objects) - 1))]

    try:
        with transaction.atomic():
            state.start_receiving()
            for index, step in enumerate(steps):
                with transaction.atomic():
                    getattr(state, step)(pick)
                revision.bump()  # what the step's commit runs (revision.catalog_changed)
                state.check(deliver=index == len(steps) - 1 or data.draw(st.booleans()))
            state.check_every_surface()
            raise Rollback
    except Rollback:
        pass


def test_the_mirror_check_notices_a_write_the_log_missed(world):
    """The property's own check fails when the public API shows what the log never said."""
    state = world()
    state.import_draft(None)
    state.check()
    draft = Feature.objects.filter(release__is_published=False).first()
    # A link of a draft moved to a published feature behind the write path's back.
    published = Feature.objects.published().first()
    Link._base_manager.filter(feature=draft).update(feature=published)
    revision.bump()
    with pytest.raises(AssertionError):
        state.check()


def test_a_claim_leaves_with_the_last_public_appearance_of_its_track(world):
    """Found by the property: unpublishing 1.8 hides a 1.9 claim whose track had its last
    public appearance in 1.8 (the 1.9 feature of that track deleted first)."""
    state = world()
    claim = StageClaim.objects.published().get(release__version="1.9", subject="Mobile Interpreter")
    claim.feature.delete()
    revision.bump()
    state.check()
    publishing.unpublish([Release.objects.get(version="1.8")])
    revision.bump()
    state.check()
    assert not StageClaim.objects.published().filter(pk=claim.pk).exists()
