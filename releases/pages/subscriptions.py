"""
The pages where a person asks to be told of changes (``/subscribe/``), confirms it from the
mail, and leaves (``/unsubscribe/<token>/``, which a mail client may also POST to in one click,
RFC 8058). These take forms, so they are on the FORM surface: never cached, CSRF-checked (but
the one-click unsubscribe, which the signed link authorises); sign-ups are throttled per client
where their URL is declared (SUBSCRIBE_RATE) and per address (SUBSCRIBE_RESEND_SECONDS).
"""

from django import forms
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from releases import topics
from releases.models import EmailSubscription
from releases.notifications import email as mail
from releases.notifications import worker

CHOICES = [
    (topics.RELEASES, "New releases and patches"),
    (topics.COMPATIBILITY, "What releases run on and pair with (platforms, wheels, companions)"),
    (topics.SCHEDULE, "The release schedule: planned dates added or moved"),
    (topics.ALL, "Everything the catalog publishes"),
]


class SubscribeForm(forms.Form):
    email = forms.CharField(max_length=254, label="Your email address")
    topics = forms.MultipleChoiceField(
        choices=CHOICES, required=False, widget=forms.CheckboxSelectMultiple, label="Tell me about"
    )
    more = forms.CharField(
        required=False,
        max_length=2000,
        label="More topics",
        help_text="One a line: track:SLUG (a capability, e.g. track:flexattention), "
        "api:PREFIX (upgrade notes about APIs under it, e.g. api:torch.jit), releases:2.x or "
        "releases:2.14 (one line or one minor).",
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    frequency = forms.ChoiceField(
        choices=EmailSubscription.Frequency.choices,
        initial=EmailSubscription.Frequency.WEEKLY,
        widget=forms.RadioSelect,
        label="How often",
    )

    def clean_email(self):
        return mail.normal_address(self.cleaned_data["email"])

    def clean(self):
        cleaned = super().clean()
        asked = list(cleaned.get("topics") or []) + (cleaned.get("more") or "").split()
        try:
            cleaned["chosen"] = topics.parse_all(asked)
        except topics.BadTopic as error:
            self.add_error("more" if cleaned.get("more") else "topics", str(error))
        return cleaned


@require_http_methods(["GET", "HEAD", "POST"])
def subscribe(request):
    """The sign-up form; a sign-up mails a confirmation link (nothing else until it is used)."""
    if request.method != "POST":
        preset = request.GET.get("topic", "")
        initial = {}
        if preset:
            try:
                parsed = str(topics.parse(preset))
            except topics.BadTopic:
                parsed = ""
            known = dict(CHOICES)
            initial = {"topics": [parsed]} if parsed in known else {"more": parsed}
        return render(
            request, "notifications/subscribe.html", {"form": SubscribeForm(initial=initial)}
        )
    form = SubscribeForm(request.POST)
    if not form.is_valid():
        return render(request, "notifications/subscribe.html", {"form": form}, status=400)
    data = form.cleaned_data
    worker.sign_up(data["email"], data["chosen"], data["frequency"])
    return render(request, "notifications/check_inbox.html", {"address": data["email"]})


@require_http_methods(["GET", "HEAD", "POST"])
def confirm(request, token):
    """A confirmation link: the page asks for one click (a mail scanner's GET changes nothing)."""
    try:
        address, chosen, frequency = mail.read_confirmation(token)
        if request.method == "POST":
            mail.confirm(token)
            return render(
                request,
                "notifications/confirmed.html",
                {"address": address, "topics": chosen, "frequency": frequency},
            )
    except mail.BadLink as error:
        return render(request, "notifications/bad_link.html", {"problem": str(error)}, status=400)
    return render(
        request,
        "notifications/confirm.html",
        {"address": address, "topics": chosen, "frequency": frequency},
    )


@csrf_exempt  # RFC 8058: a mail client POSTs without a session; the signed token authorises
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request, token):
    """An unsubscribe link: a page with one button, or a mail client's one-click POST."""
    if request.method != "POST":
        try:
            mail.read_unsubscribe(token)
        except mail.BadLink as error:
            return render(
                request, "notifications/bad_link.html", {"problem": str(error)}, status=400
            )
        return render(request, "notifications/unsubscribe.html", {})
    try:
        subscription = mail.unsubscribe(token)
    except mail.BadLink as error:
        return render(request, "notifications/bad_link.html", {"problem": str(error)}, status=400)
    return render(request, "notifications/unsubscribed.html", {"address": subscription.email})
