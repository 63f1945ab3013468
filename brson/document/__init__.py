"""Document layer: BSON bytes <-> documents, and the lossless JSON form."""
