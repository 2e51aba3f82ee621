"""Spaces: their pages, their server's routes and Task API, and the playground's relay."""
