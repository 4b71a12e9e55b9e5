"""SCALE-6: no index is led by a column that already leads a unique key or a longer index
of its table. Such an index serves no lookup the other cannot, and is one more B-tree
every insert writes (an ingest batch stores some 200 rows: five such indexes on posts,
revisions, rolls and declarations cost it 4%). Read from the models, as every database
is built from them (and migration 0020 dropped the five)."""

from __future__ import annotations

from sqlalchemy import Index, UniqueConstraint

from pbp.store import models as m


def test_scale_6_no_index_repeats_the_lead_of_a_unique_key_or_a_longer_index() -> None:
    redundant = []
    for table in m.Base.metadata.sorted_tables:
        longer = [tuple(c.name for c in k.columns) for k in table.constraints
                  if isinstance(k, UniqueConstraint)]
        longer += [tuple(c.name for c in i.columns) for i in table.indexes]
        for index in table.indexes:
            cols = tuple(c.name for c in index.columns)
            if index.unique:
                continue
            if any(len(other) > len(cols) and other[:len(cols)] == cols for other in longer):
                redundant.append((table.name, index.name, cols))
    assert redundant == []


def test_scale_6_the_check_sees_a_redundant_index() -> None:
    """The check above, on a table made for it, finds what it is for."""
    from sqlalchemy import Column, Integer, MetaData, Table

    table = Table("t", MetaData(), Column("a", Integer), Column("b", Integer),
                  UniqueConstraint("a", "b"), Index("ix_t_a", "a"), Index("ix_t_b", "b"))
    longer = [tuple(c.name for c in k.columns) for k in table.constraints
              if isinstance(k, UniqueConstraint)]
    found = [i.name for i in table.indexes
             if any(o[:1] == tuple(c.name for c in i.columns) and len(o) > 1 for o in longer)]
    assert found == ["ix_t_a"]
