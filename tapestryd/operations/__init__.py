"""The operations: one typed function per operation, and the table every front end reads.

* :mod:`~tapestryd.operations.requests` and :mod:`~tapestryd.operations.results`: a frozen
  request and result dataclass per operation;
* :mod:`~tapestryd.operations.registry`: :data:`OPERATIONS`, name → kind, request and result
  types and the function (loaded on first use);
* :mod:`~tapestryd.operations.base`: what each kind is handed (reader, runtime, clock,
  summarizer, the daemon's control);
* :mod:`~tapestryd.operations.codec`: requests to and from the socket's JSON ``args``;
* :mod:`~tapestryd.operations.dispatch`: run one through the daemon or in this process;
* the functions, by noun: ``query``, ``control``, ``store``, ``hierarchy``, ``quality``,
  ``safety``; and the application services they use (``runtime``, ``lock``, ``dayclose``,
  ``summarizer``, ``hierarchy_jobs``, ``compact``, ``backup`` …).

Importing this package imports nothing else.
"""
