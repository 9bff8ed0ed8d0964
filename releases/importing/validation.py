"""Validating a row an importer is about to write, as a form would, before anything is written."""

from django.core.exceptions import ValidationError


def validate(obj, line, problem, describe, exclude=()):
    """
    ``obj`` checked field by field (``full_clean``, uniqueness and constraints left to the
    write); what fails is ``problem`` (a DocumentProblem) at ``line``, naming the row as
    ``describe(obj)`` says it (only then: a row that passes costs no description).
    """
    try:
        obj.full_clean(exclude=exclude, validate_unique=False, validate_constraints=False)
    except ValidationError as error:
        problems = "; ".join(
            f"{name}: {' '.join(messages)}" for name, messages in error.message_dict.items()
        )
        raise problem(f"cannot store {describe(obj)}: {problems}", line) from None
