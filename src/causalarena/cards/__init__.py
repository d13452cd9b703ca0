"""Dataset card and citation files of release folders (rendered from one metadata model)."""
