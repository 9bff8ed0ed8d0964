"""What every importer raises for a document it cannot use: the message, and the line."""


def located(path, line, message):
    """``path:line: message``, or ``path: message`` for the whole file."""
    return f"{path}:{line}: {message}" if line else f"{path}: {message}"


class DocumentProblem(ValueError):
    """A document cannot be used; ``line`` is 1-based in the file, or None for the whole file."""

    def __init__(self, message, line=None):
        super().__init__(message)
        self.message = message
        self.line = line

    def where(self, path):
        """``path:line`` (or ``path`` for the whole file) and the message, for a command error."""
        return located(path, self.line, self.message)
