"""The lean runtime every generated server carries: JSON-RPC over stdio, dispatch, validation."""
