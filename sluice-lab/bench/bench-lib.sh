# Shared by the bench scripts (source it): tools from Debian, nginx serving a 16 KB file, and the
# gateway configuration every bench runs (the demo's /compose and the file proxied from nginx).

# need NAME COMMAND PACKAGE: installs PACKAGE from Debian when COMMAND is missing (as root), else fails.
bench_need() {
  command -v "$2" >/dev/null 2>&1 && return 0
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "$1: installing $3 from Debian" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$3" >/dev/null
  fi
  command -v "$2" >/dev/null 2>&1 || { echo "$1: '$2' is missing (install the Debian package '$3')" >&2; exit 1; }
}

# bench_jdk25: prints the home of a JDK 25 or newer (JAVA_HOME, then /usr/lib/jvm/*); fails when none.
bench_jdk25() {
  local home m
  for home in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [[ -n $home && -x $home/bin/java ]] || continue
    m=$("$home/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
    [[ -n $m && $m -ge 25 ]] && { echo "$home"; return 0; }
  done
  return 1
}

# bench_profiler WORK JDK VERSION: prints the path of async-profiler's agent library, unpacked into
# WORK from its Maven Central jar (fetched through the project's Maven wrapper when not in ~/.m2).
bench_profiler() {
  local work=$1 jdk=$2 version=$3 arch jar
  jar=$HOME/.m2/repository/tools/profiler/async-profiler/$version/async-profiler-$version.jar
  if [[ ! -f $jar ]]; then
    JAVA_HOME=$jdk "$(dirname "${BASH_SOURCE[0]}")/../../mvnw" -q -B dependency:get \
      -Dartifact="tools.profiler:async-profiler:$version" >&2
  fi
  case $(uname -m) in
    x86_64) arch=linux-x64 ;;
    aarch64) arch=linux-arm64 ;;
    *) echo "async-profiler has no library for $(uname -m)" >&2; return 1 ;;
  esac
  (cd "$work" && unzip -q -o "$jar" "$arch/libasyncProfiler.so")
  echo "$work/$arch/libasyncProfiler.so"
}

# bench_nginx_files WORK PORT: a 16 KB and a 1 MiB file under WORK/www and WORK/nginx.conf serving it on PORT
# (one worker, keep-alive without limit, no access log).
bench_nginx_files() {
  local work=$1 port=$2
  mkdir -p "$work/www"
  chmod 755 "$work" "$work/www" # nginx's workers run as another user
  # base64 writes more than the cut keeps: through a file, so that no early close of the pipe
  # (SIGPIPE, exit 141 under pipefail) stops the bench
  head -c 12288 /dev/urandom | base64 -w 100 >"$work/www/b64"
  head -c 16384 "$work/www/b64" >"$work/www/16k"
  head -c 786432 /dev/urandom | base64 -w 100 >"$work/www/b64"
  head -c 1048576 "$work/www/b64" >"$work/www/1m"
  rm -f "$work/www/b64"
  chmod 644 "$work/www/16k" "$work/www/1m"
  cat >"$work/nginx.conf" <<EOF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  client_body_temp_path $work/t1; proxy_temp_path $work/t2; fastcgi_temp_path $work/t3;
  uwsgi_temp_path $work/t4; scgi_temp_path $work/t5;
  server { listen 127.0.0.1:$port; root $work/www; }
}
EOF
}

