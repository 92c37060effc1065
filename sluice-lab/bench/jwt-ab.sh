#!/usr/bin/env bash
# The cost of JWT validation (issue 16's budget: /compose within 10 % of the same route without it):
# interleave.sh with the same jar twice, ab/plain.yaml against ab/jwt.yaml (RS256, keys cached from a
# JWKS file), wrk sending one valid token. The key pair, the JWKS and the token are made here
# (python3 with PyJWT and cryptography, installed from PyPI when missing).
#
# usage: jwt-ab.sh JAR[:ENGINE] [interleave.sh flags: --rounds 6 --seconds 10 --paths "/compose /16k" ...]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
[[ $# -ge 1 ]] || { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
SUBJECT=$1
shift
python3 -c 'import jwt, cryptography' 2>/dev/null || python3 -m pip install -q pyjwt cryptography
WORK=$(mktemp -d /tmp/jwt-ab.XXXXXX)
TOKEN=$(python3 - "$WORK" <<'PY'
import json, sys, time
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
work = sys.argv[1]
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
jwk = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
jwk.update(kid="bench", alg="RS256", use="sig")
open(f"{work}/jwks.json", "w").write(json.dumps({"keys": [jwk]}))
now = int(time.time())
print(jwt.encode({"iss": "https://idp.test/", "aud": "shop", "sub": "user-42", "iat": now,
                  "exp": now + 6 * 3600}, key, algorithm="RS256", headers={"kid": "bench"}))
PY
)
sed "s|@JWKS@|$WORK/jwks.json|g" "$HERE/ab/jwt.yaml" >"$WORK/jwt.yaml"
exec bash "$HERE/interleave.sh" --subject "plain=$SUBJECT" --subject "jwt=$SUBJECT" \
  --config "plain=$HERE/ab/plain.yaml" --config "jwt=$WORK/jwt.yaml" \
  --header "jwt=Authorization: Bearer $TOKEN" "$@"
