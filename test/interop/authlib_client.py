"""An unchanged authlib client against token-authority: client_credentials with a scope.

Authlib's requests OAuth2Session, used as its documentation shows, with nothing adapted to this
service: it asks the token endpoint for a private token with `scope` (RFC 6749 §3.3, form-encoded,
HTTP Basic), then introspects what it got (RFC 7662). It prints one JSON object, the token response
and the introspection, for test/integration/tokens/scope-interop.test.ts to judge; an OAuth error is
printed as {"error": …, "error_description": …} and the exit status is 2 (authlib_session.py).
"""

import sys

from authlib_session import answer, command_line, session


def main() -> int:
    parser = command_line(__doc__)
    parser.add_argument("--scope", required=True, help="space-delimited scopes to ask for")
    args = parser.parse_args()
    client = session(args, scope=args.scope)
    # `audience` is this service's (and RFC 8693's) name for the API the token is for;
    # authlib sends extra keyword arguments as form fields of the token request.
    return answer(
        args,
        client,
        lambda: client.fetch_token(
            args.token_endpoint, grant_type="client_credentials", audience=args.audience
        ),
    )


if __name__ == "__main__":
    sys.exit(main())
