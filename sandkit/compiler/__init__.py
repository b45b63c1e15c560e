"""The compiler: kit -> one normalised plan -> one renderer per target."""
