"""The table: the transport-agnostic service, its commands, replies, clock, plans, imports and guards."""
