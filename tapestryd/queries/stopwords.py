"""English function words left out of free-text search terms.

A short list of articles, pronouns, auxiliaries, prepositions, conjunctions and question
words, in the spirit of the classic SMART and Snowball lists: words that occur in nearly
every message, so matching them adds cost (long posting lists) and no ranking signal.
"""

from __future__ import annotations

__all__ = ["STOPWORDS"]

STOPWORDS = frozenset("""
a about above after again against all am an and any are aren as at be because been before being below between
both but by can cannot could couldn d did didn do does doesn doing don down during each few for from further had
hadn has hasn have haven having he her here hers herself him himself his how i if in into is isn it its itself
just ll m me might more most must my myself no nor not now of off on once only or other ought our ours ourselves
out over own re s same shan she should shouldn so some such t than that the their theirs them themselves then
there these they this those through to too under until up ve very was wasn we were weren what when where which
while who whom why will with won would wouldn y you your yours yourself yourselves also yes ok okay let lets
get got gets
""".split())
