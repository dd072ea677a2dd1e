"""``python -m afr``: the ``afr`` command line."""

from afr.cli.main import main

if __name__ == "__main__":
    main()
