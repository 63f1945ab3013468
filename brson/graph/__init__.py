"""Graph layer: the reference graph of a data tree, in both directions.

:class:`ReferenceGraph` is built from the model's ID index (:attr:`DataTree.ids`); operations
(extract, validate, diff) and the ``brson refs`` command read references through it.  Where an
ID or a value lives is the model's (:mod:`brson.model.ids.locate`).
"""

from brson.graph.refs import ReferenceGraph

__all__ = ["ReferenceGraph"]
