"""`python -m bot` is the `pitboss` command."""

from bot.cli import main

raise SystemExit(main())
