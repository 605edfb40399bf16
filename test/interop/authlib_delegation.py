"""An unchanged authlib client as an agent: RFC 8693 delegated token exchange.

Authlib's requests OAuth2Session, used as its documentation shows: the agent authenticates with
its own credential (HTTP Basic), gets its private token (client_credentials), then exchanges the
customer's token whose may_act names it (`subject_token`) with that private token as
`actor_token`: authlib sends a grant it does not know as any other, its extra keyword arguments
the form fields. It introspects what it got (RFC 7662) and prints one JSON object, the token
response and the introspection, for test/integration/delegation-interop.test.ts to judge; an OAuth
error is printed as {"error": …, "error_description": …} and the exit status is 2.

The client secret and the customer's token come from the environment
(TOKEN_AUTHORITY_CLIENT_SECRET, TOKEN_AUTHORITY_SUBJECT_TOKEN), not the command line.

Needs Debian's python3-authlib and python3-requests (`apt-get install python3-authlib`).
"""

import argparse
import json
import os
import sys

from authlib.integrations.requests_client import OAuth2Session, OAuthError

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--token-endpoint", required=True)
    parser.add_argument("--introspection-endpoint", required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--audience", required=True)
    parser.add_argument("--space", required=True, help="X-Service-Space-ID")
    args = parser.parse_args()

    session = OAuth2Session(
        client_id=args.client_id,
        client_secret=os.environ["TOKEN_AUTHORITY_CLIENT_SECRET"],
        token_endpoint_auth_method="client_secret_basic",
    )
    try:
        own = session.fetch_token(
            args.token_endpoint, grant_type="client_credentials", audience=args.audience
        )
        token = session.fetch_token(
            args.token_endpoint,
            grant_type=TOKEN_EXCHANGE,
            headers={"X-Service-Space-ID": args.space},
            subject_token=os.environ["TOKEN_AUTHORITY_SUBJECT_TOKEN"],
            subject_token_type=ACCESS_TOKEN,
            actor_token=own["access_token"],
            actor_token_type=ACCESS_TOKEN,
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
