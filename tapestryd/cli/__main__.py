"""``python -m tapestryd.cli`` runs tapestryctl."""

from tapestryd.cli.main import main

main()
