"""Direct, deliberately naive implementations: the oracles of the property tests."""
