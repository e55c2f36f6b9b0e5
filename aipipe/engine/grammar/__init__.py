"""One lark grammar (``argo.lark``) for Argo's expression languages: expr-lang, govaluate ``when``, ``depends``."""
