"""Pieces of bench/run: installing, certificates, starting servers, measuring and reporting."""
