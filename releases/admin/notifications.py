"""
Notifications in the admin: webhooks (register with topics, a secret shown once; resume one
the worker paused), each one's delivery log (resend a delivery), email subscriptions and the
digests sent. Every change to these, by an editor or the worker, is in their history.
"""

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, Q
from django.urls import reverse
from django.utils.html import format_html
from simple_history.admin import SimpleHistoryAdmin

from releases.models import EmailDigest, EmailSubscription, Webhook, WebhookDelivery
from releases.notifications import addresses, webhooks
from releases.topics import BadTopic, parse_all


class TopicsField(forms.CharField):
    """Topics one a line (releases.topics), stored as a list."""

    widget = forms.Textarea(attrs={"rows": 4})

    def prepare_value(self, value):
        return "\n".join(value) if isinstance(value, list) else value

    def clean(self, value):
        text = super().clean(value)
        try:
            return parse_all(text.split())
        except BadTopic as error:
            raise forms.ValidationError(str(error)) from None


class WebhookForm(forms.ModelForm):
    url = forms.URLField(
        max_length=500, assume_scheme="https", help_text=Webhook._meta.get_field("url").help_text
    )
    topics = TopicsField(help_text=Webhook._meta.get_field("topics").help_text)

    class Meta:
        model = Webhook
        fields = ["url", "description", "topics", "is_active"]

    def clean_url(self):
        url = self.cleaned_data["url"]
        try:
            addresses.resolve(url)
        except addresses.Refused as error:
            raise forms.ValidationError(str(error)) from None
        return url


class PausedFilter(admin.SimpleListFilter):
    title = "paused"
    parameter_name = "is_paused"

    def lookups(self, request, model_admin):
        return [("yes", "Paused after failures"), ("no", "Sending")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(paused_at__isnull=self.value() == "no")
        return queryset


@admin.register(Webhook)
class WebhookAdmin(SimpleHistoryAdmin):
    form = WebhookForm
    list_display = [
        "url",
        "topic_list",
        "is_active",
        "paused_at",
        "consecutive_failures",
        "waiting",
        "log",
    ]
    list_filter = ["is_active", PausedFilter]
    search_fields = ["url", "description"]
    ordering = ["url", "id"]
    readonly_fields = ["paused_at", "consecutive_failures", "last_error", "cursor", "created_at"]
    actions = ["resume"]

    def get_queryset(self, request):
        pending = Q(deliveries__status=WebhookDelivery.Status.PENDING)
        return (
            super()
            .get_queryset(request)
            .annotate(waiting_count=Count("deliveries", filter=pending))
        )

    @admin.display(description="topics")
    def topic_list(self, webhook):
        return ", ".join(webhook.topics)

    @admin.display(description="waiting", ordering="waiting_count")
    def waiting(self, webhook):
        return webhook.waiting_count

    @admin.display(description="delivery log")
    def log(self, webhook):
        url = (
            reverse("admin:releases_webhookdelivery_changelist")
            + f"?webhook__id__exact={webhook.pk}"
        )
        return format_html('<a href="{}">deliveries</a>', url)

    def save_model(self, request, obj, form, change):
        if not change:
            obj.secret = webhooks.draw_secret()
            obj.cursor = webhooks.changes.head()  # it follows what changes from now on
        super().save_model(request, obj, form, change)
        if not change:
            messages.warning(
                request,
                f"The secret of {obj.url}, shown this once: {obj.secret} "
                "(the receiver verifies X-Catalog-Signature with it).",
            )

    @admin.action(
        description="Resume the selected webhooks (send what waits)", permissions=["change"]
    )
    def resume(self, request, queryset):
        for webhook in queryset:
            webhooks.resume(webhook)
        self.message_user(request, f"{queryset.count()} resumed: the worker sends what waits.")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(SimpleHistoryAdmin):
    list_display = [
        "created_at",
        "webhook",
        "event",
        "status",
        "attempts",
        "response_status",
        "error",
        "delivered_at",
    ]
    list_filter = ["status", "webhook"]
    list_select_related = ["webhook"]
    search_fields = ["event", "uuid"]
    ordering = ["-change_id", "webhook"]
    readonly_fields = [
        "uuid", "webhook", "change", "event", "status", "attempts", "next_attempt_at",
        "last_attempt_at", "delivered_at", "response_status", "error", "created_at", "shown_body",
    ]  # fmt: skip
    exclude = ["body"]
    actions = ["resend"]

    def has_add_permission(self, request):
        return False

    @admin.display(description="body")
    def shown_body(self, delivery):
        return format_html("<pre>{}</pre>", delivery.body)

    @admin.action(description="Resend the selected deliveries (same id)", permissions=["change"])
    def resend(self, request, queryset):
        for delivery in queryset:
            delivery._change_reason = f"resent by {request.user}"
            webhooks.resend(delivery)
        self.message_user(request, f"{queryset.count()} queued again: the worker sends them.")


class SubscriptionForm(forms.ModelForm):
    topics = TopicsField(help_text=EmailSubscription._meta.get_field("topics").help_text)

    class Meta:
        model = EmailSubscription
        fields = ["topics", "frequency"]


@admin.register(EmailSubscription)
class EmailSubscriptionAdmin(SimpleHistoryAdmin):
    form = SubscriptionForm
    list_display = ["email", "frequency", "confirmed_at", "unsubscribed_at", "last_digest_at"]
    list_filter = [
        "frequency",
        ("confirmed_at", admin.EmptyFieldListFilter),
        ("unsubscribed_at", admin.EmptyFieldListFilter),
    ]
    search_fields = ["email"]
    ordering = ["email"]
    readonly_fields = [
        "email",
        "confirmed_at",
        "confirmation_sent_at",
        "unsubscribed_at",
        "last_digest_at",
        "cursor",
    ]

    def has_add_permission(self, request):
        return False  # people sign up at /subscribe/ and confirm it themselves


@admin.register(EmailDigest)
class EmailDigestAdmin(SimpleHistoryAdmin):
    list_display = ["sent_at", "subscription", "items", "first_change", "last_change"]
    list_select_related = ["subscription"]
    search_fields = ["subscription__email"]
    ordering = ["-sent_at", "-id"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
