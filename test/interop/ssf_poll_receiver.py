"""An RFC 8936 poll receiver written against the specs with authlib, nothing of ours imported.

Finds the transmitter from its SSF metadata, polls the stream with its secret, verifies every
SET with authlib's JOSE against the JWKS the metadata names (typ secevent+jwt, the issuer, the
stream as aud, no exp or sub), acknowledges them, polls again. Prints one JSON object.
"""
import argparse
import json
import os
import sys

import requests
from authlib.jose import JsonWebKey, JsonWebToken

parser = argparse.ArgumentParser()
parser.add_argument("--metadata-url", required=True)
parser.add_argument("--poll-url", required=True)
parser.add_argument("--stream-id", required=True)
# Where the issuer's URLs are reached from here (the test service's port, not its public name).
parser.add_argument("--issuer-base", required=True)
parser.add_argument("--reach-base", required=True)
args = parser.parse_args()
secret = os.environ["SSF_STREAM_SECRET"]

metadata = requests.get(args.metadata_url, timeout=10).json()
if "urn:ietf:rfc:8936" not in metadata["delivery_methods_supported"]:
    sys.exit("the transmitter does not offer poll delivery")
jwks_url = metadata["jwks_uri"].replace(args.issuer_base, args.reach_base, 1)
keys = JsonWebKey.import_key_set(requests.get(jwks_url, timeout=10).json())
jwt = JsonWebToken(["EdDSA"])
headers = {"Authorization": f"Bearer {secret}"}


def poll(body):
    answer = requests.post(args.poll_url, json=body, headers=headers, timeout=10)
    answer.raise_for_status()
    return answer.json()


def verified(jti, set_text):
    claims = jwt.decode(
        set_text,
        keys,
        claims_options={
            "iss": {"essential": True, "value": metadata["issuer"]},
            "aud": {"essential": True, "value": args.stream_id},
            "jti": {"essential": True, "value": jti},
        },
    )
    claims.validate()
    header = claims.header
    if header.get("typ") != "secevent+jwt":
        sys.exit(f"typ {header.get('typ')}")
    if "exp" in claims or "sub" in claims:
        sys.exit("a SET carries neither exp nor sub")
    (event_type,) = claims["events"].keys()
    return {"event": event_type, "subject": claims["sub_id"]}


first = poll({"maxEvents": 100, "returnImmediately": True})
taken = [verified(jti, text) for jti, text in first["sets"].items()]
second = poll({"maxEvents": 100, "ack": list(first["sets"].keys())})
print(json.dumps({"taken": taken, "after_ack": second}))
