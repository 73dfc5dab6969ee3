"""The shell around the rules: service, storage, and the Discord and command-line adapters."""
