"""Turn input and skills: the types and the helpers that make input items (built by the
core)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _native
from ._errors import InvalidArgumentError
from ._json import dumps, loads, type_name

InputItem = Mapping[str, Any]
Input = Union[str, InputItem, Sequence[Union[str, InputItem]]]
"""Turn input: a string, one input item (``{"type": "text", ...}``) or a list of them."""

Skills = Optional[Iterable[Union[str, "os.PathLike[str]"]]]
"""Skills for a turn: names (``"release-notes"``) or paths of a ``SKILL.md`` or its folder
(a ``str`` holding ``/``, or any path-like object)."""
PathLike = Union[str, "os.PathLike[str]"]

Root = Union[str, "os.PathLike[str]", Tuple[Union[str, "os.PathLike[str]"], Optional[str]]]
"""An MCP root: a URI (``"file:///work/project"``), a local path (made an absolute
``file://`` URI) or a pair of either and a display name."""


def _item(kind: str, value: str) -> Dict[str, Any]:
    item: Dict[str, Any] = loads(_native.input_item(kind, value))
    return item


def text(value: str) -> Dict[str, Any]:
    """A text input item."""
    return _item("text", value)


def image_url(url: str) -> Dict[str, Any]:
    """An image input item given by URL (``https://`` or ``data:``)."""
    return _item("image_url", url)


def local_image(path: PathLike) -> Dict[str, Any]:
    """A local image file input item."""
    return _item("local_image", os.fspath(path))


def input_json(value: Input) -> str:
    """Turn input as JSON text; the core makes it the list of input items."""
    if not isinstance(value, (str, Mapping, Sequence)):
        raise InvalidArgumentError(
            f"turn input must be a string, an input item or a list of them, not {type_name(value)}"
        )
    return dumps(value if isinstance(value, (str, Mapping)) else list(value))


def skills_list_arg(skills: Skills) -> Optional[List[str]]:
    """Turn skills as the core takes them: names, or paths (path-like objects made
    absolute, so that they always read as paths)."""
    if skills is None:
        return None
    if isinstance(skills, (str, bytes)) or not isinstance(skills, Iterable):
        raise InvalidArgumentError(f"skills must be a list of names or paths, not {type_name(skills)}")
    out = []
    for s in skills:
        if isinstance(s, str):
            out.append(s)
        elif isinstance(s, os.PathLike):
            out.append(os.path.abspath(os.fspath(s)))
        else:
            raise InvalidArgumentError(f"a skill is a name or a path, not {type_name(s)}")
    return out
