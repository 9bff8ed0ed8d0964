"""
The stage claim admin: the stages a post states in prose, read by the importer, accepted or
rejected by an editor, alone or in bulk (releases.stages).
"""

from django.contrib import admin, messages

from releases import stages
from releases.admin.history import CatalogAdmin
from releases.models import ClaimStatus, StageClaim
from releases.writes import acting_as


@admin.register(StageClaim)
class StageClaimAdmin(CatalogAdmin):
    """
    Stages a post states in prose. Pending claims change nothing: accepting one makes it an
    appearance of its track at that stage in its release; rejecting an accepted one takes
    that appearance back.
    """

    list_display = ["subject", "stability", "status", "release", "line", "track"]
    list_filter = ["status", ("release", admin.RelatedOnlyFieldListFilter), "stability"]
    list_select_related = ["release", "track"]
    search_fields = ["subject", "phrase", "track__name", "feature__title"]
    ordering = ["-release__version_key", "line", "subject"]
    autocomplete_fields = ["track", "feature"]
    readonly_fields = ["release", "subject", "stability", "phrase", "line", "status"]
    fields = [
        "release",
        "subject",
        "stability",
        "phrase",
        "line",
        "track",
        "feature",
        "status",
    ]
    actions = ["accept_claims", "reject_claims"]

    def has_add_permission(self, request):
        return False  # claims come from posts; an editor states a stage on the feature itself

    def _decide(self, request, queryset, decide, verb):
        done, refused = 0, []
        with acting_as(f"{verb} in the admin", request.user):
            for claim in queryset.select_related("release"):
                try:
                    decide(claim)
                    done += 1
                except stages.CannotDecide as error:
                    refused.append(str(error))
        if done:
            self.message_user(request, f"{verb.capitalize()} {done} claim(s).", messages.SUCCESS)
        for message in refused:
            self.message_user(request, message, messages.ERROR)

    @admin.action(description="Accept (an appearance at the claimed stage)", permissions=["change"])
    def accept_claims(self, request, queryset):
        self._decide(
            request, queryset.exclude(status=ClaimStatus.ACCEPTED), stages.accept, "accepted"
        )

    @admin.action(description="Reject", permissions=["change"])
    def reject_claims(self, request, queryset):
        self._decide(
            request, queryset.exclude(status=ClaimStatus.REJECTED), stages.reject, "rejected"
        )
