"""Where posts come from and where replies go: forum threads, Reddit, scenario files.

Every source implements :class:`pbp.sources.base.Source`. Sources never call the
engine; they read and they post, nothing else (docs/design.md).
"""
