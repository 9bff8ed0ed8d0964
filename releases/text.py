"""
Text as search compares it: one plain function, no Django, used for the query and the text.

``fold`` makes the spellings a reader cannot tell apart the same string: NFKC turns
compatibility characters into their plain form (full-width ``ｆｆｔ`` is ``fft``, the ligature
``ﬁ`` is ``fi``, a no-break space is a space), case folding goes beyond lower case (``ß`` is
``ss``), and the characters that only hint at line breaks or joins — the soft hyphen and the
zero-width ones — are dropped. The catalog stores each searchable row's folded text
(``search_text``), so a search compares folded text with a folded query, on any database.

Search also understands words: beside the folded text, ``searchable`` keeps each field's
*stems* (Snowball's English stemmer, the one Lucene, Xapian and Sphinx use), so that a query
word matches another form of it ("deprecated" finds "deprecation", "compiling" finds
"compile"). ``marks`` tells which words of a text a query matched, for the pages to highlight.
"""

import re
import threading
import unicodedata

import snowballstemmer

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


def words(query):
    """The words of a search: what spaces (U+0020) separate."""
    return [word for word in (query or "").split(" ") if word]


def folded_words(query):
    """
    The words of a search as search compares them: each folded, so that ``ｆｆｔ`` is ``fft``;
    a word that folds to nothing (a lone soft hyphen) is no word. Words are still what U+0020
    separates: a word whose folding holds a space (a no-break space folds to one) is looked
    for as a phrase, so a search never has more than its words.
    """
    return [folded for folded in (fold(word) for word in words(query)) if folded]


# A word is a run of letters, digits or underscores: "torch.compile" is two, "FP8" one.
WORD_RE = re.compile(r"\w+")

# A Snowball stemmer keeps its word in its own state: one per thread (gunicorn's are many).
_local = threading.local()


def stem(word):
    """The stem of one folded word ("deprecation" -> "deprec")."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = snowballstemmer.stemmer("english")
    return stemmer.stemWord(word)


def stems(folded):
    """The stems of a folded text's words, in order, a space between each."""
    return " ".join(stem(word) for word in WORD_RE.findall(folded))


def searchable(*texts):
    """
    What search compares for these fields: each field folded (a line each, as ``fold_all``),
    then the stems of each field (a line each). A query word matches when its folded form is
    part of the first lines, or the stems of its words are part of the last ones.
    """
    folded = fold_all(*texts)
    return "\n".join([folded, *(stems(line) for line in folded.split("\n"))])


def query_terms(word):
    """A folded query word's two forms: as typed, and its words' stems ("" when none)."""
    return word, stems(word)


def marks(text, query_words):
    """
    ``text`` cut into (piece, matched) pairs, in order, where a matched piece is a word that
    one of the folded ``query_words`` matched: the query word's folded form is part of the
    word's, or one of its stems is part of the word's stem. Joined, the pieces are ``text``.
    """
    wanted = [
        (fold(part), stem(fold(part)))
        for word in query_words
        for part in WORD_RE.findall(word) or [word]
    ]
    pieces, start = [], 0
    for match in WORD_RE.finditer(text or ""):
        folded = fold(match.group())
        word_stem = stem(folded)
        if any(plain in folded or (root and root in word_stem) for plain, root in wanted):
            if match.start() > start:
                pieces.append((text[start : match.start()], False))
            pieces.append((match.group(), True))
            start = match.end()
    if start < len(text or ""):
        pieces.append((text[start:], False))
    return pieces


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
