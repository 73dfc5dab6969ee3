"""The command line: play, exec, verify, backup, selfplay and the benchmarks."""
