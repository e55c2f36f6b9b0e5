"""The evaluate step: the gate that promotes a candidate model to the ``champion`` alias."""
