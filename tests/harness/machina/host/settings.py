"""Host project for django-machina, test harness only (SQLite, DEBUG, fixed secret).

Environment switches (read once at start):
MACHINA_DB      the SQLite file (each test server runs on its own copy of the template)
MACHINA_ETAG    "1": add Django's ConditionalGetMiddleware (ETag + 304 on topic pages);
                stock machina, like most real forums, sends no validators.
MACHINA_FLOOD   seconds: answer a second reply within that time with an HTML 429 page.
"""
import os

from machina import MACHINA_MAIN_STATIC_DIR, MACHINA_MAIN_TEMPLATE_DIR

HERE = os.path.dirname(os.path.abspath(__file__))
SITE = os.path.join(os.path.dirname(HERE), "site")
SECRET_KEY = "harness-only"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.admin", "django.contrib.auth", "django.contrib.contenttypes",
    "django.contrib.sessions", "django.contrib.messages", "django.contrib.staticfiles",
    "mptt", "haystack", "widget_tweaks",
    "machina", "machina.apps.forum", "machina.apps.forum_conversation",
    "machina.apps.forum_conversation.forum_attachments",
    "machina.apps.forum_conversation.forum_polls",
    "machina.apps.forum_feeds", "machina.apps.forum_moderation", "machina.apps.forum_search",
    "machina.apps.forum_tracking", "machina.apps.forum_member", "machina.apps.forum_permission",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "host.flood.FloodControlMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "machina.apps.forum_permission.middleware.ForumPermissionMiddleware",
]
if os.environ.get("MACHINA_ETAG") == "1":
    MIDDLEWARE.insert(1, "django.middleware.http.ConditionalGetMiddleware")
MACHINA_FLOOD = float(os.environ.get("MACHINA_FLOOD", "0") or 0)
ROOT_URLCONF = "host.urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [os.path.join(HERE, "templates"), MACHINA_MAIN_TEMPLATE_DIR],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.debug", "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
        "machina.core.context_processors.metadata"]},
}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3",
                         "NAME": os.environ.get("MACHINA_DB", os.path.join(SITE, "template.sqlite3")),
                         "OPTIONS": {"timeout": 20}}}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
          "machina_attachments": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
HAYSTACK_CONNECTIONS = {"default": {"ENGINE": "haystack.backends.simple_backend.SimpleEngine"}}
STATIC_URL = "/static/"
STATIC_ROOT = os.path.join(SITE, "static")
STATICFILES_DIRS = [MACHINA_MAIN_STATIC_DIR]
MEDIA_ROOT = os.path.join(SITE, "media")
MEDIA_URL = "/media/"
USE_TZ = True
TIME_ZONE = "UTC"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/forum/"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast logins in tests
MACHINA_FORUM_NAME = "pbp test forum"
MACHINA_TOPIC_POSTS_NUMBER_PER_PAGE = 5        # default 15; small to exercise pagination
MACHINA_FORUM_TOPICS_NUMBER_PER_PAGE = 50
MACHINA_DEFAULT_AUTHENTICATED_USER_FORUM_PERMISSIONS = [
    "can_see_forum", "can_read_forum", "can_start_new_topics", "can_reply_to_topics",
    "can_edit_own_posts", "can_post_without_approval", "can_create_polls", "can_vote_in_polls",
    "can_download_file"]
LOGGING = {"version": 1, "disable_existing_loggers": False,
           "loggers": {"django.server": {"level": "WARNING"}}}
