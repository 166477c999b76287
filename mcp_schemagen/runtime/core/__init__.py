"""The protocol core, one job per module: the JSON-RPC envelope and batches (envelope),
which revision answers a request (negotiation), published lists in cursor pages
(listing, cursor), the tools/call lifecycle (calls) and one tool ready to call
(dispatch_tool). ``server.Server`` composes them."""
