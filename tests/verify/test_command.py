"""`sandkit verify` without an engine: what it reads from a compiled folder, and its usage errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sandkit.verify import plan
from sandkit.verify.probe import PROGRAM
from tests.e2e.helpers import REPO

EXAMPLE = REPO / "examples" / "pr-reviewer" / "sandbox" / "pr-reviewer"


def test_the_battery_reads_the_compiled_folder() -> None:
    sandbox = plan.load(EXAMPLE)
    assert plan.egress(sandbox) == "allowlist"
    assert ("api.anthropic.com", 443) in sandbox.allow and sandbox.deny == [("gist.github.com", 443)]
    assert plan.placeholders(sandbox) == {"ANTHROPIC_API_KEY": "sandkit-injected-by-egress-proxy"}
    probes = {p.id: p for p in plan.probes(sandbox, ["172.17.0.1"], [("198.51.100.7", 8443)])}
    assert probes["proxy-denied-host"].argument == "proxy|proxy-denied-host|CONNECT|gist.github.com|443"
    assert probes["proxy-allowed-host-other-port"].argument.endswith("|api.anthropic.com|1")
    assert probes["direct-gateway-0"].argument == "tcp|direct-gateway-0|172.17.0.1|9"
    assert probes["direct-named-0"].argument == "tcp|direct-named-0|198.51.100.7|8443"
    assert probes["root-filesystem"].argument == "rootfs|root-filesystem|/tmp,/home/agent,/workspace"
    assert probes["user"].argument == "user|user|1000"
    # ICMP and DNS past the proxy go to documentation addresses, the metadata address and the gateways
    assert probes["direct-icmp"].argument == "icmp|direct-icmp|192.0.2.1,169.254.169.254,172.17.0.1"
    assert probes["dns-resolver"].argument == "dns|dns-resolver|resolv"
    assert probes["dns-gateway-0"].argument == "dns|dns-gateway-0|172.17.0.1"
    # the deadline and the disk budget are what fidelity.json promised (timeout 30m + 2 x 30 s; 4 GiB)
    assert probes["timeout"].argument == "deadline|timeout|1860"
    assert probes["disk"].argument == f"disk|disk|4294967296|{plan.FILL_BYTES}"
    # every probe names a fidelity row the report has, and each is enforced for compose
    assert {plan.level(sandbox, p.setting) for p in probes.values()} == {"enforced"}


def test_bad_input_exits_2_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "compose.yaml").write_text("services: [\n")
    (tmp_path / "empty").mkdir()
    cases = {
        "bad/compose.yaml:2:1: error: not YAML": [str(tmp_path / "bad")],
        "no such folder": [str(tmp_path / "absent")],
        "no compose.yaml": [str(tmp_path / "empty")],
        "give HOST:PORT": [str(EXAMPLE), "--probe", "x|y:1"],
        "no such compose file": [str(EXAMPLE), "-f", str(tmp_path / "absent.yaml")],
    }
    for expected, argv in cases.items():
        done = subprocess.run(
            [sys.executable, "-m", "sandkit", "verify", *argv], cwd=REPO, capture_output=True, text=True, check=False
        )
        assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr, (argv, done)


def _kubernetes_job(tmp_path: Path) -> tuple[dict[str, object], dict[str, object]]:
    """The chatops example's agent Job and the probe Job `sandkit verify --target kubernetes` prints."""
    import yaml

    folder = REPO / "examples" / "chatops" / "sandbox" / "chatops"
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "verify", str(folder), "--target", "kubernetes"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    agent = next(
        d for d in yaml.safe_load_all((folder / "kubernetes" / "job.yaml").read_text()) if d and d["kind"] == "Job"
    )
    return agent, yaml.safe_load(done.stdout)


