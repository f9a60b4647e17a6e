#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""UDSP figures (issue 15): one lnetd-pmd with PEERS Multi-Rail peers of two
NIDs each (12.x.x.x and 13.x.x.x @tcp, imported with lnetctl) and a tcp NI
on lo; then 20 `lnetctl udsp add` of every kind that touch the peers, and
`udsp del --all`. Prints YAML: the management lcore's busy time per rule
and in all (udsp_stats), the time each lnetctl call took, the peers
published again, the longest slice, and each data lcore's longest stall
(lcore_stats max_gap_us) while the rules were applied, beside the same
window with nothing applied. Figures, never pass/fail.

  test/bench/udsp_apply.py BUILD_DIR [PEERS] [--json]
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RULES = [
    ["--dst", "12.0.[0-127].*@tcp", "--priority", "1"],
    ["--dst", "12.0.[128-255].*@tcp", "--priority", "2"],
    ["--dst", "12.1.*.*@tcp", "--priority", "3"],
    ["--dst", "13.0.*.*@tcp", "--priority", "4"],
    ["--dst", "13.1.*.*@tcp", "--priority", "5"],
    ["--src", "127.0.0.1@tcp", "--dst", "12.0.*.*@tcp"],
    ["--src", "127.0.0.1@tcp", "--dst", "13.*.*.*@tcp"],
    ["--dst", "tcp", "--priority", "6"],
    ["--src", "tcp", "--priority", "1"],
    ["--src", "127.0.0.1@tcp", "--priority", "0"],
    ["--dst", "12.0.[0-31].[0-255/2]@tcp", "--priority", "7", "--idx", "0"],
    ["--dst", "12.0.[32-63].[1-255/2]@tcp", "--priority", "8"],
    ["--dst", "12.1.[0-63].[1-254/3]@tcp", "--priority", "9", "--idx", "3"],
    ["--dst", "12.1.[64-127].*@tcp", "--priority", "10"],
    ["--dst", "13.0.[0-15].*@tcp", "--priority", "11", "--idx", "1"],
    ["--src", "127.0.0.1@tcp", "--dst", "12.1.[0-31].*@tcp"],
    ["--src", "127.0.0.1@tcp", "--dst", "13.1.[0-31].*@tcp", "--idx", "2"],
    ["--dst", "12.0.[200-255].[0-99]@tcp", "--priority", "12"],
    ["--dst", "13.1.[100-134].*@tcp", "--priority", "13"],
    ["--dst", "12.[0-1].[0-255/4].[0-255/4]@tcp", "--priority", "14"],
]


def ip(a):
    return f"{a >> 24}.{(a >> 16) & 255}.{(a >> 8) & 255}.{a & 255}"


def peers_yaml(n):
    out = ["peer:"]
    for i in range(n):
        p, q = ip(201326592 + i), ip(218103808 + i)
        out.append(f"    - primary nid: {p}@tcp\n      Multi-Rail: True\n      peer ni:\n"
                   f"        - nid: {p}@tcp\n        - nid: {q}@tcp")
    return "\n".join(out) + "\n"


sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "common"))
from bad_peer import telemetry as tel  # noqa: E402  (the tests' telemetry reader)


def data_gaps(name, reset):
    st = tel(name, "/lnet/lcore_stats" + (",reset=1" if reset else ""))
    return [v["max_gap_us"] for k, v in sorted(st.items())
            if isinstance(v, dict) and v.get("role") == "data"]


def main():
    args = [a for a in sys.argv[1:] if a != "--json"]
    build = Path(args[0])
    peers = int(args[1]) if len(args) > 1 else 100000
    daemon = build / "apps/lnetd-pmd/lnetd-pmd"
    ctl = build / "apps/lnetctl/lnetctl"
    name = f"lnet-udsp-{os.getpid()}"
    work = Path(tempfile.mkdtemp())
    (work / "cfg.yaml").write_text("net:\n    - net type: tcp\n      local NI(s):\n"
                                   "        - interfaces:\n              0: lo\n")
    (work / "peers.yaml").write_text(peers_yaml(peers))
    proc = subprocess.Popen([str(daemon), "--", "--name", name, "--config", str(work / "cfg.yaml")],
                            stdout=open(work / "out", "w"), stderr=open(work / "err", "w"))

    def lnetctl(*args, check=True):
        r = subprocess.run([str(ctl), "--name", name, *args], capture_output=True, text=True)
        if check and r.returncode != 0:
            raise RuntimeError(f"lnetctl {' '.join(args)}: {r.returncode} {r.stderr}")
        return r

    try:
        for _ in range(200):
            if lnetctl("global", "show", check=False).returncode == 0:
                break
            if proc.poll() is not None:
                raise RuntimeError((work / "err").read_text())
            time.sleep(0.1)
        lnetctl("import", str(work / "peers.yaml"))
        # the same window with nothing applied, for comparison
        data_gaps(name, True)
        t0 = time.monotonic()
        time.sleep(1.0)
        idle_gap = data_gaps(name, True)
        idle_s = time.monotonic() - t0

        per_rule = []
        t_all = time.monotonic()
        for r in RULES:
            t = time.monotonic()
            lnetctl("udsp", "add", *r)
            wall = time.monotonic() - t
            st = tel(name, "/lnet/udsp_stats")
            per_rule.append({"rule": " ".join(r), "lnetctl_s": round(wall, 4),
                             "busy_ms": st["last_busy_us"] / 1000,
                             "apply_ms": st["last_apply_us"] / 1000})
        all_s = time.monotonic() - t_all
        apply_gap = data_gaps(name, True)
        st = tel(name, "/lnet/udsp_stats")
        shown = lnetctl("udsp", "show").stdout.count("- idx:")
        t = time.monotonic()
        lnetctl("udsp", "del", "--all")
        del_s = time.monotonic() - t
        del_st = tel(name, "/lnet/udsp_stats")
        del_gap = data_gaps(name, True)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()

    busy = [p["busy_ms"] for p in per_rule]
    result = {
        "peers": peers, "nids_per_peer": 2, "rules": len(RULES), "rules_shown": shown,
        "mgmt_busy_ms_total": round(sum(busy), 1), "mgmt_busy_ms_max_rule": round(max(busy), 1),
        "wall_s_total": round(all_s, 3), "peers_updated": st["peers_updated"],
        "max_slice_us": st["max_slice_us"],
        "data_max_gap_us_applying": max(apply_gap) if apply_gap else 0,
        "data_max_gap_us_idle": max(idle_gap) if idle_gap else 0,
        "idle_window_s": round(idle_s, 2),
        "del_all_busy_ms": round(del_st["last_busy_us"] / 1000, 1),
        "del_all_lnetctl_s": round(del_s, 3),
        "data_max_gap_us_del": max(del_gap) if del_gap else 0,
        "per_rule": per_rule,
    }
    if "--json" in sys.argv:
        print(json.dumps(result))
        return
    print("udsp:")
    for k, v in result.items():
        if k != "per_rule":
            print(f"    {k}: {v}")
    print("    per_rule:")
    for p in per_rule:
        print(f"        - rule: \"{p['rule']}\"")
        for k in ("busy_ms", "apply_ms", "lnetctl_s"):
            print(f"          {k}: {p[k]}")


if __name__ == "__main__":
    main()
