"""End-to-end tests: an unmodified `pitboss run` process against a local fake Discord."""
