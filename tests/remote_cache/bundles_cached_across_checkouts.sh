#!/usr/bin/env bash
# Bundles are cache-safe: every kiln_bundle built in one checkout is served,
# byte for byte, to a build of another checkout at another path through a
# shared HTTP cache (README "Reliability").
#
# Starts nginx (WebDAV PUT) on 127.0.0.1 in a temporary directory, copies the
# source tree to two paths, and builds every kiln_bundle target of the host
# (//..., manual ones included) in each from a clean output base:
#   1. checkout A: every kilnc action runs and its results go to the cache;
#   2. checkout B: every kilnc action must be a remote cache hit, and every
#      bundle file must equal A's.
# kilnc itself comes from the local disk cache in both (the aspect of
# kilnc_tool.bzl builds it alone), so only the bundles go through the HTTP
# cache. Usage: tests/remote_cache/bundles_cached_across_checkouts.sh
# (make test-remote-cache). KEEP=1 keeps the temporary directory.
set -euo pipefail

BAZEL=${BAZEL:-bazel}
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kiln-remote-cache.XXXXXX")
disk_cache=$HOME/.cache/kiln-bazel-disk
nginx_pid=""
output_bases=()

cleanup() {
  for ob in "${output_bases[@]}"; do
    (cd "$work" && "$BAZEL" --output_base="$ob" shutdown) >/dev/null 2>&1 || true
  done
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
  if [ -z "${KEEP:-}" ]; then
    chmod -R u+w "$work" 2>/dev/null || true
    rm -rf "$work"
  else
    echo "kept $work" >&2
  fi
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The cache: nginx's WebDAV module stores each PUT under the root and GET
# serves it back, which is Bazel's HTTP cache protocol (/ac/HASH, /cas/HASH).
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/nginx/cache" "$work/nginx/tmp"
cat >"$work/nginx/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 256; }
http {
  access_log $work/nginx/access.log;
  client_body_temp_path $work/nginx/tmp/body;
  proxy_temp_path $work/nginx/tmp/proxy;
  fastcgi_temp_path $work/nginx/tmp/fastcgi;
  uwsgi_temp_path $work/nginx/tmp/uwsgi;
  scgi_temp_path $work/nginx/tmp/scgi;
  server {
    listen 127.0.0.1:$port;
    root $work/nginx/cache;
    client_max_body_size 0;
    location / {
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw;
    }
  }
}
EOF
/usr/sbin/nginx -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" &
nginx_pid=$!
cache=http://127.0.0.1:$port
for _ in $(seq 50); do
  curl -s -o /dev/null "$cache/" && break
  sleep 0.1
done
curl -s -X PUT --data probe -o /dev/null -w '%{http_code}' "$cache/probe" | grep -q '^20[14]$' ||
  fail "nginx at $cache does not take PUT (see $work/nginx/error.log)"

# Two checkouts of the working tree (tracked and new files) at different paths
# and depths. The shared models are found through the variables, as
# ../shared is not beside the copies.
for var_dir in KILN_SHARED_MODELS:models KILN_SUITE_MODELS:suite; do
  var=${var_dir%%:*}
  dir=$(cd "$src/../shared/${var_dir#*:}" 2>/dev/null && pwd) || continue
  export "$var=${!var:-$dir}"
done
checkout_a=$work/a/kiln
checkout_b=$work/b/another/place/kiln
for dest in "$checkout_a" "$checkout_b"; do
  mkdir -p "$dest"
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
    tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$dest"
done

# build CHECKOUT NAME: builds every bundle from a clean output base, kilnc
# from the disk cache, the bundles through the HTTP cache only; the
# execution log is NAME.log.
build() {
  local checkout=$1 name=$2 ob=$work/$2.output_base
  output_bases+=("$ob")
  cd "$checkout"
  # Manual ones too; not those only bare metal can build.
  "$BAZEL" --output_base="$ob" query 'kind("_kiln_compile rule", //...)
      except attr(target_compatible_with, "os:none", //...)' 2>/dev/null >"$work/$name.targets"
  [ -s "$work/$name.targets" ] || fail "no kiln_bundle targets in $checkout"
  "$BAZEL" --output_base="$ob" build --disk_cache="$disk_cache" \
    --aspects=//tests/remote_cache:kilnc_tool.bzl%kilnc_tool --output_groups=kilnc \
    $(cat "$work/$name.targets")
  "$BAZEL" --output_base="$ob" build --disk_cache= --remote_cache="$cache" \
    --execution_log_json_file="$work/$name.log" $(cat "$work/$name.targets")
  "$BAZEL" --output_base="$ob" info output_path 2>/dev/null >"$work/$name.output_path"
}

start=$(date +%s)
build "$checkout_a" first
build "$checkout_b" second
cmp -s "$work/first.targets" "$work/second.targets" || fail "the checkouts list different bundles"

# Every kilnc action ran in the first build and was a remote cache hit in the
# second.
/usr/bin/python3 - "$work/first.log" "$work/second.log" "$work/first.targets" <<'EOF'
import json, sys

def spawns(path):
    text, decoder, at, out = open(path).read(), json.JSONDecoder(), 0, []
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return [s for s in out if s.get("mnemonic") == "KilnCompile"]
        spawn, at = decoder.raw_decode(text, at)
        out.append(spawn)

first, second = spawns(sys.argv[1]), spawns(sys.argv[2])
targets = len(open(sys.argv[3]).read().split())
if len(first) != targets or len(second) != targets:
    sys.exit("FAIL: %d bundles, but %d and %d kilnc actions in the two builds"
             % (targets, len(first), len(second)))
ran = [s for s in first if s.get("remoteCacheHit")]
if ran:
    sys.exit("FAIL: the first build found %d kilnc results already cached" % len(ran))
missed = [s.get("progressMessage", "?") for s in second if not s.get("remoteCacheHit")]
if missed:
    sys.exit("FAIL: %d of %d kilnc actions of the other checkout were not served from "
             "the cache:\n  %s" % (len(missed), targets, "\n  ".join(missed)))
print("%d kilnc actions: all executed in checkout A, all remote cache hits in checkout B"
      % targets)
EOF

# The bundle files are identical.
files=0
while IFS= read -r -d '' f; do
  rel=${f#"$(cat "$work/first.output_path")"/}
  cmp -s "$f" "$(cat "$work/second.output_path")/$rel" || fail "$rel differs between the checkouts"
  files=$((files + 1))
done < <(find "$(cat "$work/first.output_path")" -path '*_kiln/*' -type f -print0)
[ "$files" -gt 0 ] || fail "no bundle files found"
echo "$files bundle files identical across $checkout_a and $checkout_b"
echo "PASS in $(($(date +%s) - start)) s"