# bench_nginx_gateway DIR PORT UPSTREAM_PORT_BASE NGINX_PORT WORKERS [CERT KEY]: DIR/nginx-gateway.conf,
# nginx as the gateway on PORT with WORKERS worker processes (a number or auto), on the routes the
# gateways serve: /16k and /1m reverse-proxied (keep-alive) from the nginx on NGINX_PORT, and /compose,
# the demo's three APIs composed into the same JSON object by SSI subrequests (issued in parallel,
# spliced in declared order, never parsed). With CERT and KEY it listens over TLS (1.2 and 1.3).
bench_nginx_gateway() {
  local dir=$1 port=$2 base=$3 nginx_port=$4 workers=$5 cert=${6:-} key=${7:-} listen
  mkdir -p "$dir/www"
  chmod 755 "$dir" "$dir/www" # nginx's workers run as another user
  printf '%s' '{"products":<!--# include virtual="/part/products/products" -->,"customer":<!--# include virtual="/part/customers/customers/42" -->,"reviews":<!--# include virtual="/part/reviews/reviews" -->}' \
    >"$dir/www/compose.json"
  chmod 644 "$dir/www/compose.json"
  listen="listen 127.0.0.1:$port;"
  if [[ -n $cert ]]; then
    listen="listen 127.0.0.1:$port ssl; ssl_certificate $cert; ssl_certificate_key $key; ssl_protocols TLSv1.2 TLSv1.3;"
  fi
  cat >"$dir/nginx-gateway.conf" <<EOF
worker_processes $workers;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  client_body_temp_path $dir/t1; proxy_temp_path $dir/t2; fastcgi_temp_path $dir/t3;
  uwsgi_temp_path $dir/t4; scgi_temp_path $dir/t5;
  proxy_http_version 1.1;
  proxy_set_header Connection "";
  upstream web { server 127.0.0.1:$nginx_port; keepalive 256; }
  upstream products { server 127.0.0.1:$base; keepalive 256; }
  upstream customers { server 127.0.0.1:$((base + 1)); keepalive 256; }
  upstream reviews { server 127.0.0.1:$((base + 2)); keepalive 256; }
  server {
    $listen
    root $dir/www;
    location = /16k { proxy_pass http://web; }
    location = /1m { proxy_pass http://web; }
    location = /compose { ssi on; ssi_types *; default_type application/json; try_files /compose.json =404; }
    location /part/products/ { internal; proxy_pass http://products/; }
    location /part/customers/ { internal; proxy_pass http://customers/; }
    location /part/reviews/ { internal; proxy_pass http://reviews/; }
  }
}
EOF
}

# bench_haproxy DIR PORT NGINX_PORT [CERT KEY]: DIR/haproxy.cfg, HAProxy with one thread as a keep-alive
# reverse proxy of the nginx on NGINX_PORT (every path: /16k and /1m are the gateways' routes), over TLS
# with CERT and KEY.
bench_haproxy() {
  local dir=$1 port=$2 nginx_port=$3 cert=${4:-} key=${5:-} bind
  mkdir -p "$dir"
  bind="bind 127.0.0.1:$port"
  if [[ -n $cert ]]; then
    cat "$cert" "$key" >"$dir/certificate.pem"
    bind="$bind ssl crt $dir/certificate.pem"
  fi
  cat >"$dir/haproxy.cfg" <<EOF
global
  nbthread 1
  maxconn 4096
defaults
  mode http
  timeout connect 5s
  timeout client 60s
  timeout server 60s
  option http-keep-alive
  http-reuse always
frontend gateway
  $bind
  default_backend web
backend web
  server nginx 127.0.0.1:$nginx_port
EOF
}

# bench_gateway_yaml FILE PORT UPSTREAM_PORT_BASE NGINX_PORT: GET /compose of the demo's products,
# customers and reviews APIs, and GET /16k and /1m proxied from nginx.
bench_gateway_yaml() {
  local base=$3
  cat >"$1" <<EOF
server: { host: 127.0.0.1, port: $2 }
upstreams:
  products:  { url: "http://127.0.0.1:$base" }
  customers: { url: "http://127.0.0.1:$((base + 1))" }
  reviews:   { url: "http://127.0.0.1:$((base + 2))" }
  web:       { url: "http://127.0.0.1:$4" }
routes:
  - id: compose
    match: { path: /compose, methods: [GET] }
    compose:
      parts:
        products: { upstream: products,  path: /products }
        customer: { upstream: customers, path: /customers/42 }
        reviews:  { upstream: reviews,   path: /reviews }
  - id: file
    match: { path: /16k, methods: [GET] }
    proxy: { upstream: web }
  - id: large
    match: { path: /1m, methods: [GET] }
    proxy: { upstream: web }
EOF
}

# bench_upstreams WORK JAVA JAR BASE NGINX_PORT: the demo upstreams (`upstreams` of the Sluice jar
# JAR, on ports BASE to BASE+5) and nginx serving the 16 KB file on NGINX_PORT, working in WORK. Every
# process in BENCH_PIDS and that nginx stop when the script exits (bench_cleanup, set as the EXIT trap).
BENCH_PIDS=()
BENCH_NGINX_WORK=
bench_cleanup() {
  local pid
  for pid in "${BENCH_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [[ -n $BENCH_NGINX_WORK ]]; then nginx -c "$BENCH_NGINX_WORK/nginx.conf" -p "$BENCH_NGINX_WORK" -s stop 2>/dev/null || true; fi
  wait 2>/dev/null || true
}
bench_upstreams() {
  local work=$1 java=$2 jar=$3 base=$4 nginx_port=$5
  trap bench_cleanup EXIT
  "$java" -jar "$jar" upstreams --host 127.0.0.1 --port-base "$base" >"$work/upstreams.log" 2>&1 &
  BENCH_PIDS+=("$!")
  bench_nginx_files "$work" "$nginx_port"
  nginx -c "$work/nginx.conf" -p "$work"
  BENCH_NGINX_WORK=$work
}

# bench_wait_ready SCRIPT URL PID LOG: waits up to 30 s for URL to answer 2xx; fails, naming LOG,
# when the process PID exits first or URL never answers. An https URL is not verified (the benches'
# certificates are made on the spot).
bench_wait_ready() {
  local script=$1 url=$2 pid=$3 log=$4
  for _ in $(seq 1 300); do
    curl -sfk -o /dev/null "$url" && return 0
    kill -0 "$pid" 2>/dev/null || { echo "$script: the process behind $url exited; see $log" >&2; exit 1; }
    sleep 0.1
  done
  echo "$script: $url does not answer; see $log" >&2
  exit 1
}

# An OTLP/HTTP sink on 127.0.0.1:PORT (python3): answers 200 to every POST and counts them in
# WORK/otlp.log, so that span export succeeds and a sampled-out request costs what it costs in
# production, never a failed export's retries. Its PID goes to BENCH_PIDS.
bench_otlp_sink() {
  local work=$1 port=$2
  python3 - "$port" >"$work/otlp.log" 2>&1 <<'PY' &
import http.server, sys
class Sink(http.server.BaseHTTPRequestHandler):
    posts = 0
    def do_POST(self):
        self.rfile.read(int(self.headers.get('Content-Length') or 0))
        self.send_response(200)
        self.send_header('Content-Type', 'application/x-protobuf')
        self.send_header('Content-Length', '0')
        self.end_headers()
        Sink.posts += 1
        print(f"otlp: {Sink.posts} posts", flush=True)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), Sink).serve_forever()
PY
  BENCH_PIDS+=($!)
}
