"""The game database: the store and its SQLite and PostgreSQL drivers (imports nothing else of bot/)."""
