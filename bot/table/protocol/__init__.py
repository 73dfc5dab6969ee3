"""What the service takes and hands back: commands and their grammar, replies and buttons, refusals."""
