"""The DiceBox's fast path: common dice shapes compiled once per expression (SCALE-6).

Why a module of its own: :mod:`pbp.dice` keeps the seeded stream, the limits and the
recording; this keeps the compiler that turns d20's own parse tree into closures that draw
the very same faces in the very same order as d20 would. A shape it does not know is
left to d20 (``compiled`` answers None).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Protocol

import d20
import d20.diceast as _d20_ast


class Faces(Protocol):
    """Where a compiled roll draws its faces: :class:`pbp.dice._FaceStream`."""

    def face(self, size: int) -> int: ...


#: A compiled node: draws its faces from the stream, appends the natural d20 (the first kept
#: face of the first d20 group, depth first) to the list if none is there yet, and returns
#: its value and its text as d20's SimpleStringifier writes it.
Node = Callable[[Faces, list[int]], tuple[int, str]]


class _Unsupported(Exception):
    """A node the fast path leaves to d20."""


@lru_cache(maxsize=2048)
def compiled(text: str, max_dice: int) -> Node | None:
    """*text* (already checked) compiled to closures over d20's own parse tree, or None
    when it holds a shape left to d20 (SCALE-6).

    Why: d20 builds an object per number, die and operator for every roll, then walks
    them again to total and to stringify; that was most of the DiceBox's cost. The
    common shapes (``NdS``, ``NdSkhN``/``klN``/``phN``/``plN``, integers, ``+ - *``,
    unary signs, parentheses) are compiled once per expression and draw the very same
    faces in the very same order (depth first, left to right, as d20 evaluates), so
    totals, breakdowns, naturals and proofs are unchanged. The grammar stays d20's:
    a text d20 cannot parse goes to d20, which raises as before.
    """
    try:
        tree = d20.parse(text, allow_comments=False)
        node = _compile_node(tree.roll)
    except (_Unsupported, d20.RollError, RecursionError):
        return None
    if tree.comment is not None or _dice_count(tree.roll) > max_dice:
        return None
    return node


def _dice_count(node: _d20_ast.ChildMixin) -> int:
    if isinstance(node, _d20_ast.Dice):
        return int(node.num)
    return sum(_dice_count(child) for child in node.children)


def _compile_node(node: _d20_ast.ChildMixin) -> Node:
    kind = type(node)
    if kind is _d20_ast.Literal and type(node.value) is int:
        return _literal(node.value)
    if kind is _d20_ast.Dice:
        return _dice(node.num, node.size, "", None)
    if kind is _d20_ast.OperatedDice and type(node.value) is _d20_ast.Dice and len(node.operations) == 1:
        op = node.operations[0]
        if op.op in ("k", "p") and len(op.sels) == 1 and op.sels[0].cat in ("h", "l"):
            written = str(d20.SetOperator.from_ast(op))
            return _dice(node.value.num, node.value.size, written, (op.op, op.sels[0].cat, op.sels[0].num))
    if kind is _d20_ast.Parenthetical:
        return _parenthetical(_compile_node(node.value))
    if kind is _d20_ast.UnOp and node.op in ("+", "-"):
        return _unary(node.op, _compile_node(node.value))
    if kind is _d20_ast.BinOp and node.op in ("+", "-") and type(node.left) is _d20_ast.Dice \
            and type(node.right) is _d20_ast.Literal and type(node.right.value) is int:
        return _dice_and_number(node.left.num, node.left.size, node.op, node.right.value)
    if kind is _d20_ast.BinOp and node.op in ("+", "-", "*"):
        return _binary(_compile_node(node.left), node.op, _compile_node(node.right))
    raise _Unsupported(kind.__name__)


def _literal(value: int) -> Node:
    shown = str(value)

    def run(gen: Faces, natural: list[int]) -> tuple[int, str]:
        return value, shown
    return run


def _dice(num: int, size: int | str, written: str, keep: tuple[str, str, int] | None) -> Node:
    if type(size) is not int or size < 1 or num < 1:
        raise _Unsupported(f"{num}d{size}")  # d%, d0 and 0dN keep d20's own handling
    head = f"{num}d{size}{written} ("
    draws = range(num)
    if num == 1 and keep is None:  # one plain die: the attack, defense and damage rolls
        def one(gen: Faces, natural: list[int]) -> tuple[int, str]:
            face = gen.face(size)
            if size == 20 and not natural:
                natural.append(face)
            return face, f"{head}{face})"
        return one

    def run(gen: Faces, natural: list[int]) -> tuple[int, str]:
        faces = [gen.face(size)] if num == 1 else [gen.face(size) for _ in draws]
        kept = faces if keep is None else _kept(faces, keep)
        if size == 20 and not natural and kept:
            natural.append(kept[0])
        return sum(kept), head + ", ".join(map(str, faces)) + ")"
    return run


def _dice_and_number(num: int, size: int | str, op: str, number: int) -> Node:
    """``NdS+K`` / ``NdS-K``, the commonest roll of all, as one closure (what
    ``_binary(_dice(...), op, _literal(...))`` would give)."""
    if type(size) is not int or size < 1 or num < 1:
        raise _Unsupported(f"{num}d{size}")
    head = f"{num}d{size} ("
    tail = f") {op} {number}"
    signed = number if op == "+" else -number
    draws = range(num)

    def run(gen: Faces, natural: list[int]) -> tuple[int, str]:
        if num == 1:
            face = gen.face(size)
            if size == 20 and not natural:
                natural.append(face)
            return face + signed, f"{head}{face}{tail}"
        faces = [gen.face(size) for _ in draws]
        if size == 20 and not natural:
            natural.append(faces[0])
        return sum(faces) + signed, head + ", ".join(map(str, faces)) + tail
    return run


def _kept(faces: list[int], keep: tuple[str, str, int]) -> list[int]:
    """The faces d20 keeps after ``kh``/``kl``/``ph``/``pl``, in rolled order: its selection
    sorts stably by value (highest first for ``h``) and takes the first N."""
    op, cat, count = keep
    order = sorted(range(len(faces)), key=faces.__getitem__, reverse=cat == "h")
    chosen = set(order[:count])
    if op == "k":
        return [f for i, f in enumerate(faces) if i in chosen]
    return [f for i, f in enumerate(faces) if i not in chosen]


def _parenthetical(inner: Node) -> Node:
    def run(gen: Faces, natural: list[int]) -> tuple[int, str]:
        value, shown = inner(gen, natural)
        return value, f"({shown})"
    return run


def _unary(op: str, inner: Node) -> Node:
    sign = -1 if op == "-" else 1

    def run(gen: Faces, natural: list[int]) -> tuple[int, str]:
        value, shown = inner(gen, natural)
        return sign * value, op + shown
    return run


def _binary(left: Node, op: str, right: Node) -> Node:
    def run(gen: Faces, natural: list[int]) -> tuple[int, str]:
        a, a_shown = left(gen, natural)
        b, b_shown = right(gen, natural)
        value = a + b if op == "+" else a - b if op == "-" else a * b
        return value, f"{a_shown} {op} {b_shown}"
    return run


def first_d20(node: d20.Number) -> int | None:
    """The kept face of the first d20 in a rolled tree (the 'natural' roll), depth first."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, d20.Dice):
            if current.size == 20:
                for die in current.values:
                    if die.kept:
                        return int(die.total)
            continue
        stack.extend(reversed(current.children))
    return None
