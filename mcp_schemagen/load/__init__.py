"""Stage 1, load: the project's configuration, its tool files, the pinned protocol schemas,
and each tool as each targeted revision publishes it. Reads; never writes but caches."""
