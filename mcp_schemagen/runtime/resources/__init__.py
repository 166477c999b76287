"""Resources and resource templates: the table, RFC 6570 matching, and serving."""
