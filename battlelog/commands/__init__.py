"""Subcommands of the ``battlelog`` command line, one module each (see battlelog.cli)."""
