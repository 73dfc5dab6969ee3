"""The service every transport calls, in parts by what each owns: the door (entry), seating, acting, asking,
orders, relocation, pictures, and the clock's use cases (timers, deadlines, players, unposted)."""
