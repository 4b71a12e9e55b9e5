"""Seed the harness Misago forum through Django's ORM (no HTTP), run with the venv's Python.

    seed.py base                   users, category "Adventures", settings (setup.sh)
    seed.py thread SUBJECT N       a new thread of N posts by admin (one per test): post 1
                                   two hours ago, post i (i > 1) i minutes after it
    seed.py edit POST_ID TEXT      edit a post's text (as a moderator would)
    seed.py user NAME PASSWORD     a new member (a second player)
    seed.py original POST_ID       a post's source text, as JSON (what its author typed)

MISAGO_DB names the PostgreSQL database. Prints one line per result, for the caller.
Posts are 5 a page (the ``posts_per_page`` dynamic setting, 18 as shipped) so a short
thread has several pages; the bot and the player are plain members (flood control on).
"""
import html
import json
import os
import sys
from datetime import timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "host.settings")
import django  # noqa: E402

django.setup()
from django.contrib.auth import get_user_model  # noqa: E402
from django.utils import timezone  # noqa: E402
from misago.categories.models import Category  # noqa: E402
from misago.conf.models import Setting  # noqa: E402
from misago.threads.checksums import update_post_checksum  # noqa: E402
from misago.threads.models import Post  # noqa: E402
from misago.threads.test import post_thread, reply_thread  # noqa: E402
from misago.users.avatars import dynamic  # noqa: E402

User = get_user_model()


def parsed(text):
    return f"<p>{html.escape(text)}</p>"


def category():
    return Category.objects.all_categories().get(slug="adventures")


def base():
    users = [User.objects.create_superuser("admin", "admin@example.com", "adminpass"),
             User.objects.create_user("player", "player@example.com", "playerpass"),
             User.objects.create_user("pbpbot", "bot@example.com", "botpass")]
    for user in users:     # drawn locally: the shipped default (Gravatar) downloads
        dynamic.set_avatar(user)
        user.save()
    cat = Category.objects.all_categories().first()
    cat.name, cat.slug = "Adventures", "adventures"
    cat.save()
    Setting.objects.change_setting("posts_per_page", "5")
    Setting.objects.change_setting("posts_per_page_orphans", "0")
    print("CATEGORY", cat.pk)


def thread(subject, n):
    admin = User.objects.get(username="admin")
    start = timezone.now() - timedelta(hours=2)
    t = post_thread(category(), title=subject, poster=admin, started_on=start)
    first = t.first_post
    first.original = f"{subject}: post 1"
    first.parsed = parsed(first.original)
    update_post_checksum(first)
    first.save()
    for i in range(2, n + 1):
        text = f"{subject}: post {i}"
        post = reply_thread(t, poster=admin, message=text, posted_on=start + timedelta(minutes=i))
        post.parsed = parsed(text)
        update_post_checksum(post)
        post.save()
    print("THREAD", f"/t/{t.slug}/{t.pk}/", t.pk, n, start.isoformat())


def edit(pk, text):
    post = Post.objects.get(pk=pk)
    post.original, post.parsed = text, parsed(text)
    post.updated_on = timezone.now()
    post.edits += 1
    update_post_checksum(post)
    post.save()
    print("EDITED", pk)


def user(name, password):
    member = User.objects.create_user(name, f"{name}@example.com", password)
    dynamic.set_avatar(member)
    member.save()
    print("USER", member.pk)


def original(pk):
    print("ORIGINAL", json.dumps(Post.objects.get(pk=pk).original))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "base":
        base()
    elif cmd == "thread":
        thread(args[0], int(args[1]))
    elif cmd == "edit":
        edit(int(args[0]), args[1])
    elif cmd == "user":
        user(args[0], args[1])
    elif cmd == "original":
        original(int(args[0]))
    else:
        sys.exit("unknown command " + cmd)
