"""Log Codex in before a first turn: with an API key, or with a ChatGPT account in the browser.

    OPENAI_API_KEY=sk-... python examples/python/login.py --api-key-env OPENAI_API_KEY
    python examples/python/login.py --chatgpt            # prints the URL to open, waits
    python examples/python/login.py --chatgpt --async    # the same with asyncio
    python examples/python/login.py --chatgpt --wait 5   # gives up (cancels) after 5 s

The server keeps the credentials in its ``CODEX_HOME``; the library never logs the key, the
URL or the code. With ``--device-code`` (no browser on this machine) it prints a code to enter
at a URL instead.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any, Dict, Optional, Union

import codexclient


def show(login: Union[codexclient.Login, codexclient.AsyncLogin]) -> None:
    """Tell the user what to do: open the URL, or enter the code at the verification page."""
    if login.user_code is not None:
        print(f"enter the code {login.user_code} at {login.verification_url}", file=sys.stderr)
    else:
        print(f"open this URL to log in: {login.auth_url}", file=sys.stderr)


def log_in(client: codexclient.CodexClient, a: argparse.Namespace) -> Optional[Dict[str, Any]]:
    """The blocking flow: API key, or ChatGPT (browser or device code) waited on for ``--wait``
    seconds, cancelled past that. Returns the login's outcome (``None`` for an API key)."""
    if a.api_key_env:
        client.login_api_key(os.environ[a.api_key_env])
        return None
    login = client.login_device_code() if a.device_code else client.login_chatgpt()
    show(login)
    try:
        return login.wait(timeout=a.wait)
    except codexclient.RequestTimeoutError:
        login.cancel()  # the login is abandoned: its outcome becomes a failure
        return login.wait(timeout=30)


async def log_in_async(client: codexclient.AsyncCodexClient, a: argparse.Namespace) -> Optional[Dict[str, Any]]:
    """:func:`log_in` with asyncio."""
    if a.api_key_env:
        await client.login_api_key(os.environ[a.api_key_env])
        return None
    login = await (client.login_device_code() if a.device_code else client.login_chatgpt())
    show(login)
    try:
        return await login.wait(timeout=a.wait)
    except codexclient.RequestTimeoutError:
        await login.cancel()
        return await login.wait(timeout=30)


async def main_async(kw: Dict[str, Any], a: argparse.Namespace) -> Dict[str, Any]:
    async with codexclient.AsyncCodexClient(**kw) as client:
        outcome = await log_in_async(client, a)
        account = await client.account_read()
    return {"outcome": outcome, "account": account}


def main() -> None:
    """Parse the options, log in, print the outcome and the account the server now has (none
    when the configured model provider needs no OpenAI account, as with the tests' mock)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--api-key-env", metavar="VAR", help="log in with the API key in this variable")
    how.add_argument("--chatgpt", action="store_true", help="ChatGPT login in the browser")
    how.add_argument("--device-code", action="store_true", help="ChatGPT login with a device code")
    p.add_argument("--wait", type=float, default=300.0, help="seconds to wait for the user")
    p.add_argument("--async", dest="use_async", action="store_true", help="use AsyncCodexClient")
    p.add_argument("--codex-bin")
    p.add_argument("--codex-home")
    a = p.parse_args()
    kw: Dict[str, Any] = dict(codex_bin=a.codex_bin, codex_home=a.codex_home)
    if a.use_async:
        r = asyncio.run(main_async(kw, a))
        outcome, account = r["outcome"], r["account"]
    else:
        with codexclient.CodexClient(**kw) as client:
            outcome = log_in(client, a)
            account = client.account_read()
    if outcome is None:
        print("login: API key stored")
    else:
        print(f"login: {'succeeded' if outcome['success'] else 'failed: ' + str(outcome['error'])}")
    signed_in: Optional[Dict[str, Any]] = account.get("account")
    print(f"account: {signed_in['type'] if signed_in else 'none'}")


if __name__ == "__main__":
    main()
