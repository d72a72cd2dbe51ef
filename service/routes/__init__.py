"""The HTTP routes, one module per resource; ``service.app.create_app`` includes them in order."""
