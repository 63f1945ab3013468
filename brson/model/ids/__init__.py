"""IDs in the data tree, in one place: what an ID is and the byte patterns over ID elements
(:mod:`~brson.model.ids.forms`), the scans of those bytes, in Python and C
(:mod:`~brson.model.ids.scan`), the index of every definition and ID-shaped value
(:mod:`~brson.model.ids.index`, :attr:`DataTree.ids <brson.model.tree.DataTree.ids>`), where an
ID or a value lives (:mod:`~brson.model.ids.locate`), and new IDs in a file's style
(:mod:`~brson.model.numbering`).

This file imports nothing: the tree imports :mod:`~brson.model.ids.forms` while the index and
the locator import the tree, so a package that loaded its modules would close a circle.
"""
