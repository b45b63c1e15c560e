"""Each rule of the kit format gives its own message at the offending value's line and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kits.helpers import MINIMAL, errors, load


def test_minimal_kit_gets_secure_defaults(tmp_path: Path) -> None:
    kit = load(tmp_path, MINIMAL).kit
    assert kit.network.egress == "allowlist"
    assert kit.image.user == "agent" and kit.image.uid == 1000
    assert kit.isolation.read_only_root is True
    assert kit.workspace.mode == "clone"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("imgae: {}\n", "5:1: unknown key `imgae` (did you mean `image`?)"),
        ("image:\n  usr: bob\n", "6:3: unknown key `image.usr` (did you mean `user`?)"),
        ("network:\n  egres: none\n", "6:3: unknown key `network.egres` (did you mean `egress`?)"),
        (
            "image:\n  user: root\n",
            "6:9: image.user: the agent never runs as root; choose a non-root user such as 'agent'",
        ),
        ("image:\n  uid: 0\n", "6:8: image.uid: give a number of at least 1; found 0"),
        (
            "network:\n  allow: ['*']\n",
            "6:11: network.allow[0]: '*' would allow every host; say `egress: open` if that is really meant",
        ),
        (
            "network:\n  allow: ['*.*.example.com']\n",
            "6:11: network.allow[0]: a wildcard may cover one label only, as in '*.example.com'",
        ),
        (
            "network:\n  allow: ['*.com']\n",
            "6:11: network.allow[0]: '*.com' covers a whole top-level domain; a wildcard needs at least two labels "
            "after '*.'",
        ),
        (
            "network:\n  allow: ['10.1.2.3:443']\n",
            "6:11: network.allow[0]: '10.1.2.3' is an IP literal; the egress proxy refuses IP destinations, so allow a "
            "host name",
        ),
        (
            "network:\n  allow: ['Bad_Host!']\n",
            "6:11: network.allow[0]: 'Bad_Host!' is not a valid host name (lowercase letters, digits and '-', "
            "dot-separated)",
        ),
        (
            'network:\n  allow: ["a.example.com\\nb"]\n',
            "6:11: network.allow[0]: must not contain a newline or any other control character",
        ),
        (
            "network:\n  egress: closed\n",
            "6:11: network.egress: give one of allowlist, none, open; found text 'closed'",
        ),
        (
            "env:\n  API_TOKEN: abc\n",
            "6:3: env.API_TOKEN: API_TOKEN looks like a secret; declare it under `secrets` "
            "(a reference) instead of writing its value in `env`",
        ),
        (
            "env:\n  DB_URL: postgres://u:hunter2@db/x\n",
            "6:11: env.DB_URL: this value looks like a credential (URL with a password); move it to `secrets`",
        ),
        (
            "env:\n  X: sk-ant-api03-abcdefghijklmnopqrstuvwxyz\n",
            "6:6: env.X: this value looks like a credential (Anthropic API key); move it to `secrets`",
        ),
        (
            "image:\n  base: 'Debian:Latest'\n",
            "6:9: image.base: must be an image reference such as debian:bookworm-slim or "
            "registry.example.com/team/image:1.2@sha256:<64 hex digits>",
        ),
        ("triggers:\n  - schedule: '0 25 * * *'\n", "6:15: triggers[0].schedule: cron hour '25' is out of range 0-23"),
        (
            "triggers:\n  - schedule: '@daily'\n",
            "6:15: triggers[0].schedule: cron macros such as @daily are not portable; write five fields, e.g. "
            "'0 0 * * *'",
        ),
        (
            "triggers:\n  - github: {event: pull}\n",
            "6:21: triggers[0].github.event: 'pull' is not a GitHub Actions event",
        ),
        (
            "resources:\n  memory: 4 GB\n",
            "6:11: resources.memory: must be a quantity such as 512Mi, 4Gi, 10G or a number of bytes",
        ),
        (
            "resources:\n  timeout: 2 hours\n",
            "6:12: resources.timeout: must be a duration such as 90s, 15m, 2h or 1h30m",
        ),
        (
            "workspace:\n  repo: 'https://user:pw@github.com/a/b.git'\n",
            "6:9: workspace.repo: must not carry a password; give the credential through `secrets`",
        ),
        (
            "workspace:\n  mode: mount\n",
            "6:3: workspace: workspace mode mount needs `source`, the host folder to mount",
        ),
        ("files:\n  - path: /etc/x\n", "6:5: files[0]: give exactly one of `content` or `source`"),
        (
            "files:\n  - {path: /etc/x, content: x, mode: 0644}\n",
            '6:38: files[0].mode: write the mode as a quoted octal string such as "0644"',
        ),
        ("ports:\n  - {container: 70000}\n", "6:17: ports[0].container: give a number of at most 65535; found 70000"),
        (
            "ports:\n  - {container: 53, protocol: udp, http: true}\n",
            "6:5: ports[0]: `http: true` needs `protocol: tcp`: HTTP previews go over TCP",
        ),
    ],
)
def test_rule_message_and_position(tmp_path: Path, extra: str, expected: str) -> None:
    assert errors(tmp_path, MINIMAL + extra) == [expected]


def test_unknown_key_in_list_item_also_reports_the_missing_one(tmp_path: Path) -> None:
    assert errors(tmp_path, MINIMAL + "secrets:\n  - nmae: A\n") == [
        "6:5: secrets[0].name is required",
        "6:5: unknown key `secrets[0].nmae` (did you mean `name`?)",
    ]


def test_name_must_be_dns_label(tmp_path: Path) -> None:
    found = errors(tmp_path, MINIMAL.replace("name: demo", "name: Demo_Kit"))
    assert found == [
        "2:7: name: must be a DNS-1123 label: lowercase letters, digits and '-', at most 63 "
        "characters, starting and ending with a letter or digit"
    ]


def test_missing_agent_is_reported_at_the_document(tmp_path: Path) -> None:
    assert errors(tmp_path, "apiVersion: sandkit/v1\nname: demo\n") == ["1:1: agent is required"]


def test_several_errors_at_once_sorted_by_place(tmp_path: Path) -> None:
    found = errors(tmp_path, MINIMAL + "image:\n  user: root\nnetwork:\n  allow: ['*']\nbogus: 1\n")
    assert [f.split(":")[0] for f in found] == ["6", "8", "9"]


def test_unknown_key_without_close_match_lists_valid_keys(tmp_path: Path) -> None:
    found = errors(tmp_path, MINIMAL + "resources:\n  zzz: 1\n")
    assert found == ["6:3: unknown key `resources.zzz` (valid keys: cpus, disk, memory, pids, timeout)"]


def test_pull_request_target_needs_acknowledgement(tmp_path: Path) -> None:
    found = errors(tmp_path, MINIMAL + "triggers:\n  - github: {event: pull_request_target}\n")
    assert "acknowledge_risk: true" in found[0]
    ok = MINIMAL + "triggers:\n  - github: {event: pull_request_target, acknowledge_risk: true}\n"
    assert errors(tmp_path, ok) == []


def test_clone_needs_its_host_allowed(tmp_path: Path) -> None:
    kit = MINIMAL + "workspace: {repo: 'https://git.example.com/a/b.git'}\n"
    assert errors(tmp_path, kit) == [
        "5:19: workspace.repo: the clone of workspace.repo needs git.example.com:443, which is not in `network.allow`"
    ]
    assert errors(tmp_path, kit + "network: {allow: ['*.example.com'], deny: [git.example.com]}\n") == [
        "5:19: workspace.repo: the clone of workspace.repo needs git.example.com:443, which is denied"
    ]
    assert errors(tmp_path, kit + "network: {allow: [git.example.com]}\n") == []
    assert "egress is none" in errors(tmp_path, kit + "network: {egress: none}\n")[0]


def test_good_full_kit_loads(tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "cfg.json").write_text("{}")
    kit = load(
        tmp_path,
        MINIMAL
        + """\
