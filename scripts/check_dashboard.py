#!/usr/bin/env python3
"""Checks a Grafana dashboard's structure offline (no Grafana, no schema download):
the parts of the dashboard model that Grafana's schema version 39 (Grafana 10.4, also
read by 11) requires and that can go wrong by hand: a known schemaVersion, a uid and
title, panels with unique ids, each non-row panel with a Prometheus datasource, targets
with unique refIds and an expression, and gridPos boxes inside the 24-column grid that do
not overlap; a ${datasource} reference needs its template variable. Writes every target's
expression, with Grafana's $__rate_interval and $__interval made 5m, as a recording rule
to the file given second, so that promtool parses each as PromQL.
What it does not check: Grafana's full JSON schema (each panel plugin's options)."""
import json
import sys

KNOWN_SCHEMA_VERSIONS = range(36, 42)  # Grafana 9.0 to 11.x


def fail(problem):
    sys.exit(f"check_dashboard: {sys.argv[1]}: {problem}")


def main():
    dashboard = json.load(open(sys.argv[1]))
    version = dashboard.get("schemaVersion")
    if not isinstance(version, int) or version not in KNOWN_SCHEMA_VERSIONS:
        fail(f"schemaVersion {version!r} is not one this check knows ({KNOWN_SCHEMA_VERSIONS})")
    for key in ("uid", "title"):
        if not isinstance(dashboard.get(key), str) or not dashboard[key]:
            fail(f"no {key}")
    variables = {v["name"] for v in dashboard.get("templating", {}).get("list", [])}
    panels = dashboard.get("panels")
    if not isinstance(panels, list) or not panels:
        fail("no panels")
    ids, boxes, expressions = set(), [], []
    for panel in panels:
        title = panel.get("title", "?")
        if not isinstance(panel.get("id"), int) or panel["id"] in ids:
            fail(f"panel {title!r}: id missing or used twice")
        ids.add(panel["id"])
        box = panel.get("gridPos", {})
        if not all(isinstance(box.get(k), int) for k in "hwxy") or box["h"] < 1 or box["w"] < 1:
            fail(f"panel {title!r}: gridPos needs integer h, w, x, y")
        if box["x"] < 0 or box["x"] + box["w"] > 24:
            fail(f"panel {title!r}: gridPos leaves the 24-column grid")
        for other_title, other in boxes:
            if (box["x"] < other["x"] + other["w"] and other["x"] < box["x"] + box["w"]
                    and box["y"] < other["y"] + other["h"] and other["y"] < box["y"] + box["h"]):
                fail(f"panels {title!r} and {other_title!r} overlap")
        boxes.append((title, box))
        if panel.get("type") == "row":
            continue
        if not panel.get("type") or not panel.get("title"):
            fail(f"panel {panel['id']}: no type or title")
        source = panel.get("datasource", {})
        if source.get("type") != "prometheus" or not source.get("uid"):
            fail(f"panel {title!r}: datasource must be Prometheus with a uid")
        targets = panel.get("targets")
        if not targets:
            fail(f"panel {title!r}: no targets")
        refs = [t.get("refId") for t in targets]
        if None in refs or len(set(refs)) != len(refs):
            fail(f"panel {title!r}: refIds missing or repeated")
        for target in targets:
            if not target.get("expr"):
                fail(f"panel {title!r}: target {target.get('refId')} has no expr")
            expressions.append(target["expr"])
        for uid in [source["uid"]] + [t.get("datasource", {}).get("uid", "") for t in targets]:
            if uid.startswith("${") and uid[2:-1] not in variables:
                fail(f"panel {title!r}: datasource {uid} names no template variable")
    with open(sys.argv[2], "w") as rules:
        rules.write("groups:\n  - name: dashboard-expressions\n    rules:\n")
        for index, expression in enumerate(expressions):
            promql = expression.replace("$__rate_interval", "5m").replace("$__interval", "5m")
            rules.write(f"      - record: dashboard:expression_{index}\n        expr: {json.dumps(promql)}\n")
    print(f"check_dashboard: {sys.argv[1]}: schemaVersion {version}, {len(ids)} panels, "
          f"{len(expressions)} expressions")


main()
