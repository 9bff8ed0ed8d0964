"""
The query layer beneath every surface: what a list's query may say and what it means.

- ``params``: the rule every query follows (one value a parameter unless it takes several, no
  empty or control characters, whole numbers in ASCII), and the 400 naming what breaks it;
- ``fields``, ``filters``, ``filtersets``, ``forms``: each parameter declared once, with its
  parsing, its schema and its effect;
- ``pagination``, ``reading``: reading a list (refuse, clean, filter, count, page), the one
  way the API (through DRF's seams) and the pages (``read_list``) do it;
- ``facets``: the counts of a faceted search.

No surface owns it: the API, the pages and the middleware import it; it imports none of them.
"""
