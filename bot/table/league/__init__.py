"""The server's league: who plays whom in seasons and tournaments."""
