"""brson: Resonite data-tree archives in Python."""
