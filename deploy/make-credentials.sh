#!/bin/sh
# Makes what a secure wasserwarp-server needs, with openssl: a CA, a server certificate it
# signed, and bearer tokens. deploy/README.md ("Secrets") turns them into Kubernetes Secrets or
# mounts them into Compose; tests/image/ uses this script too.
#
#   deploy/make-credentials.sh DIR [NAME...]
#
# NAME: further DNS names or IP addresses the certificate is for (the Services', e.g.
# wasserwarp.NAMESPACE.svc); localhost and 127.0.0.1 are always in it, for the probes.
#
#   DIR/ca/      ca.crt, ca.key: the CA; keep ca.key offline
#   DIR/tls/     tls.crt, tls.key, ca.crt: the server's (--tls_cert, --tls_key; the probes
#                trust ca.crt)
#   DIR/auth/    tokens: principal:token lines (--auth_tokens_file), for the principals
#                "probe" (the probes') and "user"; probe-token: the probe's token
#   DIR/client/  ca.crt, token: what `wasserwarp --tls-ca DIR/client/ca.crt
#                --token-file DIR/client/token` needs, as principal "user"
#
# Everything is made anew; files are readable by their owner only.
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 DIR [NAME...]" >&2
  exit 2
fi
dir=$1
shift
umask 077
mkdir -p "$dir/ca" "$dir/tls" "$dir/auth" "$dir/client"

sans="DNS:localhost,IP:127.0.0.1"
for name in "$@"; do
  case $name in
    *[!0-9.]*) sans="$sans,DNS:$name" ;;
    *) sans="$sans,IP:$name" ;;
  esac
done

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }

key "$dir/ca/ca.key"
openssl req -x509 -new -key "$dir/ca/ca.key" -subj /CN=wasserwarp-ca -days 3650 \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
  -out "$dir/ca/ca.crt"

key "$dir/tls/tls.key"
openssl req -new -key "$dir/tls/tls.key" -subj /CN=wasserwarp -out "$dir/ca/tls.csr"
# clientAuth too: with mutual TLS the probes present the server's own certificate.
printf '%s\n' "subjectAltName=$sans" "basicConstraints=critical,CA:FALSE" \
  "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth,clientAuth" \
  > "$dir/ca/tls.ext"
openssl x509 -req -in "$dir/ca/tls.csr" -CA "$dir/ca/ca.crt" -CAkey "$dir/ca/ca.key" \
  -set_serial "0x$(openssl rand -hex 16)" -days 365 -extfile "$dir/ca/tls.ext" \
  -out "$dir/tls/tls.crt" 2>/dev/null
rm "$dir/ca/tls.csr" "$dir/ca/tls.ext"
cp "$dir/ca/ca.crt" "$dir/tls/ca.crt"
cp "$dir/ca/ca.crt" "$dir/client/ca.crt"

probe=$(openssl rand -hex 32)
user=$(openssl rand -hex 32)
printf 'probe:%s\nuser:%s\n' "$probe" "$user" > "$dir/auth/tokens"
printf '%s\n' "$probe" > "$dir/auth/probe-token"
printf '%s\n' "$user" > "$dir/client/token"
echo "credentials in $dir: tls/ and auth/ for the server, client/ for the CLI"
