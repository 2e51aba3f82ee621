"""Environments and their tasks: the pages, their loaders (indexes, records, outage fallbacks), who may
see a dataset, and what the admin hid."""
