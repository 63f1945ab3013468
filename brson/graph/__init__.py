"""Graph layer: the reference graph of a data tree, in both directions.

:class:`ReferenceGraph` is built from the model's ID index (:attr:`DataTree.ids`); operations
(extract, validate, diff) and the ``brson refs`` command read references through it.
"""

from brson.graph.locate import described, locate_many, located
from brson.graph.refs import Reference, ReferenceGraph, source_of
from brson.graph.spans import ComponentSpans

__all__ = [
    "ComponentSpans",
    "Reference",
    "ReferenceGraph",
    "described",
    "locate_many",
    "located",
    "source_of",
]
