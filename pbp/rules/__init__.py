"""The pure rules engine: value objects, ruleset base and registry, one module per ruleset.

Entry points: :func:`pbp.rules.engine.resolve` and :func:`pbp.rules.registry.get`.
"""
