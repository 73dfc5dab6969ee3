"""The service every transport calls, in parts by what each owns: door, seating, acting, asking, moving, pictures."""
