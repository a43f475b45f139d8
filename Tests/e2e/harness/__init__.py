"""Fixtures' building blocks for the ipdirect end-to-end tests: origins, peers, the proxy under test."""
