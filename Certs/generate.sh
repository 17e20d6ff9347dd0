#!/bin/sh
# Generates the development-only PKI used by the sandbox APNs server and the HTTP/2 tests.
# Everything here is throw-away test material: never trust dev-ca.pem outside development.
# Re-running replaces every file. Requires the `openssl` command-line tool (1.1.1 or 3.x).
set -eu
cd "$(dirname "$0")"

DAYS=7300   # 20 years: the committed files should outlive the project.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ca() { # ca <name> <subject>
    openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days "$DAYS" \
        -keyout "$1.key" -out "$1.pem" -subj "$2" \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}

leaf() { # leaf <name> <subject> <ca-name> <extensions>
    openssl req -newkey rsa:2048 -nodes -sha256 -keyout "$1.key" -out "$TMP/$1.csr" -subj "$2" 2>/dev/null
    printf '%s\n' "$4" > "$TMP/$1.ext"
    openssl x509 -req -in "$TMP/$1.csr" -CA "$3.pem" -CAkey "$3.key" -CAcreateserial \
        -CAserial "$TMP/$3.srl" -days "$DAYS" -sha256 -extfile "$TMP/$1.ext" -out "$1.pem" 2>/dev/null
}

SERVER_EXT='basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1'

CLIENT_EXT='basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth'

# The dev CA that the sandbox server's certificate chains to.
ca dev-ca "/O=Herald Development/CN=Herald Dev CA"
leaf sandbox-server "/O=Herald Development/CN=localhost" dev-ca "$SERVER_EXT"

# A client certificate for certificate-based (non-token) APNs auth, also as PKCS#12.
leaf dev-client "/O=Herald Development/OU=Push/CN=com.example.herald.dev" dev-ca "$CLIENT_EXT"
openssl pkcs12 -export -in dev-client.pem -inkey dev-client.key -certfile dev-ca.pem \
    -name "Herald dev client" -out dev-client.p12 -passout pass:herald

# An unrelated CA and a server certificate it signed: clients trusting dev-ca must reject it.
ca unknown-ca "/O=Unknown Authority/CN=Unknown CA"
leaf unknown-server "/O=Unknown Authority/CN=localhost" unknown-ca "$SERVER_EXT"

# A dev APNs token-signing key: EC P-256 in PKCS#8, like the .p8 files Apple issues.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out dev-apns-key.p8 2>/dev/null
openssl pkey -in dev-apns-key.p8 -pubout -out dev-apns-key.pub.pem

# A dev FCM service account: Google's key-file JSON with an RSA key, its token_uri the sandbox's.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out dev-fcm.key 2>/dev/null
python3 - <<'PY'
import json
key = open("dev-fcm.key").read()
account = {"type": "service_account", "project_id": "herald-dev", "private_key_id": "devkey0001", "private_key": key,
           "client_email": "herald-dev@herald-dev.iam.gserviceaccount.com", "client_id": "100000000000000000001",
           "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://127.0.0.1:2197/token"}
open("dev-fcm-service-account.json", "w").write(json.dumps(account, indent=2) + "\n")
PY
rm dev-fcm.key

chmod 644 ./*.json ./*.pem ./*.key ./*.p8 ./*.p12
echo "Generated development certificates in $(pwd)"
