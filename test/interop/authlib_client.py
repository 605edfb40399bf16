"""An unchanged authlib client against token-authority: client_credentials with a scope.

Authlib's requests OAuth2Session, used as its documentation shows, with nothing adapted to this
service: it asks the token endpoint for a private token with `scope` (RFC 6749 §3.3, form-encoded,
HTTP Basic), then introspects what it got (RFC 7662). It prints one JSON object, the token response
and the introspection, for test/integration/scope-interop.test.ts to judge; an OAuth error is
printed as {"error": …, "error_description": …} and the exit status is 2.

The client secret comes from the environment (TOKEN_AUTHORITY_CLIENT_SECRET), not the command
line, where any process on the host could read it.

Needs Debian's python3-authlib and python3-requests (`apt-get install python3-authlib`).
"""

import argparse
import json
import os
import sys

from authlib.integrations.requests_client import OAuth2Session, OAuthError


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--token-endpoint", required=True)
    parser.add_argument("--introspection-endpoint", required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--audience", required=True)
    parser.add_argument("--scope", required=True, help="space-delimited scopes to ask for")
    args = parser.parse_args()

    session = OAuth2Session(
        client_id=args.client_id,
        client_secret=os.environ["TOKEN_AUTHORITY_CLIENT_SECRET"],
        scope=args.scope,
        token_endpoint_auth_method="client_secret_basic",
    )
    try:
        # `audience` is this service's (and RFC 8693's) name for the API the token is for;
        # authlib sends extra keyword arguments as form fields of the token request.
        token = session.fetch_token(
            args.token_endpoint, grant_type="client_credentials", audience=args.audience
        )
    except OAuthError as error:
        print(json.dumps({"error": error.error, "error_description": error.description}))
        return 2
    introspection = session.introspect_token(
        args.introspection_endpoint, token=token["access_token"], token_type_hint="access_token"
    )
    introspection.raise_for_status()
    print(json.dumps({"token": dict(token), "introspection": introspection.json()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
