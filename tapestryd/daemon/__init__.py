"""The daemon: the one process that knows everything (sources, projections, summarizer, queries)."""
