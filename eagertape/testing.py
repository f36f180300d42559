"""Testing helpers: gradient checks against JAX and finite differences."""
