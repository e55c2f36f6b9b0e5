"""aipipe's own run pages, served by ``aipipe server`` behind its token: the runs list at ``/``, one run at
``/runs/{namespace}/{name}`` (its node graph as server-rendered SVG, node details, live logs, actions) and the
schedules & triggers at ``/triggers``. Live views read the Argo API's streams with ``EventSource``."""

from aipipe.server.page.views import routes

__all__ = ["routes"]
