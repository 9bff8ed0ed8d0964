"""
Which versions go together, for scripts: /api/check/ (is this environment a supported
combination?) and /api/lifecycle/pytorch.json (the release cycles, as endoflife.date shapes
them). Thin: the answers come from the query layer (releases.queries.check) and the catalog's
QuerySets.
"""

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from releases.api.schema import form_parameters
from releases.models import Release
from releases.queries.check import VERDICTS, CheckForm, check
from releases.queries.install import InstallForm, NoWheel, install
from releases.queries.params import reject_bad_query
from releases.queries.wheels import PUBLISHED_VERDICTS


def torch_versions(name, *, asked, listed, help_text):
    """The shape of an answer that lists torch versions for what was asked, newest first."""
    return inline_serializer(
        name,
        {
            "for": serializers.CharField(help_text=asked),
            "torch": serializers.ListField(child=serializers.CharField(), help_text=listed),
            "newest": serializers.CharField(allow_null=True),
        },
        allow_null=True,
        help_text=help_text,
    )


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
        "published": inline_serializer(
            "CheckPublished",
            {
                "verdict": serializers.ChoiceField(
                    choices=PUBLISHED_VERDICTS,
                    help_text="Whether a wheel was published for the build asked about (python, "
                    "os, arch, variant): measured, apart from documented support.",
                ),
                "reason": serializers.CharField(),
                "wheels": serializers.ListField(child=serializers.DictField()),
                "nearest": serializers.ListField(
                    child=serializers.DictField(),
                    help_text="The nearest combinations that have a wheel.",
                ),
            },
            allow_null=True,
        ),
        "runs_on": inline_serializer(
            "RunsOn",
            {
                name: serializers.ListField(child=serializers.CharField())
                for name in ("python", "cuda", "rocm")
            },
            allow_null=True,
        ),
        "together": torch_versions(
            "CheckTogether",
            asked="The platforms given: Python 3.9 with CUDA 11.8.",
            listed="Torch versions with stable builds for them all, newest first.",
            help_text="With two platforms or more: the torch versions that have them all.",
        ),
        "built_for": torch_versions(
            "CheckBuiltFor",
            asked="The build asked about: windows-amd64.",
            listed="Torch versions with a wheel published for it, newest first.",
            help_text="Without torch: the torch versions published for the build given.",
        ),
        "pairs_with": inline_serializer(
            "CheckPairing",
            {
                "library": serializers.CharField(),
                "version": serializers.CharField(),
                "torch": serializers.CharField(help_text="The torch version it is paired with."),
                "source": inline_serializer(
                    "CheckPairingSource",
                    {"url": serializers.URLField(), "line": serializers.IntegerField()},
                    allow_null=True,
                ),
            },
            many=True,
            allow_null=True,
            help_text="The companions paired with torch: a patch's own, a minor's X.Y.0 ones.",
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


INSTALL_RESPONSE = inline_serializer(
    "Install",
    {
        "torch": serializers.CharField(help_text="The exact torch version installed."),
        "release": serializers.CharField(),
        "variant": serializers.CharField(),
        "python": serializers.CharField(allow_null=True),
        "os": serializers.CharField(allow_null=True),
        "arch": serializers.CharField(allow_null=True),
        "index_url": serializers.URLField(help_text="The index the wheels come from."),
        "packages": serializers.ListField(
            child=serializers.CharField(), help_text="torch and its paired companions, pinned."
        ),
        "pip": serializers.CharField(help_text="The command for pip."),
        "uv": serializers.CharField(help_text="The command for uv."),
        "evidence": serializers.ChoiceField(
            choices=["index", "install_page", "documented_support"],
            help_text="How the catalog knows the wheel exists: read from the index, an install "
            "command PyTorch published, or only the documented CUDA/ROCm support.",
        ),
        "sources": serializers.ListField(child=serializers.DictField()),
    },
)


# A 400 of /api/install/: each bad parameter with what is wrong, as every 400 names them, and
# where no wheel matches, the nearest combinations that have one.
INSTALL_ERRORS = OpenApiResponse(
    description="A parameter is unknown or malformed, or no wheel matches: each named, with "
    "the nearest combinations that have a wheel.",
    response={
        "type": "object",
        "properties": {
            "nearest": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        name: {"type": "string", "nullable": name == "python"}
                        for name in ("torch", "variant", "platform", "python")
                    },
                },
            }
        },
        "additionalProperties": {"type": "array", "items": {"type": "string"}},
    },
)


class InstallView(APIView):
    """
    The exact command that installs a torch version (a minor: its newest) with its paired
    torchvision and torchaudio, for pip and for uv, from the wheels the catalog recorded; a
    400 naming what has no wheel, with the nearest combinations that have one.
    """

    @extend_schema(
        operation_id="install",
        parameters=form_parameters(InstallForm),
        responses={200: INSTALL_RESPONSE, 400: INSTALL_ERRORS},
    )
    def get(self, request):
        form = InstallForm(request.query_params)
        errors = None if form.is_valid() else form.errors
        reject_bad_query(request.query_params, {*form.fields, "format"}, errors)
        try:
            return Response(install(form.cleaned_data))
        except NoWheel as missing:
            # As every 400 names its parameters, with the nearest builds beside them.
            return Response({**missing.errors, "nearest": missing.nearest}, status=400)


LIFECYCLE_RESPONSE = inline_serializer(
    "ReleaseCycle",
    {
        "cycle": serializers.CharField(),
        "releaseDate": serializers.DateField(),
        "latest": serializers.CharField(),
        "latestReleaseDate": serializers.DateField(
            allow_null=True, help_text="Null where the latest patch's day is not known yet."
        ),
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
    only the latest), or false for the latest; a long-term-support line (1.8) is `lts`, its
    `eol` the day that support ended.
    """

    @extend_schema(operation_id="lifecycle_pytorch", responses=LIFECYCLE_RESPONSE)
    def get(self, request):
        reject_bad_query(request.query_params, {"format"})
        releases = list(Release.objects.released().with_compatibility().newest_first())
        cycles, following = [], None
        for release in releases:
            patches = release.public_patches
            latest = patches[-1] if patches else None
            # Ended when the next minor came out: on its day, or true where its day is unknown.
            ended = following is not None
            if following is not None and following.release_date:
                ended = following.release_date.isoformat()
            shipped = (latest or release).release_date
            following = release
            if release.release_date is None:
                continue  # out, its day not known yet: a cycle needs its release date
            cycles.append(
                {
                    "cycle": release.version,
                    "releaseDate": release.release_date.isoformat(),
                    "latest": latest.version if latest else f"{release.version}.0",
                    "latestReleaseDate": shipped and shipped.isoformat(),
                    # A long-term-support line lived on past the next minor, to its own end.
                    "eol": lts_end(release, ended),
                    "support": ended,
                    "lts": release.is_lts,
                    "link": release.announcement_url or None,
                }
            )
        return Response(cycles)


def lts_end(release, ended):
    """The end of a release's life: its long-term support's end, where it had one."""
    if not release.is_lts:
        return ended
    return release.lts_ended_date.isoformat() if release.lts_ended_date else False
