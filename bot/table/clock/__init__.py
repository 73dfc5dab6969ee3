"""The clock's arithmetic: a table's and a player's time settings, and the moments they give (when a reminder
or a deadline falls, away hours). What a due timer does is a use case of the service (bot.table.service:
deadlines, timers, players, unposted)."""
