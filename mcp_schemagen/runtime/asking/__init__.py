"""Asking the client during a tool call: the questions (questions), how they travel in
each era (interaction), requests in flight over a connection (outbound), and the sealed
answers of a 2026-07-28 retry (request_state)."""
