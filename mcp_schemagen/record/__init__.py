"""The build record: digests of a build's inputs and outputs, read before a build (what the
last one made) and written with it."""
