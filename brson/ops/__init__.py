"""Operations on data trees that need more than the model: extract (the dependency closure
reads the reference graph), diff, patch, validate, variables and imports, each in its own
module.  Editing a tree in place and renumbering its IDs are the model's (:mod:`brson.model.edit`,
:mod:`brson.model.numbering`)."""
