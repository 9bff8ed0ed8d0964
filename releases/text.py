"""
Text as search compares it: one plain function, no Django, used for the query and the text.

``fold`` makes the spellings a reader cannot tell apart the same string: NFKC turns
compatibility characters into their plain form (full-width ``ｆｆｔ`` is ``fft``, the ligature
``ﬁ`` is ``fi``, a no-break space is a space), case folding goes beyond lower case (``ß`` is
``ss``), and the characters that only hint at line breaks or joins — the soft hyphen and the
zero-width ones — are dropped. The catalog stores each searchable row's folded text
(``search_text``), so a search compares folded text with a folded query, on any database.
"""

import unicodedata

# Soft hyphen, zero-width space, non-joiner and joiner, word joiner, zero-width no-break space
# (the byte order mark): invisible, and no part of the word they sit in.
IGNORED = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_DROP_IGNORED = dict.fromkeys(map(ord, IGNORED))


def fold(text):
    """``text`` in NFKC, case-folded, without soft hyphens and zero-width characters."""
    text = unicodedata.normalize("NFKC", (text or "").translate(_DROP_IGNORED))
    # Case folding can undo NFKC (as the Unicode standard's NFKC_Casefold notes): normalize again.
    return unicodedata.normalize("NFKC", text.casefold()).translate(_DROP_IGNORED)


def fold_all(*texts):
    """Several fields as one folded text, a line each: a word never spans two fields."""
    return "\n".join(fold(text).replace("\n", " ") for text in texts)


# Words an all-capitals heading keeps in capitals when it is put in sentence case.
ACRONYMS = frozenset(
    {"API", "APIS", "CPU", "CPUS", "GPU", "GPUS", "CUDA", "ROCM", "XPU", "MPS", "ONNX", "FSDP",
     "DDP", "RPC", "AMD", "ARM", "AWS", "LLM", "LLMS", "SDPA", "FFT", "ABI", "C++", "AOT"}
)  # fmt: skip


def sentence_case(heading):
    """
    A heading written in capitals as a sentence ("BETA FEATURES" -> "Beta features",
    "API-UNSTABLE FEATURES" -> "API-unstable features"); any other heading as it is.
    """
    if not heading or heading != heading.upper() or heading == heading.lower():
        return heading

    def word(text):
        parts = text.split("-")
        return "-".join(part if part in ACRONYMS else part.lower() for part in parts)

    said = " ".join(word(text) for text in heading.split(" "))
    return said[:1].upper() + said[1:]