def test_the_kubernetes_probe_job_is_the_agent_pod_with_the_probe(tmp_path: Path) -> None:
    import kubernetes_validate

    from tests.compiler.test_kubernetes import KUBERNETES_VERSIONS

    agent, job = _kubernetes_job(tmp_path)
    for version in KUBERNETES_VERSIONS:
        kubernetes_validate.validate(job, version, strict=True)
    pod, agent_pod = job["spec"]["template"], agent["spec"]["template"]  # type: ignore[index]
    # what the cluster's policies select on and enforce stays the agent's
    assert pod["metadata"]["labels"] == agent_pod["metadata"]["labels"]
    assert job["metadata"]["namespace"] == agent["metadata"]["namespace"]  # type: ignore[index]
    for key in ("serviceAccountName", "automountServiceAccountToken", "securityContext", "volumes"):
        assert pod["spec"][key] == agent_pod["spec"][key], key
    (probe,) = pod["spec"]["containers"]
    (original,) = [c for c in agent_pod["spec"]["containers"] if c["name"] == "agent"]
    for key in ("image", "securityContext", "env", "volumeMounts", "resources"):
        assert probe[key] == original[key], key
    assert probe["command"][:2] == ["perl", "-e"] and "SANDKIT-PROBE-END" in probe["command"][2]
    assert "tcp|direct-api-server|$KUBERNETES_SERVICE_HOST|$KUBERNETES_SERVICE_PORT|drop" in probe["args"]
    assert job["spec"]["backoffLimit"] == 0 and job["spec"]["activeDeadlineSeconds"] == 600  # type: ignore[index]


