"""What search engines and link previews read: robots.txt, sitemaps, sharing tags and preview pictures."""
