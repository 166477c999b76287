"""Resource subscriptions and list-changed notifications, on every worker.

``notices`` is what a change is (and its wire forms), ``hub`` carries it from whoever
announces it (``announce``: the public API) through the shared store to every listener in
every worker, ``serving`` answers the protocol's methods (``resources/subscribe`` and
``unsubscribe`` of 2024-11-05 to 2025-11-25, ``subscriptions/listen`` of 2026-07-28) and
``standalone`` is the session's GET stream over Streamable HTTP that carries them.
"""
