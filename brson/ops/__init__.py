"""Operations on data trees: extract, edit, validate, diff (each in its own module)."""
