"""Operations served over the socket and run locally by the CLI; importing registers them."""

from tapestryd.daemon.ops import core  # noqa: F401  (registers the core operations)
from tapestryd.daemon.ops import daemon_ops  # noqa: F401  (status, pause, resume, reload)
from tapestryd.daemon.ops import hierarchy_ops  # noqa: F401  (iterate, catchup, generate, repair, tree)
from tapestryd.daemon.ops import quality_ops  # noqa: F401  (eval, drift)
from tapestryd.daemon.ops import query_ops  # noqa: F401  (context, similar, recall, node)
from tapestryd.daemon.ops import safety_ops  # noqa: F401  (forget, compact, backup)
from tapestryd.daemon.ops.registry import OPS, OpSpec, read_op, write_op

__all__ = ["OPS", "OpSpec", "read_op", "write_op"]
