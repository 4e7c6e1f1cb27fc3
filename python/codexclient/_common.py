"""Compatibility: the names this module held before it was split by concern (:mod:`._json`,
:mod:`._inputs`, :mod:`._results`, :mod:`._handlers`, :mod:`._lifecycle`, :mod:`._base`).
New code imports them from those modules."""

from __future__ import annotations

from typing import Tuple

from ._base import ClientBase, ThreadBase, ToolCallBase, TurnBase, aio, aio_as  # noqa: F401
from ._handlers import (  # noqa: F401
    COMMAND_APPROVAL,
    ELICITATION,
    FILE_CHANGE_APPROVAL,
    ROOTS,
    SAMPLING,
    ConnectionHandler,
    Event,
    H,
    Handlers,
    NotificationHandler,
    ProgressHandler,
    RequestHandler,
    fail_closed,
    finish,
    handler_failed,
    logger,
    weak_handler,
)
from ._inputs import (  # noqa: F401
    Input,
    InputItem,
    PathLike,
    Root,
    Skills,
    image_url,
    input_json,
    local_image,
    skills_list_arg,
    text,
)
from ._json import Params, arguments_json, as_params, build_params, camel, dumps, loads  # noqa: F401
from ._json import type_name  # noqa: F401
from ._lifecycle import Lifecycle, track_client  # noqa: F401
from ._results import InitializeResult, Page, TurnResult  # noqa: F401

__all__: Tuple[str, ...] = ()
