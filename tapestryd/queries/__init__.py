"""Queries: read-only answers over the projections (search, context, similar, recall, status)."""
