"""tapestryctl: a thin typer CLI over the operations; the fast path answers without typer."""
