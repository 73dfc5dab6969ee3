"""`python -m bot` is the `pitboss` command."""

from bot.cli.main import main

raise SystemExit(main())
