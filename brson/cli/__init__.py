"""Interfaces layer: the ``brson`` command line."""
