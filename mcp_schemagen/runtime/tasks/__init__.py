"""Durable tasks: the tasks extension (SEP-2663) on the store every worker shares."""
