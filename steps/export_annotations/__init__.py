"""Step export-annotations: a Label Studio project → a content-addressed dataset version.

Modules: ``client`` (Label Studio SDK calls, retries), ``annotations`` (label map, annotation
policy), ``images`` (fetch and check images), ``dataset`` (manifest, split, version, publish),
``export`` (the whole step), ``seed`` (demo project), ``fixtures`` (tiny dataset for tests).
"""
