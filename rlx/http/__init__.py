"""What every HTTP entry point shares, below the explorer, the admin app, sign-in and MCP alike: trusted hosts
and proxies, same-origin checks for writes, rate limits, error answers, security headers, redirects to our own
paths, JSON and compression, the session cookie's signer, and page rendering. Nothing here imports the web layer.
"""
