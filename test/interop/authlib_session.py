"""What the authlib interop clients share: their command line, session and answer.

An OAuth2Session used as authlib's documentation shows, authenticating with HTTP Basic; the client
secret comes from the environment (TOKEN_AUTHORITY_CLIENT_SECRET), not the command line, where any
process on the host could read it. The answer is one JSON object on stdout, the token response and
its introspection (RFC 7662); an OAuth error is printed as {"error": …, "error_description": …}
and the exit status is 2.

Needs Debian's python3-authlib and python3-requests (`apt-get install python3-authlib`).
"""

import argparse
import json
import os
from typing import Callable, Optional

from authlib.integrations.requests_client import OAuth2Session, OAuthError


def command_line(doc: str) -> argparse.ArgumentParser:
    """The arguments every client takes; a client adds its own before parsing."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--token-endpoint", required=True)
    parser.add_argument("--introspection-endpoint", required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--audience", required=True)
    return parser


def session(args: argparse.Namespace, scope: Optional[str] = None) -> OAuth2Session:
    """The client's session, its secret from the environment."""
    return OAuth2Session(
        client_id=args.client_id,
        client_secret=os.environ["TOKEN_AUTHORITY_CLIENT_SECRET"],
        scope=scope,
        token_endpoint_auth_method="client_secret_basic",
    )


def answer(args: argparse.Namespace, client: OAuth2Session, fetch: Callable[[], dict]) -> int:
    """Fetches the token, introspects it and prints both; the exit status."""
    try:
        token = fetch()
    except OAuthError as error:
        print(json.dumps({"error": error.error, "error_description": error.description}))
        return 2
    introspection = client.introspect_token(
        args.introspection_endpoint, token=token["access_token"], token_type_hint="access_token"
    )
    introspection.raise_for_status()
    print(json.dumps({"token": dict(token), "introspection": introspection.json()}))
    return 0