def test_results_without_the_end_line_are_refused(tmp_path: Path) -> None:
    folder = REPO / "examples" / "chatops" / "sandbox" / "chatops"
    log = tmp_path / "log"
    log.write_text("SANDKIT-PROBE\tuser\tpass\tuid 1000\n")  # cut short: nothing may count as verified
    done = subprocess.run(
        [sys.executable, "-m", "sandkit", "verify", str(folder), "--target", "kubernetes", "--results", str(log)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "did not run to its end" in done.stderr, done


def test_a_log_is_scored_as_text_json_and_sarif(tmp_path: Path) -> None:
    """The chatops Job's log with a capability, a direct and a proxy probe failing: exit 1, each row
    named in every format with the manifest it breaks."""
    import json

    folder = REPO / "examples" / "chatops" / "sandbox" / "chatops"
    ids = [a.split("|")[1] for a in _kubernetes_job(tmp_path)[1]["spec"]["template"]["spec"]["containers"][0]["args"]]  # type: ignore[index]
    failing = ("capabilities", "direct-tcp", "proxy-outside-get")
    lines = [f"SANDKIT-PROBE\t{i}\t{'fail' if i in failing else 'pass'}\tdetail of {i}" for i in ids]
    log = tmp_path / "log"
    log.write_text("banner the image printed\n" + "\n".join(lines) + "\nSANDKIT-PROBE-END\n")
    outputs = {}
    argv = [sys.executable, "-m", "sandkit", "verify", str(folder), "--target", "kubernetes", "--results", str(log)]
    for fmt in ("text", "json", "sarif"):
        done = subprocess.run(
            [*argv, "--format", fmt],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 1, done
        outputs[fmt] = done.stdout
    assert "FAIL  capabilities (enforced)" in outputs["text"]
    rows = {r["probe"]: r for r in json.loads(outputs["json"])["results"]}
    assert rows["capabilities"]["status"] == "fail" and rows["user"]["status"] == "pass"
    # each failure names the manifest that states what should hold, and what on the cluster broke it
    assert "job.yaml: the pod did not run with the agent container's securityContext" in rows["capabilities"]["where"]
    policy = rows["direct-tcp"]["where"]
    assert "networkpolicy.yaml: NetworkPolicy chatops-agent" in policy and "does not enforce" in policy
    assert "egress-proxy.yaml: the proxy that answered is not applying" in rows["proxy-outside-get"]["where"]
    sarif = json.loads(outputs["sarif"])
    assert sarif["version"] == "2.1.0"
    results = {r["ruleId"]: r for r in sarif["runs"][0]["results"]}
    assert results["capabilities"]["kind"] == "fail" and results["capabilities"]["level"] == "error"
    assert results["user"]["kind"] == "pass" and set(results) == set(ids)


def test_an_agent_edited_to_drop_its_proxy_still_gets_the_network_probes(tmp_path: Path) -> None:
    """The battery comes from what the build wrote beside compose.yaml, so editing the agent service
    (its proxy variables gone, its environment in compose's list form) cannot switch probes off."""
    import shutil

    import yaml

    folder = tmp_path / "pr-reviewer"
    shutil.copytree(EXAMPLE, folder)
    document = yaml.safe_load((folder / "compose.yaml").read_text())
    agent = document["services"]["agent"]
    env = {k: v for k, v in agent["environment"].items() if "proxy" not in k.lower() or k == "SANDKIT_PROXY_INJECTS"}
    agent["environment"] = [f"{k}={v}" for k, v in env.items()]
    agent["tmpfs"] = "/tmp"
    (folder / "compose.yaml").write_text(yaml.safe_dump(document))
    sandbox = plan.load(folder)
    assert plan.egress(sandbox) == "allowlist"
    assert plan.placeholders(sandbox) == {"ANTHROPIC_API_KEY": "sandkit-injected-by-egress-proxy"}
    ids = {p.id for p in plan.probes(sandbox, [], [])}
    assert {"proxy-outside-connect", "direct-tcp", "direct-udp", "secret-ANTHROPIC_API_KEY"} <= ids
    assert plan.writable_places(sandbox) == ["/tmp"] + [v["target"] for v in agent["volumes"] if not v.get("read_only")]

    offline = plan.load(REPO / "examples" / "offline-gvisor" / "sandbox" / "offline-gvisor")
    assert plan.egress(offline) == "none"
    assert "direct-tcp" in {p.id for p in plan.probes(offline, [], [])}


def test_the_actions_job_carries_the_probe_step_of_its_own_rows() -> None:
    """The probe step is built from the kit's plan (the job has no sandkit): its battery, the ids the
    step fails on (the rows the actions column marks enforced), and nothing of the secrets."""
    import yaml

    from sandkit.compiler.targets import actions

    for kit, enforced_timeout in (("pr-reviewer", True), ("offline-gvisor", False)):
        folder = REPO / "examples" / kit / "sandbox" / kit
        workflow = yaml.safe_load((folder / "workflows" / f"{kit}.yml").read_text())
        steps = {s["name"]: s for s in workflow["jobs"]["agent"]["steps"]}
        probe, agent = steps["Probe the sandbox (sandkit verify)"], steps["Run the agent in its sandbox"]
        assert probe["run"] == agent["run"] and "secrets." not in str(probe)
        assert probe["env"]["SANDKIT_PROBE_PROGRAM"].endswith(f"{kit}/{actions.PROBE_PROGRAM}")
        assert (folder / actions.PROBE_PROGRAM).read_text().endswith(PROGRAM)
        ids = [a.split("|")[1] for a in probe["env"]["SANDKIT_PROBES"].splitlines()]
        enforced = probe["env"]["SANDKIT_PROBES_ENFORCED"].split()
        assert set(enforced) <= set(ids) and {"direct-tcp", "direct-icmp", "dns-resolver", "disk"} <= set(ids)
        # gVisor cannot join the deadline's PID namespace: its timeout row is best-effort, not a job failure
        assert ("timeout" in enforced) is enforced_timeout, enforced
        shared = {k: v for k, v in agent["env"].items() if k in probe["env"] and "SECRET" not in k}
        assert all(probe["env"][k] == v for k, v in shared.items())


def test_an_actions_probe_log_is_scored_against_the_actions_column(tmp_path: Path) -> None:
    """`--target actions --results` knows every probe the job's step runs (the same battery, read from the
    compiled folder) and fails on an enforced row; without --results it says what to give."""
    import json

    import yaml

    workflow = yaml.safe_load((EXAMPLE / "workflows" / "pr-reviewer.yml").read_text())
    (step,) = [s for s in workflow["jobs"]["agent"]["steps"] if s["name"] == "Probe the sandbox (sandkit verify)"]
    ids = [a.split("|")[1] for a in step["env"]["SANDKIT_PROBES"].splitlines()]
    lines = [f"SANDKIT-PROBE\t{i}\t{'fail' if i == 'disk' else 'pass'}\tdetail of {i}" for i in ids]
    log = tmp_path / "log"
    log.write_text("\n".join(lines) + "\nSANDKIT-PROBE-END\n")
    argv = [sys.executable, "-m", "sandkit", "verify", str(EXAMPLE), "--target", "actions"]
    done = subprocess.run([*argv, "--results", str(log), "--format", "json"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 1, done
    rows = {r["probe"]: r for r in json.loads(done.stdout)["results"]}
    assert list(rows) == ids and rows["disk"]["status"] == "fail" and rows["disk"]["level"] == "enforced"
    assert rows["disk"]["where"].endswith("workflows/pr-reviewer.yml")
    bare = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    assert bare.returncode == 2 and "give --results FILE" in bare.stderr, bare
