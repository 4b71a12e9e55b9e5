"""The faces of one roll of a :class:`pbp.dice.DiceBox`: SHA-256 in counter mode.

Apart from :mod:`pbp.dice` to keep it small; the box is the only user.
"""

from __future__ import annotations

import hashlib
import struct

from .errors import DiceError


class FaceStream:
    """The faces of one roll: SHA-256 in counter mode over ``"<seed>:<index>:<block>"``.

    Why not Mersenne Twister: seeding MT costs more than a whole d20 evaluation, and a
    stream anyone can recompute in any language (docs/verifiable-dice.md) is what makes a
    round's dice verifiable by players, not only by ``pbp verify``. Each face takes the
    next 32-bit big-endian word ``w`` of the stream; words at or above the largest
    multiple of the die size are skipped (no modulo bias); the face is ``w % size + 1``.
    Forced faces (tests, ``pbp bench --dice``) are served first and recorded like others.
    """

    __slots__ = ("block", "digest", "faces", "forced", "pos", "prefix")

    def __init__(self, seed: str, index: int, forced: list[int]) -> None:
        self.prefix = f"{seed}:{index}:".encode()
        self.block = 0
        self.digest = b""
        self.pos = 32  # bytes of the current block already used: none yet
        self.forced = forced
        self.faces: list[int] = []

    def _word(self) -> int:
        pos = self.pos
        if pos == 32:
            self.digest = _sha256(self.prefix + _counter(self.block)).digest()
            self.block += 1
            pos = 0
        self.pos = pos + 4
        word: int = _big_endian_word(self.digest, pos)[0]
        return word

    def _below(self, size: int) -> int:
        limit = _SPAN - _SPAN % size
        while True:
            word = self._word()
            if word < limit:
                return word % size

    def face(self, size: int) -> int:
        """``randrange(size) + 1``, recorded: the compiled path's one call a die (SCALE-6)."""
        if self.forced:
            return self.randrange(size) + 1
        limit = _SPAN - _SPAN % size
        while True:
            pos = self.pos
            if pos == 32:
                self.digest = _sha256(self.prefix + _counter(self.block)).digest()
                self.block += 1
                pos = 0
            self.pos = pos + 4
            word: int = _big_endian_word(self.digest, pos)[0]
            if word < limit:
                value = word % size + 1
                self.faces.append(value)
                return value

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:  # randrange(size) -> 0..size-1, d20 adds 1
            size = start
            if self.forced:
                face = self.forced.pop(0)
                if not 1 <= face <= size:
                    raise DiceError(f"forced face {face} does not fit a d{size}")
                self.faces.append(face)
                return face - 1
            value = self._below(size)
            self.faces.append(value + 1)
            return value
        value = start + step * self._below(len(range(start, stop, step)))  # d%: 0..90 step 10
        self.faces.append(value)
        return value


_SPAN = 1 << 32
_sha256 = hashlib.sha256
#: the 32-bit big-endian word at an offset of a digest (SCALE-6: no slice, no from_bytes)
_big_endian_word = struct.Struct(">I").unpack_from
#: a block counter as the stream hashes it (``str(n).encode()``), the first ones kept
_COUNTERS = tuple(str(n).encode() for n in range(64))


def _counter(block: int) -> bytes:
    return _COUNTERS[block] if block < 64 else str(block).encode()
