#!/usr/bin/env python3
"""Shares of a system-wide profile, per stage of `iap-lab bench`: what BENCHMARKS.md quotes.

    perf record -a -F 999 -g -o perf.data -- sleep 14 &
    iap-lab bench --receipts 15000
    perf script -i perf.data -F comm,pid,tid,ip,sym > perf.txt
    scripts/profile-shares.py perf.txt

Each sample's process is named by the stage's module most of its stacks show (the stage
processes are all `iap`); a share is the samples with a matching frame anywhere in the stack.
"""
import collections
import re
import sys

STAGES = {"9StubStore": "stub store", "6Intake": "intake", "9Validator": "validator",
          "9Fulfiller": "fulfiller", "8Notifier": "notifier", "WebhookCounter": "load"}
GROUPS = {
    "dates and trims": ["Timestamp", "AppleDate", "trimmingCharacters", "CharacterSet", "Calendar",
                        "ISO8601", "DateFormatter"],
    "GRDB's date formatting": ["$s20FoundationEssentials4DateV4GRDBE13databaseValue"],
    "NUL scan": ["$sSTsSQ7ElementRpzrlE8containsySbABFSS8UTF8ViewV_Tg5"],
    "JSON coding": ["JSONEncoder", "JSONDecoder", "JSONWriter"],
    "binding arguments": ["GRDBSessionV9arguments"],
    "key-path projection": ["swift_getAtKeyPath"],
}
# Where the messages between stages are coded: the caller just above Foundation's JSON frames.
MESSAGES = {"intake: Submission encoded": ("6Intake", "publishSubmissions"),
            "validator: Submission decoded": ("9Validator", "$s9ValidatorAAV6handleyy6Broker8DeliveryVYaFTY0_"),
            "validator: Verdict encoded": ("9Validator", "verdictMessage"),
            "fulfiller: Verdict decoded": ("9Fulfiller", "Fulfiller")}


def samples(path):
    pid, stack = None, []
    for line in open(path, errors="replace"):
        if not line.strip():
            if pid:
                yield pid, stack
            pid, stack = None, []
        elif not line[0].isspace():
            match = re.match(r"\s*.*?\s+(\d+)/\d+", line)
            pid, stack = (match.group(1) if match else None), []
        else:
            parts = line.split(None, 1)
            stack.append(parts[1].strip() if len(parts) > 1 else "?")
    if pid:
        yield pid, stack


def main(path):
    all_samples = [(pid, st) for pid, st in samples(path) if not any("pv_native_safe_halt" in f for f in st[:3])]
    seen = collections.defaultdict(collections.Counter)
    for pid, st in all_samples:
        for module in STAGES:
            if any(module in f for f in st):
                seen[pid][module] += 1
    stage = {pid: counts.most_common(1)[0][0] for pid, counts in seen.items()}
    total, hits, coded = collections.Counter(), collections.defaultdict(collections.Counter), collections.Counter()
    for pid, st in all_samples:
        module = stage.get(pid, "other")
        total[module] += 1
        for group, patterns in GROUPS.items():
            if any(p in f for f in st for p in patterns):
                hits[group][module] += 1
        json_frames = [i for i, f in enumerate(st) if "JSONEncoder" in f or "JSONDecoder" in f]
        if json_frames:
            caller = next((f for f in st[max(json_frames) + 1:] if "FoundationEssentials" not in f and "JSON" not in f), "")
            for name, (owner, pattern) in MESSAGES.items():
                if module == owner and pattern in caller and (owner != "9Fulfiller" or "Verdict" in caller):
                    coded[name] += 1
    busy = len(all_samples)
    print(f"{busy} busy samples")
    for group in GROUPS:
        per_stage = "  ".join(f"{STAGES[m]} {100 * hits[group][m] / max(total[m], 1):.1f} %" for m in STAGES)
        print(f"{group:24s} machine {100 * sum(hits[group].values()) / busy:.1f} %   {per_stage}")
    for name, (owner, _) in MESSAGES.items():
        print(f"{name:32s} {100 * coded[name] / max(total[owner], 1):.1f} % of its process, "
              f"{100 * coded[name] / busy:.2f} % of the machine")
    print(f"{'messages coded, all four':32s} {100 * sum(coded.values()) / busy:.2f} % of the machine")


if __name__ == "__main__":
    main(sys.argv[1])
