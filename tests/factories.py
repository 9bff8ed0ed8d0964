"""factory_boy factories for the catalog's models."""

import datetime as dt

import factory

from releases.models import Area, AreaAlias, Feature, Link, LinkKind, Release, Stability


class ReleaseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Release
        django_get_or_create = ("version",)

    version = factory.Sequence(lambda n: f"3.{n}")
    title = factory.LazyAttribute(lambda release: f"PyTorch {release.version} is out")
    release_date = factory.Sequence(lambda n: dt.date(2030, 1, 1) + dt.timedelta(days=n))
    announcement_url = factory.LazyAttribute(
        lambda release: f"https://example.org/blog/pytorch-{release.version}/"
    )
    summary = "A release made up for the tests."
    is_published = True


class AreaFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Area
        django_get_or_create = ("slug",)

    name = factory.Sequence(lambda n: f"Area {n}")
    slug = factory.Sequence(lambda n: f"area-{n}")


class AreaAliasFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = AreaAlias

    area = factory.SubFactory(AreaFactory)
    name = factory.Sequence(lambda n: f"Alias {n}")


class FeatureFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Feature

    release = factory.SubFactory(ReleaseFactory)
    title = factory.Sequence(lambda n: f"Feature number {n}")
    slug = factory.Sequence(lambda n: f"feature-number-{n}")
    stability = Stability.BETA
    area = factory.SubFactory(AreaFactory)
    summary = "Does something useful."
    position = factory.Sequence(lambda n: n + 1)


class LinkFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Link

    feature = factory.SubFactory(FeatureFactory)
    kind = LinkKind.DOCUMENTATION
    label = "Documentation"
    url = factory.Sequence(lambda n: f"https://example.org/docs/{n}.html")
    position = factory.Sequence(lambda n: n + 1)
