"""``aipipe server``: the Argo Server REST API subset that Hera and the Argo CLI use, over the run store.

Routes follow the Argo v4.1 swagger (``../shared/argo/swagger.json``); submitted runs are driven
by worker threads of the server process with the embedded engine.
"""
