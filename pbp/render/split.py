"""Cut a reply that is too long for its platform into parts, each with its own marker.

Why: Reddit takes at most 10,000 characters a comment, forums have a post limit too
(phpBB's default is 60,000). A round with fifty combatants says more than that. Parts
break at blank lines (between actors), then at line ends; each part ends with
``(n/N)`` and its marker, so delivery finds every part on the platform.

>>> parts = split_reply("aa\\n\\nbb\\n\\ncc\\nmarker-1\\n", "marker-1", 19, lambda i: f"m{i}")
>>> [p.replace("\\n", "|") for p in parts]
['aa||(1/3)||m1|', 'bb||(2/3)||m2|', 'cc||(3/3)||m3|']
"""

from __future__ import annotations

from collections.abc import Callable

#: the most characters a reply may have on each platform
LIMITS = {"markdown": 10_000, "bbcode": 60_000, "text": 60_000}


def split_reply(body: str, marker_line: str, limit: int,
                marker_of: Callable[[int], str]) -> list[str]:
    """Parts of *body* (whose last line is *marker_line*), each at most *limit* characters.

    A body within the limit comes back unchanged, as one part. ``marker_of(i)`` is the
    marker line of part *i* (1-based).
    """
    if len(body) <= limit:
        return [body]
    lines = body.rstrip("\n").split("\n")
    if lines and marker_line in lines[-1]:
        template = lines[-1]
        lines = lines[:-1]
    else:
        template = marker_line
    longest = len(template) - len(marker_line) + max(len(marker_of(i)) for i in (1, 99))
    room = limit - longest - len("\n\n(99/99)\n\n\n")   # what each part ends with
    if room <= 0:
        raise ValueError(f"a reply part of {limit} characters cannot hold its marker")
    blocks: list[str] = []
    for block in "\n".join(lines).split("\n\n"):
        while len(block) > room:               # one huge block: cut at a line end
            cut = block.rfind("\n", 0, room)
            cut = cut if cut > 0 else room
            blocks.append(block[:cut])
            block = block[cut:].lstrip("\n")
        blocks.append(block)
    parts: list[str] = []
    current = ""
    for block in blocks:
        candidate = f"{current}\n\n{block}" if current else block
        if len(candidate) > room and current:
            parts.append(current)
            current = block
        else:
            current = candidate
    if current:
        parts.append(current)
    n = len(parts)
    return [f"{text.strip()}\n\n({i}/{n})\n\n{template.replace(marker_line, marker_of(i))}\n"
            for i, text in enumerate(parts, 1)]
