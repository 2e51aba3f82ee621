"""The catalog: the home page, its search and facets, and the search API, all served from the snapshot."""
