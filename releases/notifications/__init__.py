"""
Notifications: people told of the catalog's changes, from the public change log
(releases.public_log), never from the catalog itself, so that nothing a draft holds is ever
sent.

* ``changes``: what a subscription has not read yet, one net change an object, in its topics;
* ``addresses``: which webhook targets may be called (public https only, unless
  WEBHOOK_ALLOW_PRIVATE), checked when an endpoint is registered and again when it is called;
* ``webhooks``: signed POSTs, retries with growing delays, pauses after repeated failures;
* ``email``: confirmation, digests and one-click unsubscribe links, signed;
* ``tasks`` and ``worker``: Django's Tasks (the django-tasks backport, its database backend)
  run the deliveries; ``worker.plan`` turns new log entries into due work.

docs/notifications.md is the reference.
"""
