"""Server side of the echo environment."""
