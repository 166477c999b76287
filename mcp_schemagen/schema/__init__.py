"""JSON Schema knowledge every stage shares: the keywords of each dialect and the one walk
over a schema's subschemas."""
