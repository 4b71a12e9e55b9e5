"""The round lifecycle (issue 4): ingest posts, open rounds, remind, resolve, reply.

Public entry points are in :mod:`pbp.rounds.service`; the persistence-free simulation
used by ``pbp bench`` is :mod:`pbp.rounds.simulate`.
"""
