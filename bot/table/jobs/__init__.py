"""Work kept off the event loop: pictures and long jobs on threads or worker processes, each with a bound."""
