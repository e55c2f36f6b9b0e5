"""The kubelet's ``$(VAR_NAME)`` expansion: a container's ``command``, ``args`` and ``env`` values name variables of its
pod-spec environment (``env`` and ``envFrom``, not the image's); ``$$`` is a literal ``$``, and a name the
environment lacks stays as written."""

from __future__ import annotations

from collections.abc import Mapping


def expand(text: str, defined: Mapping[str, str]) -> str:
    """``text`` with each ``$(NAME)`` of ``defined`` replaced, as Kubernetes' third_party expansion does."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] != "$" or i + 1 == len(text):
            out.append(text[i])
            i += 1
            continue
        following = text[i + 1]
        close = text.find(")", i + 2) if following == "(" else -1
        if following == "$":
            out.append("$")
        elif close != -1:
            name = text[i + 2:close]
            out.append(defined.get(name, f"$({name})"))
            i = close + 1
            continue
        else:  # "$(" without its ")" or "$x": kept as written
            out.append("$" + following)
        i += 2
    return "".join(out)
