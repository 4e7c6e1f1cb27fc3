"""What a worker process of ``test_distributed.py`` runs (its own module, so that a
``ProcessPoolExecutor`` with the ``spawn`` start method can import it): one real turn whose
command approval goes to the parent process and whose answer comes back by reference."""

from __future__ import annotations

import pickle
import threading
from typing import Any, Dict, List

from codexclient import AlreadyRespondedError, CodexClient, ServerRequest


def run_turn(options: Dict[str, Any], prompt: str, requests: Any, answers: Any, mode: str) -> Dict[str, Any]:
    """Run ``prompt`` on a new client of ``options``. Its command approval is pickled (which
    parks it) onto ``requests`` for the parent; a thread of this process takes the parent's
    ``(request, answer)`` from ``answers`` and answers it through this client by reference:
    once (``mode == "once"``), twice (``"twice"``: the second must raise
    ``AlreadyRespondedError``), or not at all (``"never"``: the client's bound declines it).
    Returns the turn's notifications and result (pickled back by the executor) and what
    happened."""
    out: Dict[str, Any] = {"second_answer": None, "late_answer": None}
    with CodexClient(**options) as client:
        out["client_id"] = client.id

        def on_approval(request: ServerRequest) -> None:
            requests.put(pickle.dumps(request))
            return None  # answered later, by reference

        client.on_command_approval(on_approval)

        def answerer() -> None:
            request, answer = answers.get(timeout=120)
            out["request"] = request
            if mode == "never":
                return
            client.respond(request, answer)
            if mode == "twice":
                try:
                    client.respond(request, answer)
                except AlreadyRespondedError as e:
                    out["second_answer"] = type(e).__name__

        helper = threading.Thread(target=answerer, daemon=True)
        helper.start()
        turn = client.thread_start().run_streamed(prompt)
        # The request's handles here are let go at once (only the parked one keeps it open).
        events: List[Any] = [e for e in turn if not isinstance(e, ServerRequest)]
        out["result"] = turn.result(timeout=120)
        helper.join(timeout=120)
        if mode == "never":
            try:
                client.respond(out["request"], "accept")
            except AlreadyRespondedError as e:
                out["late_answer"] = type(e).__name__
        out["events"] = events
    return out

