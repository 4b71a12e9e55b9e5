"""Seed the harness forum through Django's ORM (no HTTP), run with the venv's Python.

    seed.py base                   users, forum "Adventures", topics (setup.sh)
    seed.py bench N                N topics of 1-12 posts in forum "Bench" (benchmark)
    seed.py change K SEED          one new post in K random bench topics
    seed.py edit POST_ID TEXT      edit a post's content
    seed.py delete POST_ID         delete a post
    seed.py topics FORUM_NAME      print "<topic url path> <posts>" per topic
    seed.py topic SUBJECT N        a new topic of N posts in "Adventures" (one per test)

MACHINA_DB names the SQLite file. Prints one line per result, for the caller to read.
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "host.settings")
import django  # noqa: E402

django.setup()
from django.contrib.auth import get_user_model  # noqa: E402
from django.urls import reverse  # noqa: E402
from machina.apps.forum.models import Forum  # noqa: E402
from machina.apps.forum_conversation.models import Post, Topic  # noqa: E402
from machina.apps.forum_permission.models import ForumPermission, UserForumPermission  # noqa: E402

User = get_user_model()


def topic_path(t):
    return reverse("forum_conversation:topic", kwargs={
        "forum_slug": t.forum.slug, "forum_pk": t.forum.pk, "slug": t.slug, "pk": t.pk})


def new_topic(forum, poster, subject, bodies):
    t = Topic.objects.create(forum=forum, poster=poster, subject=subject, type=Topic.TOPIC_POST,
                             status=Topic.TOPIC_UNLOCKED, approved=True)
    for i, body in enumerate(bodies):
        Post.objects.create(topic=t, poster=poster, subject=subject if i == 0 else "Re: " + subject,
                            content=body, approved=True)
    return t


def base():
    admin = User.objects.create_superuser("admin", "admin@example.com", "adminpass")
    User.objects.create_user("player", "player@example.com", "playerpass")
    User.objects.create_user("pbpbot", "bot@example.com", "botpass")
    cat = Forum.objects.create(name="Games", type=Forum.FORUM_CAT)
    forum = Forum.objects.create(name="Adventures", parent=cat, type=Forum.FORUM_POST)
    Forum.objects.create(name="Bench", parent=cat, type=Forum.FORUM_POST)
    for code in ("can_see_forum", "can_read_forum"):
        UserForumPermission.objects.create(anonymous_user=True, forum=None, has_perm=True,
                                           permission=ForumPermission.objects.get(codename=code))
    t = new_topic(forum, admin, "The Goblin Cave", ["You enter a dark cave. A goblin snarls."])
    print("TOPIC", topic_path(t), 1)
    bodies = ["Round %d: the dragon breathes fire." % i for i in range(1, 13)]
    t = new_topic(forum, admin, "The Dragon Lair", bodies)
    print("TOPIC", topic_path(t), len(bodies))


def bench(n):
    rng = random.Random(5)
    admin = User.objects.get(username="admin")
    forum = Forum.objects.get(name="Bench")
    for i in range(n):
        k = rng.randint(1, 12)
        new_topic(forum, admin, "Bench fight %03d" % i,
                  ["Fight %d, post %d: I attack the goblin [roll]1d20+5[/roll]" % (i, j)
                   for j in range(k)])
    topics("Bench")


def change(k, seed):
    rng = random.Random(seed)
    player = User.objects.get(username="player")
    picked = rng.sample(list(Topic.objects.filter(forum__name="Bench").order_by("pk")), k)
    for t in picked:
        Post.objects.create(topic=t, poster=player, subject="Re: " + t.subject, approved=True,
                            content="Cycle %s: I cast magic missile [roll]3d4+3[/roll]" % seed)
        print("CHANGED", topic_path(t))


def topics(name):
    for t in Topic.objects.filter(forum__name=name).order_by("pk"):
        print("TOPIC", topic_path(t), t.posts.count())


def main(argv):
    cmd = argv[1]
    if cmd == "base":
        base()
    elif cmd == "bench":
        bench(int(argv[2]))
    elif cmd == "change":
        change(int(argv[2]), argv[3])
    elif cmd == "edit":
        p = Post.objects.get(pk=int(argv[2]))
        p.content = argv[3]
        p.save()
        print("EDITED", p.pk)
    elif cmd == "delete":
        Post.objects.get(pk=int(argv[2])).delete()
        print("DELETED", argv[2])
    elif cmd == "topic":
        t = new_topic(Forum.objects.get(name="Adventures"), User.objects.get(username="admin"),
                      argv[2], ["%s: post %d, the goblin growls." % (argv[2], i + 1)
                                for i in range(int(argv[3]))])
        print("TOPIC", topic_path(t), t.posts.count())
    elif cmd == "topics":
        topics(argv[2])
    else:
        raise SystemExit("unknown command %r" % cmd)


if __name__ == "__main__":
    main(sys.argv)
