"""Misago 0.39.6's own devproject settings (shipped in its wheel), pointed at the harness's
PostgreSQL database, without Celery's broker (tasks run inline) and with a local cache.

MISAGO_DB names the database (each server runs on its own copy of the template).
"""
import os

from devproject.settings import *  # noqa: F401,F403

DEBUG = False
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("MISAGO_DB", "misago_template"),
        "USER": os.environ.get("MISAGO_DB_USER", "postgres"),
        "HOST": os.environ.get("MISAGO_DB_HOST", "127.0.0.1"),
        "PORT": int(os.environ.get("MISAGO_DB_PORT", "5432")),
    }
}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
CELERY_BROKER_URL = None
CELERY_TASK_ALWAYS_EAGER = True
DEBUG_TOOLBAR_CONFIG = {"SHOW_TOOLBAR_CALLBACK": lambda request: False}
INTERNAL_IPS = []
MIDDLEWARE = [m for m in MIDDLEWARE if "debug_toolbar" not in m]  # noqa: F405
PASSWORD_HASHERS = ("django.contrib.auth.hashers.MD5PasswordHasher",)
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
MISAGO_NEW_REGISTRATIONS_VALIDATORS = ()
ROOT_URLCONF = "devproject.urls"
STATIC_ROOT = os.path.join(os.path.dirname(os.path.dirname(__file__)), "site", "static")
MEDIA_ROOT = os.path.join(os.path.dirname(os.path.dirname(__file__)), "site", "media")
MISAGO_USER_DATA_DOWNLOADS_WORKING_DIR = os.path.join(os.path.dirname(MEDIA_ROOT), "userdata")
