"""The taicam subcommands, one module per kind of work; each ``register``s its parsers."""