image:
  base: debian:bookworm-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000
  packages: {apt: [git], pip: ["pytest==8.3.2"], npm: ["@anthropic-ai/claude-code@2.0.0"]}
env: {CI: "true", GREETING: "hello $(world)"}
secrets: [{name: ANTHROPIC_API_KEY}]
network: {allow: [api.anthropic.com, "github.com:443", "*.githubusercontent.com"], deny: [gist.github.com]}
workspace: {repo: "https://github.com/acme/app.git", ref: main}
files:
  - {path: /home/agent/.config/x.json, source: files/cfg.json, mode: "0600"}
resources: {memory: 512Mi, timeout: 1h30m, cpus: 0.5}
triggers: [{schedule: "0 9 * * 1-5"}, {github: {event: pull_request, types: [opened]}}, {manual: {}}]
""",
    ).kit
    assert kit.files[0].source == str((tmp_path / "files" / "cfg.json").resolve())
    assert kit.env["GREETING"] == "hello $(world)"


def test_missing_source_file_is_located(tmp_path: Path) -> None:
    found = errors(tmp_path, MINIMAL + "files:\n  - {path: /x, source: nope.txt}\n")
    assert found == [f"6:24: files[0].source: {(tmp_path / 'nope.txt').resolve()} not found"]


def test_absolute_source_is_refused(tmp_path: Path) -> None:
    found = errors(tmp_path, MINIMAL + "files:\n  - {path: /x, source: /etc/passwd}\n")
    assert found == ["6:24: files[0].source: '/etc/passwd' must be a path relative to the kit file"]


def test_a_container_port_is_http_on_every_entry_or_on_none(tmp_path: Path) -> None:
    """The forwarder serves a container port through nginx or byte for byte, so the entries must agree."""
    mixed = "ports:\n  - {container: 3000, http: true}\n  - {container: 3000, host: 8080}\n"
    assert errors(tmp_path, MINIMAL + mixed) == [
        "1:1: kit: container port 3000 is listed with and without `http: true`: say it on every entry"
    ]
    agreed = "ports:\n  - {container: 3000, http: true}\n  - {container: 3000, host: 8080, http: true}\n"
    assert [port.http for port in load(tmp_path, MINIMAL + agreed).kit.ports] == [True, True]
