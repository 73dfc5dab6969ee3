"""Pure game engines: standard library only, deterministic, no I/O beyond reading bundled data."""
