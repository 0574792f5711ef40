"""Helpers the tests of several rooms share (layouts, referee states, logs, benchmark scripts)."""
