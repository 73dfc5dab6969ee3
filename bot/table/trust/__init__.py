"""What keeps a table honest: guards at the door, what a viewer may see of a log, dice commitment, checked imports."""
