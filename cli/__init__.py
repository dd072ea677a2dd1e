"""The click command-line app (installed as ``afr.cli``; source folder ``cli/``)."""
