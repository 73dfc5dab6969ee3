"""The table: the transport-agnostic service in rooms (protocol, service, clock, jobs, trust), and plug-in loading."""
