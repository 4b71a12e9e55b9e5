"""Forum flood control, the way many forums do it: a reply sooner than MACHINA_FLOOD
seconds after the same user's previous one gets an HTML page with status 429."""
import time

from django.conf import settings
from django.http import HttpResponse

_last: dict[int, float] = {}
PAGE = ("<!doctype html><html><head><title>Flood control</title></head><body>"
        "<div class=\"alert alert-danger\">You are posting too fast. Please wait {s} seconds "
        "before posting again.</div></body></html>")


class FloodControlMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.MACHINA_FLOOD
        if (limit and request.method == "POST" and request.path.endswith("/post/create/")
                and request.user.is_authenticated):
            now = time.monotonic()
            last = _last.get(request.user.pk)
            if last is not None and now - last < limit:
                return HttpResponse(PAGE.format(s=int(limit)), status=429)
            response = self.get_response(request)
            if response.status_code == 302:
                _last[request.user.pk] = now
            return response
        return self.get_response(request)
