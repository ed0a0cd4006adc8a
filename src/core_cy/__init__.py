"""Compiled core of Fianchetto. Python code uses it through ``core_cy.core``."""
