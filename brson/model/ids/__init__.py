"""IDs in the data tree: their shape and byte patterns (``forms``), the scans of those bytes
(``scan``), the index of definitions and values (``index``), where one lives (``locate``).
Nothing is imported here: the tree imports ``forms``, and ``index`` and ``locate`` the tree."""
