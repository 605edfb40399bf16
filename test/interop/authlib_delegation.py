"""An unchanged authlib client as an agent: RFC 8693 delegated token exchange.

Authlib's requests OAuth2Session, used as its documentation shows: the agent authenticates with
its own credential (HTTP Basic), gets its private token (client_credentials), then exchanges the
customer's token whose may_act names it (`subject_token`) with that private token as
`actor_token`: authlib sends a grant it does not know as any other, its extra keyword arguments
the form fields. It introspects what it got (RFC 7662) and prints one JSON object, the token
response and the introspection, for test/integration/delegation/delegation-interop.test.ts to judge; an OAuth
error is printed as {"error": …, "error_description": …} and the exit status is 2
(authlib_session.py).

The customer's token comes from the environment (TOKEN_AUTHORITY_SUBJECT_TOKEN), as the client
secret does, not the command line.
"""

import os
import sys

from authlib_session import answer, command_line, session

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token"


def main() -> int:
    parser = command_line(__doc__)
    parser.add_argument("--space", required=True, help="X-Service-Space-ID")
    args = parser.parse_args()
    client = session(args)

    def exchange() -> dict:
        own = client.fetch_token(
            args.token_endpoint, grant_type="client_credentials", audience=args.audience
        )
        return client.fetch_token(
            args.token_endpoint,
            grant_type=TOKEN_EXCHANGE,
            headers={"X-Service-Space-ID": args.space},
            subject_token=os.environ["TOKEN_AUTHORITY_SUBJECT_TOKEN"],
            subject_token_type=ACCESS_TOKEN,
            actor_token=own["access_token"],
            actor_token_type=ACCESS_TOKEN,
        )

    return answer(args, client, exchange)


if __name__ == "__main__":
    sys.exit(main())
