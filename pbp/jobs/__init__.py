"""What the workers' tasks call: the state of polling, topic-list watching and delivery.

Why a package of its own, above ``rounds`` and ``sources``: a Celery task should take ids
and make one call (warehouse's thin tasks), and the state it used to write itself — a
thread's cursor, last poll, error count and next poll; a listing's last state; a reply's
attempts, error and next try — needs tests against a real database without a broker.
Functions here take a Session (the caller owns the transaction) or, where a network call
must happen between two transactions, :class:`~pbp.jobs.resources.Resources`
(settings, engine, leases). Nothing here knows Celery: retrying is the caller's, told
how long to wait.

* :mod:`.schedule` — backoff and jitter
* :mod:`.threads` — polling one thread; the last poll before a round is resolved
* :mod:`.listings` — forum topic lists (one request tells which threads grew)
* :mod:`.delivery` — the outbox's delivery attempts and what the sweep finds due
"""
