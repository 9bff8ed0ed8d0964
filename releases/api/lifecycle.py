"""
Which versions go together, for scripts: /api/check/ (is this environment a supported
combination?) and /api/lifecycle/pytorch.json (the release cycles, as endoflife.date shapes
them). Thin: the answers come from the query layer (releases.queries.check) and the catalog's
QuerySets.
"""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from releases.api.schema import form_parameters
from releases.models import Release
from releases.queries.check import CheckForm, check
from releases.queries.params import reject_bad_query

VERDICTS = ["supported", "unsupported", "experimental", "unknown"]

CHECK_RESPONSE = inline_serializer(
    "Check",
    {
        "torch": serializers.CharField(allow_null=True),
        "release": serializers.CharField(
            allow_null=True, help_text="The minor release of torch, where the catalog has it."
        ),
        "verdict": serializers.ChoiceField(
            choices=VERDICTS, allow_null=True, help_text="The worst of the checks."
        ),
        "checks": inline_serializer(
            "CheckPair",
            {
                "parameter": serializers.CharField(),
                "value": serializers.CharField(),
                "verdict": serializers.ChoiceField(choices=VERDICTS),
                "reason": serializers.CharField(),
                "disputed": serializers.CharField(allow_null=True),
                "source": inline_serializer(
                    "CheckSource",
                    {"url": serializers.URLField(), "line": serializers.IntegerField()},
                    allow_null=True,
                ),
            },
            many=True,
        ),
        "alternatives": inline_serializer(
            "CheckAlternative",
            {
                "for": serializers.CharField(),
                "torch": serializers.ListField(child=serializers.CharField()),
                "newest": serializers.CharField(allow_null=True),
                "oldest": serializers.CharField(allow_null=True),
                "experimental": serializers.ListField(child=serializers.CharField()),
            },
            many=True,
        ),
        "runs_on": inline_serializer(
            "RunsOn",
            {
                name: serializers.ListField(child=serializers.CharField())
                for name in ("python", "cuda", "rocm")
            },
            allow_null=True,
        ),
    },
)


class CheckView(APIView):
    """
    Whether torch goes with a Python, CUDA, ROCm or companion library version: a verdict per
    pair (supported, unsupported, experimental, unknown), its reason and source, and the
    torch versions that do support each one given. Any subset of the parameters.
    """

    @extend_schema(
        operation_id="check", parameters=form_parameters(CheckForm), responses=CHECK_RESPONSE
    )
    def get(self, request):
        form = CheckForm(request.query_params)
        errors = None if form.is_valid() else form.errors
        reject_bad_query(request.query_params, {*form.fields, "format"}, errors)
        return Response(check(form.cleaned_data))


LIFECYCLE_RESPONSE = inline_serializer(
    "ReleaseCycle",
    {
        "cycle": serializers.CharField(),
        "releaseDate": serializers.DateField(),
        "latest": serializers.CharField(),
        "latestReleaseDate": serializers.DateField(),
        "eol": serializers.JSONField(help_text="The date it stopped being patched, or false."),
        "support": serializers.JSONField(help_text="As eol: PyTorch patches the latest only."),
        "lts": serializers.BooleanField(),
        "link": serializers.URLField(allow_null=True),
    },
    many=True,
)


class LifecycleView(APIView):
    """
    Every minor release out, newest first, as endoflife.date's release cycles: its latest
    patch, and the day it stopped being patched (the next minor's release: PyTorch patches
    only the latest), or false for the latest.
    """

    @extend_schema(operation_id="lifecycle_pytorch", responses=LIFECYCLE_RESPONSE)
    def get(self, request):
        reject_bad_query(request.query_params, {"format"})
        releases = list(Release.objects.released().with_compatibility().newest_first())
        cycles, following = [], None
        for release in releases:
            patches = [p for p in release.public_patches if p.release_date]
            latest = patches[-1] if patches else None
            ended = following.release_date.isoformat() if following else False
            cycles.append(
                {
                    "cycle": release.version,
                    "releaseDate": release.release_date.isoformat(),
                    "latest": latest.version if latest else f"{release.version}.0",
                    "latestReleaseDate": (latest or release).release_date.isoformat(),
                    "eol": ended,
                    "support": ended,
                    "lts": False,
                    "link": release.announcement_url or None,
                }
            )
            following = release
        return Response(cycles)
