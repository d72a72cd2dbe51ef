"""The words of notices and errors live in the application layer, ``taicam.pipeline.messages``, shared
by the CLI and the service; ``service/errors.py`` and ``service/security.py`` read these two from here."""

from taicam.pipeline.messages import error_in, pick_language

__all__ = ["error_in", "pick_language"]
