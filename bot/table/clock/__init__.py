"""The table's clock: its settings, reminders, deadlines with the autopilot, and pauses."""
