"""`python -m bot` is the `pitboss` command."""

from bot.cli.main import main

if __name__ == "__main__":  # a spawned render process imports this module too, and must not run it
    raise SystemExit(main())
