"""
The three things a write does to a row, spelled once: as simple-history's ``history_type``
spells them (the history, the write path) and as words (the public change log, the desk).
"""

CREATED, UPDATED, DELETED = "+", "~", "-"
WORDS = {CREATED: "created", UPDATED: "updated", DELETED: "deleted"}
