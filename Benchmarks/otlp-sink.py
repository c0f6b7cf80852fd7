#!/usr/bin/env python3
"""A loopback OTLP/HTTP trace receiver for benchmarks: takes POST /v1/traces (protobuf),
answers 200, and counts requests, bytes and spans. Prints the counts on SIGTERM/SIGINT and
to --report FILE after every request.

    Benchmarks/otlp-sink.py --port 4318 --report /tmp/otlp-sink.json &
    IAP_OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 .build/release/iap-lab bench --receipts 10000
"""
import argparse, json, signal, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

counts = {"requests": 0, "bytes": 0, "spans": 0}
lock = threading.Lock()


def fields(data):
    """(field number, wire type, value) of one protobuf message; value is bytes for type 2."""
    i = 0
    while i < len(data):
        tag, i = varint(data, i)
        number, kind = tag >> 3, tag & 7
        if kind == 0:
            value, i = varint(data, i)
        elif kind == 1:
            value, i = data[i:i + 8], i + 8
        elif kind == 2:
            length, i = varint(data, i)
            value, i = data[i:i + length], i + length
        elif kind == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % kind)
        yield number, kind, value


def varint(data, i):
    shift = value = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, i
        shift += 7


def count_spans(body):
    # ExportTraceServiceRequest.resource_spans(1) > ResourceSpans.scope_spans(2) > ScopeSpans.spans(2)
    return sum(1 for n, _, resource in fields(body) if n == 1
               for m, _, scope in fields(resource) if m == 2
               for s, _, _ in fields(scope) if s == 2)


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        spans = count_spans(body) if self.path == "/v1/traces" else 0
        with lock:
            counts["requests"] += 1
            counts["bytes"] += len(body)
            counts["spans"] += spans
            if args.report:
                with open(args.report, "w") as f:
                    json.dump(counts, f)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_):
        pass


parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=4318)
parser.add_argument("--report")
args = parser.parse_args()
server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
signal.signal(signal.SIGTERM, lambda *_: (print(json.dumps(counts)), sys.exit(0)))
try:
    server.serve_forever()
except KeyboardInterrupt:
    print(json.dumps(counts))
