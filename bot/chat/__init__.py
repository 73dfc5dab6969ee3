"""The Discord adapter: the only code that imports discord."""
