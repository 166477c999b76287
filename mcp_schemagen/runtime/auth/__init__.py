"""Authorization of the HTTP transport: an OAuth 2.1 resource server (MCP 2025-06-18 on).

settings.py reads the configuration, keys.py discovers the authorization server and keeps
its JWKS, tokens.py checks an access token, scopes.py says what a request needs,
challenge.py writes the 401/403 answers and the protected resource metadata, binding.py
ties a session to its principal and principal.py is what handlers see. HTTP puts them in
front of the MCP endpoint (http/auth_guard.py): auth decides, the transport wraps.
"""
