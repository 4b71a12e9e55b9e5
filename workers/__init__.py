"""Celery workers: the app (``workers.celery_app``), thin tasks (``workers.tasks``), locks.

Run: ``celery -A workers.celery_app worker`` and ``celery -A workers.celery_app beat``
(or ``pbp serve`` for everything in one command on the embedded default).
"""
