"""actions: workflows/NAME.yml, a GitHub Actions job that runs the agent in its sandbox.

Egress is held twice: harden-runner blocks the runner's own traffic to all but the allowlist and
what the job needs, and the agent runs in the compiled image on an internal Docker network whose
one way out is the same squid proxy as compose (``egress: none``: ``docker run --network none``).
The job builds both images from the checked-in sandbox folder, so what was reviewed is what runs.

No kit value reaches a ``run:`` script: every script is a constant of this module and reads what
differs per kit from its step's ``env:``. No ``${{ }}`` in the output carries kit or event data;
the only expressions are the few that sandkit itself writes (``Expression``), and only two steps see
``secrets``: the one that runs the agent, and for the secrets the proxy injects, the one that starts it.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

from sandkit.compiler import inject, record
from sandkit.compiler.engine import (
    LOG_MAX_FILE,
    LOG_MAX_SIZE,
    deadline_uid,
    shares_pid_namespace,
    tmpfs,
    workspace_tmpfs,
)
from sandkit.compiler.fidelity import (
    PROVEN_STATICALLY,
    Fidelity,
    clone_access,
    deadline_timeout_row,
    engine_disk_row,
    engine_runtime_row,
    hardened_container_docker_rows,
    inject_rows,
    proxy_deny_row,
    read_only_row,
    record_row,
)
from sandkit.compiler.output import commented_header
from sandkit.compiler.plan import (
    COMMENT_FILE,
    EVENT_FILE,
    EVENT_FOLDER,
    PROXY_SERVICE,
    Destination,
    GithubEvent,
    Plan,
)
from sandkit.compiler.proxy import (
    HOST_ADDRESSES_FILE,
    HOST_ADDRESSES_SCRIPT,
    HOST_GUARD_SCRIPT,
    PROXY_UID,
    proxy_env,
    proxy_identity_env,
    proxy_image,
    squid_conf_path,
)
from sandkit.compiler.target import Files, RenderContext
from sandkit.compiler.targets.action_pins import uses
from sandkit.compiler.yamlout import Commented, LiteralBlock, dump_yaml
from sandkit.errors import KitError, Location, Problem
from sandkit.kits.github_events import COMMENT_EVENTS, PUBLISH_SCOPES

NAME = "actions"
REQUIRES = ("docker", "compose")  # it builds the Dockerfile and compose's egress proxy
CHECKOUT = "actions/checkout"
UPLOAD_ARTIFACT = "actions/upload-artifact"
DOWNLOAD_ARTIFACT = "actions/download-artifact"
CREATE_APP_TOKEN = "actions/create-github-app-token"
APP_TOKEN_STEP_ID = "app-token"
HARDEN_RUNNER = "step-security/harden-runner"
#: The repository (or organisation) variable naming the registries the image builds pull from.
BUILD_ENDPOINTS_VARIABLE = "SANDKIT_BUILD_ENDPOINTS"
#: What the job itself reaches besides the allowlist, and why (also in the fidelity report).
JOB_ENDPOINTS = ((Destination("github.com", 443), "actions/checkout fetches the sandbox folder over HTTPS with git"),)
#: Minutes the job may spend on checkout and image builds before the agent's own time starts.
BUILD_MINUTES = 30
#: Events whose workflow syntax has no activity types, or no branch or path filters.
NO_TYPES = frozenset({"create", "delete", "fork", "gollum", "page_build", "public", "push", "status", "workflow_call"})
BRANCH_FILTERS = frozenset({"push", "pull_request", "pull_request_target", "merge_group"})
PATH_FILTERS = frozenset({"push", "pull_request", "pull_request_target"})
RUNNER_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class Expression(str):
    """A ``${{ }}`` expression that sandkit itself writes; every other string must hold none."""


def _expression(body: str) -> Expression:
    return Expression("${{ " + body + " }}")


# The builder (setup-buildx-action's BuildKit container, privileged for its builds) goes as soon as the
# images are in the engine: nothing of it, nor of the Actions cache's token its builds were handed, is
# there while the proxy and the agent run. Its post step then finds no builder and removes nothing.
BUILDER_REMOVE_SCRIPT = LiteralBlock("""\
if [ -n "$SANDKIT_BUILDER" ]; then
  docker buildx rm "$SANDKIT_BUILDER"
fi
""")

# The proxy starts on Docker's default bridge (its way out), then joins the internal network under
# the name the agent's HTTP(S)_PROXY points at; the job waits for squid's own health check. The
# default bridge, not a network of its own, because harden-runner's block rules cover the host's
# own traffic and containers on docker0 (its DOCKER-USER rules match `-i docker0`) and no other
# bridge: there the proxy's outbound traffic meets the runner's allowlist too. The internal network
# has no address of the runner's on it (inhibit_ipv4), so the agent cannot reach what listens on the
# runner; the proxy image's host guard, run on that network alone, proves it (a stale bridge or a
# VPN holding an address of its subnet would answer the agent there: the step then takes another
# subnet, and gives up after three). The proxy image's own script lists the runner's addresses (in
# the runner's network namespace, unprivileged) for squid to refuse and the guard to compare.
PROXY_START_SCRIPT = LiteralBlock("""\
internal=(--internal --opt com.docker.network.bridge.inhibit_ipv4=true)
docker network create "${internal[@]}" "$SANDKIT_NETWORK" >/dev/null
addresses="$(mktemp "$RUNNER_TEMP/sandkit-host-addresses.XXXXXX")"
# sandkit: ignore[PV002] the proxy image's own script, reading the runner's addresses for squid to refuse
docker run --rm --network host --user "$SANDKIT_PROXY_USER" --read-only --cap-drop ALL \\
  --security-opt no-new-privileges:true --log-driver none --entrypoint "$SANDKIT_HOST_ADDRESSES_SCRIPT" \\
  "$SANDKIT_PROXY_IMAGE" > "$addresses"
chmod 0644 "$addresses"
guard=(--rm --network "$SANDKIT_NETWORK" --user "$SANDKIT_PROXY_USER" --read-only --cap-drop ALL
  --security-opt no-new-privileges:true --log-driver none --entrypoint "$SANDKIT_HOST_GUARD_SCRIPT"
  --mount "type=bind,source=$addresses,target=$SANDKIT_HOST_ADDRESSES_FILE,readonly" "$SANDKIT_PROXY_IMAGE")
for held in 1 2 3; do
  if docker run "${guard[@]}"; then
    break
  fi
  if [ "$held" = 3 ]; then
    exit 1
  fi
  # The runner holds an address on that subnet: keep the subnet taken while the engine picks another.
  subnet="$(docker network inspect --format '{{(index .IPAM.Config 0).Subnet}}' "$SANDKIT_NETWORK")"
  docker network rm "$SANDKIT_NETWORK" >/dev/null
  docker network create "${internal[@]}" --subnet "$subnet" "$SANDKIT_NETWORK-held-$held" >/dev/null
  docker network create "${internal[@]}" "$SANDKIT_NETWORK" >/dev/null
done
for held in 1 2; do
  docker network rm "$SANDKIT_NETWORK-held-$held" >/dev/null 2>&1 || true
done
# Only the sandbox network's clients (the agent) may use the proxy: not the runner itself, nor another
# container on Docker's default bridge, where the proxy has its way out (and an address). squid.conf
# includes this file before its first access rule; loopback stays allowed for the health check.
subnet="$(docker network inspect --format '{{(index .IPAM.Config 0).Subnet}}' "$SANDKIT_NETWORK")"
printf 'acl sandkit_sandbox_network src %s\nacl sandkit_refused annotate_transaction reason=%s\n' \
  "$subnet" not-sandbox-client >> "$addresses"
printf 'http_access deny !sandkit_sandbox_network !healthcheck sandkit_refused\n' >> "$addresses"
proxy=(--detach --name "$SANDKIT_PROXY" --read-only
  --tmpfs "/tmp:rw,nosuid,nodev,noexec,size=16777216" --cap-drop ALL
  --security-opt no-new-privileges:true --init --memory 268435456 --memory-swap 268435456
  --cpus 0.5 --pids-limit 128 --log-driver json-file --log-opt "max-size=$SANDKIT_LOG_MAX_SIZE"
  --log-opt "max-file=$SANDKIT_LOG_MAX_FILE"
  --mount "type=bind,source=$addresses,target=$SANDKIT_HOST_ADDRESSES_FILE,readonly")
# The session record (docs/record.md): sandkit-record starts squid and writes the session's file into a
# folder of the runner that only this container mounts; a step after the agent's uploads it.
record="$RUNNER_TEMP/sandkit-record"
mkdir -p "$record"
chmod 0777 "$record"
proxy+=(--tmpfs "$SANDKIT_RECORD_TMPFS" --mount "type=bind,source=$record,target=$SANDKIT_RECORD_DIR"
  --entrypoint "$SANDKIT_RECORD_SCRIPT")
# The proxy image is shared by every kit whose proxy is the same: the record (and the injecting proxy's
# authority) take the kit from these.
proxy+=(--env SANDKIT_KIT_NAME --env SANDKIT_KIT_SHA256 --env SANDKIT_AGENT_IMAGE --env SANDKIT_PROXY_IMAGE)
if [ -n "$SANDKIT_INJECTED" ]; then
  # The injecting proxy (the image's start script, as compose runs it): its authority and header lines
  # in a tmpfs of its own user, the certificate alone on a volume the agent mounts read-only, and the
  # injected secrets as files that only this container mounts; it reads them once, at its start, and
  # the files are gone when this step ends. The agent's step never receives any of them.
  injected="$(mktemp -d "$RUNNER_TEMP/sandkit-session.XXXXXX")"
  trap 'rm -rf -- "$injected"' EXIT
  proxy+=(--tmpfs "$SANDKIT_INJECT_TMPFS" --mount "type=volume,source=$SANDKIT_CA_VOLUME,target=$SANDKIT_CA_FOLDER")
  read -r -a names <<< "$SANDKIT_INJECTED"
  for name in "${names[@]}"; do
    printf '%s' "${!name}" > "$injected/$name"
    chmod 0444 "$injected/$name"
    unset "$name"
    proxy+=(--mount "type=bind,source=$injected/$name,target=/run/secrets/$name,readonly")
  done
  docker run "${proxy[@]}" "$SANDKIT_PROXY_IMAGE" "$SANDKIT_INJECT_START" >/dev/null
else
  docker run "${proxy[@]}" "$SANDKIT_PROXY_IMAGE" squid -N -f "$SANDKIT_SQUID_CONF" >/dev/null
fi
docker network connect --alias "$SANDKIT_PROXY_ALIAS" "$SANDKIT_NETWORK" "$SANDKIT_PROXY"
for _ in $(seq 60); do
  status="$(docker inspect --format '{{.State.Health.Status}}' "$SANDKIT_PROXY")"
  if [ "$status" = healthy ]; then
    exit 0
  fi
  sleep 1
done
echo "sandkit: the egress proxy did not become healthy" >&2
docker logs "$SANDKIT_PROXY" 2>&1 | grep -v '^sandkit-egress ' >&2
exit 1
""")

# The deadline container runs as another uid and the agent joins its PID namespace (runc only):
# when its sleep ends, every process of the session ends, whatever the agent did to its own
# timeout(1). Secrets are files in a private folder, bind-mounted read-only: no value on a command
# line, in the container's environment record (docker inspect) or in the variables docker sees.
# The agent's output goes to the job log with workflow commands off (a random token it cannot know).
AGENT_SCRIPT = LiteralBlock("""\
log=(--log-driver json-file --log-opt "max-size=$SANDKIT_LOG_MAX_SIZE" --log-opt "max-file=$SANDKIT_LOG_MAX_FILE")
docker run --detach --name "$SANDKIT_DEADLINE" --user "$SANDKIT_DEADLINE_USER" --init --network none \\
  --read-only --cap-drop ALL --security-opt no-new-privileges:true --memory 33554432 --memory-swap 33554432 \\
  --cpus "$SANDKIT_CPUS" --pids-limit 16 "${log[@]}" --entrypoint sleep "$SANDKIT_IMAGE" \\
  "$SANDKIT_DEADLINE_SECONDS" >/dev/null
args=(--rm --name "$SANDKIT_AGENT" --user "$SANDKIT_USER" --cap-drop ALL
  --security-opt no-new-privileges:true --init --network "$SANDKIT_NETWORK"
  --memory "$SANDKIT_MEMORY" --memory-swap "$SANDKIT_MEMORY" --cpus "$SANDKIT_CPUS"
  --pids-limit "$SANDKIT_PIDS" --tmpfs "$SANDKIT_TMPFS_TMP" --tmpfs "$SANDKIT_TMPFS_HOME"
  --tmpfs "$SANDKIT_TMPFS_WORKSPACE" "${log[@]}")
if [ "$SANDKIT_SHARE_PID" = true ]; then
  args+=(--pid "container:$SANDKIT_DEADLINE")
fi
if [ "$SANDKIT_READ_ONLY" = true ]; then
  args+=(--read-only)
fi
if [ -n "$SANDKIT_RUNTIME" ]; then
  args+=(--runtime "$SANDKIT_RUNTIME")
fi
# The event that started the run, if an earlier step wrote it: a read-only file, never env or args.
if [ -f "$RUNNER_TEMP/sandkit-event/$SANDKIT_EVENT_FILE" ]; then
  args+=(--mount "type=bind,source=$RUNNER_TEMP/sandkit-event,target=$SANDKIT_EVENT_FOLDER,readonly"
    --env "SANDKIT_EVENT=$SANDKIT_EVENT_FOLDER/$SANDKIT_EVENT_FILE")
fi
# The event's plain variables (pull request number, head, base, comment file), each checked by that step.
if [ -f "$RUNNER_TEMP/sandkit-variables" ]; then
  while IFS= read -r variable; do
    args+=(--env "$variable")
  done < "$RUNNER_TEMP/sandkit-variables"
fi
# The folder the agent leaves its results in for the publishing job (targets.actions.publish).
if [ -n "$SANDKIT_OUTPUT_PATH" ]; then
  mkdir -p "$RUNNER_TEMP/sandkit-output"
  chmod 0777 "$RUNNER_TEMP/sandkit-output"
  args+=(--mount "type=bind,source=$RUNNER_TEMP/sandkit-output,target=$SANDKIT_OUTPUT_PATH"
    --env "SANDKIT_OUTPUT=$SANDKIT_OUTPUT_PATH")
fi
# The injecting proxy's certificate (never its key), for the entrypoint to add to the trusted bundle.
if [ -n "$SANDKIT_CA_VOLUME" ]; then
  args+=(--mount "type=volume,source=$SANDKIT_CA_VOLUME,target=$SANDKIT_AGENT_CA,readonly,volume-nocopy")
fi
# One NAME=value a line: a value may hold spaces (the injected secrets' names, for one).
while IFS= read -r variable; do
  if [ -n "$variable" ]; then args+=(--env "$variable"); fi
done <<< "$SANDKIT_PROXY_ENV"
secrets="$(mktemp -d "$RUNNER_TEMP/sandkit-session.XXXXXX")"
trap 'rm -rf -- "$secrets"' EXIT
read -r -a names <<< "$SANDKIT_SECRET_NAMES"
for name in "${names[@]}"; do
  printf '%s' "${!name}" > "$secrets/$name"
  chmod 0444 "$secrets/$name"
  unset "$name"
  args+=(--mount "type=bind,source=$secrets/$name,target=/run/secrets/$name,readonly")
done
token="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')"
echo "::stop-commands::$token"
status=0
if [ -z "${SANDKIT_PROBE_PROGRAM:-}" ]; then
  docker run "${args[@]}" "$SANDKIT_IMAGE" || status=$?
  echo "::$token::"
  # For the session record's outcome line (written by the step after, on the runner, out of the agent's reach):
  # the agent's status, once its container has ended (a cancel interrupts docker run while the agent runs on).
  if [ "$(docker container inspect --format '{{.State.Running}}' -- "$SANDKIT_AGENT" 2>/dev/null)" != true ]; then
    printf '%s\\n' "$status" > "$RUNNER_TEMP/sandkit-agent-status"
  fi
  exit "$status"
fi
# sandkit verify (vars.SANDKIT_VERIFY): the probe program in the agent's place, with every setting above. The
# gateways of the agent's network and of the default bridge are the runner's own addresses. The default
# bridge may record only its subnet, whose first address the engine gives the bridge.
gateways=()
for network in "$SANDKIT_NETWORK" bridge; do
  gateway="$(docker network inspect --format '{{range .IPAM.Config}}{{.Gateway}}{{end}}' -- "$network")" || true
  if [ -z "$gateway" ]; then
    subnet="$(docker network inspect --format '{{range .IPAM.Config}}{{.Subnet}} {{end}}' -- "$network")" || true
    if [[ $subnet =~ ^([0-9]+)\\.([0-9]+)\\.([0-9]+)\\.([0-9]+)/ ]]; then
      gateway="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[3]}.$((BASH_REMATCH[4] + 1))"
    fi
  fi
  gateways+=("$gateway")
done
args+=(--env "SANDKIT_GATEWAY_0=${gateways[0]}" --env "SANDKIT_GATEWAY_1=${gateways[1]}")
mapfile -t probes <<< "$SANDKIT_PROBES"
report="$secrets/verify.log"
docker run "${args[@]}" --entrypoint perl "$SANDKIT_IMAGE" -e "$(cat -- "$SANDKIT_PROBE_PROGRAM")" "${probes[@]}" \\
  > "$report" || status=$?
docker rm --force "$SANDKIT_DEADLINE" >/dev/null 2>&1 || true
cat -- "$report"
echo "::$token::"
if ! grep -qx 'SANDKIT-PROBE-END' "$report"; then
  echo "sandkit verify: the probe did not run to its end (exit $status): nothing was verified" >&2
  exit 2
fi
tab=$'\\t'
failed=0
read -r -a enforced <<< "$SANDKIT_PROBES_ENFORCED"
for id in "${enforced[@]}"; do
  if ! grep -qF -- "SANDKIT-PROBE${tab}${id}${tab}pass${tab}" "$report"; then
    echo "sandkit verify: the probe $id of an enforced row did not pass" >&2
    failed=1
  fi
done
exit "$failed"
""")

# Reads the dispatch from the event file GitHub wrote, never from an expression: the payload is
# data from outside. Keeps a webhook's fields (typed as its inputs say), applies its filters, and
# writes the result where the agent step mounts it; `skip=1` skips the agent when a filter fails
# (compared as a number in the `if:`, so the expression needs no quoted string).
EVENT_SCRIPT = LiteralBlock("""\
import json
import os
import pathlib
import sys

hooks = json.loads(os.environ["SANDKIT_WEBHOOKS"])
with open(os.environ["GITHUB_EVENT_PATH"], encoding="utf-8") as handle:
    event = json.load(handle)
name = os.environ["GITHUB_EVENT_NAME"]
if name == "repository_dispatch":
    hook = hooks.get(event.get("action"))
    payload = event.get("client_payload")
elif name == "workflow_dispatch":
    hook = next((h for h in hooks.values() if h["dispatch"] == "workflow_dispatch"), None)
    payload = event.get("inputs")
else:
    hook = None
if hook is None:
    sys.exit(0)
missing = object()


def value_at(data, path):
    for step in path:
        if isinstance(step, int) and isinstance(data, list) and step < len(data):
            data = data[step]
        elif isinstance(step, str) and isinstance(data, dict) and step in data:
            data = data[step]
        else:
            return missing
    return data


def typed(value, kind):
    if name != "workflow_dispatch" or kind == "string" or not isinstance(value, str):
        return value
    if kind == "boolean":
        return {"true": True, "false": False}.get(value, missing)
    try:
        number = json.loads(value)
    except ValueError:
        return missing
    return number if isinstance(number, (int, float)) and not isinstance(number, bool) else missing


def matches(value, wanted):
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        value = json.dumps(value)
    return str(value) in wanted


payload = payload if isinstance(payload, dict) else {}
if name == "repository_dispatch":
    for path, wanted in hook["matches"]:
        if not matches(value_at(payload, path), wanted):
            print("sandkit: the dispatch does not match the kit's filters; the agent does not start")
            with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as output:
                output.write("skip=1\\n")
            sys.exit(0)
selected = {}
for field, path, kind in hook["fields"]:
    # A workflow_dispatch input is the field itself, named as the kit names it.
    value = typed(value_at(payload, [field] if name == "workflow_dispatch" else path), kind)
    if value is not missing:
        selected[field] = value
folder = pathlib.Path(os.environ["RUNNER_TEMP"], "sandkit-event")
folder.mkdir(mode=0o755, exist_ok=True)
(folder / os.environ["SANDKIT_EVENT_FILE"]).write_text(json.dumps(selected), encoding="ascii")
""")

# Reads a GitHub event from the event file GitHub wrote, never from an expression: the payload is
# data from outside. A comment counts only when its first line starts with a trigger's command and
# its author's association is one the trigger allows (a bot's only when the trigger lists it). In
# the gate job (SANDKIT_GATE=true) it only decides: `skip=1` leaves the agent's job out. In the
# agent's job it writes the payload, the comment's text and the plain variables (each checked
# against its own shape) for the agent step.
GITHUB_EVENT_SCRIPT = LiteralBlock("""\
import json
import os
import pathlib
import re
import sys

triggers = json.loads(os.environ["SANDKIT_GITHUB_TRIGGERS"])
name = os.environ["GITHUB_EVENT_NAME"]
if name not in triggers:
    sys.exit(0)
with open(os.environ["GITHUB_EVENT_PATH"], "rb") as handle:
    raw = handle.read(64 * 1024 * 1024 + 1)
if len(raw) > 64 * 1024 * 1024:
    sys.exit("sandkit: the event file is larger than 64 MiB")
event = json.loads(raw)
event = event if isinstance(event, dict) else {}
gate = os.environ.get("SANDKIT_GATE") == "true"


def field(data, *keys):
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def refuse(reason):
    if not gate:
        sys.exit("sandkit: " + reason + ", yet the gate let the run start")
    print("sandkit: " + reason + "; the agent does not start")
    with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as output:
        output.write("skip=1\\n")
    sys.exit(0)


def admitted(rule, comment):
    body = field(comment, "body")
    words = body.split("\\n", 1)[0].split(None, 1) if isinstance(body, str) else []
    if words[:1] != [rule["command"]]:
        return False
    user = field(comment, "user")
    if field(user, "type") == "Bot":
        return field(user, "login") in rule["bots"]
    return field(comment, "author_association") in rule["associations"]


rules = triggers[name]
comment = field(event, rules[0]["comment"]) if rules[0]["comment"] else None
if rules[0]["comment"]:
    rules = [rule for rule in rules if admitted(rule, comment)]
    if not rules:
        refuse("the comment is no command of the kit's from an author it allows")
if gate:
    sys.exit(0)
pull = field(event, "pull_request")
number = field(pull, "number")
if pull is None and isinstance(field(event, "issue", "pull_request"), dict):
    number = field(event, "issue", "number")
variables = {"SANDKIT_EVENT_NAME": name}
if isinstance(number, int) and not isinstance(number, bool) and 0 < number < 10**10:
    variables["SANDKIT_PR_NUMBER"] = str(number)
    sha = field(pull, "head", "sha")
    if isinstance(sha, str) and re.fullmatch("[0-9a-f]{40}|[0-9a-f]{64}", sha):
        variables["SANDKIT_HEAD_SHA"] = sha
    base = field(pull, "base", "ref")
    if isinstance(base, str) and re.fullmatch("[A-Za-z0-9._/-]{1,255}", base) and ".." not in base:
        variables["SANDKIT_BASE_REF"] = base
    if any(rule["head"] for rule in rules):
        variables["SANDKIT_CHECKOUT"] = "head"
        repository = os.environ["SANDKIT_REPO"].lower().removesuffix("/").removesuffix(".git")
        urls = [field(event, "repository", key) for key in ("clone_url", "html_url", "ssh_url", "git_url")]
        if not any(isinstance(u, str) and u.lower().removesuffix(".git") == repository for u in urls):
            sys.exit("sandkit: the pull request is not workspace.repo's; its number would name another's")
folder = pathlib.Path(os.environ["RUNNER_TEMP"], "sandkit-event")
folder.mkdir(mode=0o755, exist_ok=True)
(folder / os.environ["SANDKIT_EVENT_FILE"]).write_text(json.dumps(event), encoding="ascii")
if comment is not None:
    body = field(comment, "body")
    (folder / os.environ["SANDKIT_COMMENT_FILE"]).write_text(body if isinstance(body, str) else "", encoding="utf-8")
    variables["SANDKIT_COMMENT_FILE"] = os.environ["SANDKIT_EVENT_FOLDER"] + "/" + os.environ["SANDKIT_COMMENT_FILE"]
lines = "".join(key + "=" + value + "\\n" for key, value in variables.items())
pathlib.Path(os.environ["RUNNER_TEMP"], "sandkit-variables").write_text(lines, encoding="ascii")
""")

# What the agent left for the publishing job: files and folders only (a link could hand the upload
# the runner's own files), at most SANDKIT_OUTPUT_MAX bytes; `results=1` when there is any.
OUTPUT_CHECK_SCRIPT = LiteralBlock("""\
output="$RUNNER_TEMP/sandkit-output"
if [ ! -d "$output" ] || [ -z "$(find "$output" -mindepth 1 -print -quit)" ]; then
  echo "sandkit: the agent left no results"
  exit 0
fi
if [ -n "$(find "$output" -mindepth 1 ! -type f ! -type d -print -quit)" ]; then
  echo "sandkit: the agent's results hold something other than files and folders; nothing is published" >&2
  exit 1
fi
size="$(du -sb -- "$output" | cut -f1)"
if [ "$size" -gt "$SANDKIT_OUTPUT_MAX" ]; then
  echo "sandkit: the agent's results are $size bytes, more than $SANDKIT_OUTPUT_MAX; nothing is published" >&2
  exit 1
fi
echo "results=1" >> "$GITHUB_OUTPUT"
""")

# Posts the agent's review or comment as data: read from the downloaded artifact (bounded), sent as a
# JSON string to GitHub's REST API on the pull request or issue that GitHub's own event file names.
PUBLISH_SCRIPT = LiteralBlock("""\
import json
import os
import pathlib
import re
import sys
import urllib.request

kind = os.environ["SANDKIT_PUBLISH"]
path = pathlib.Path(os.environ["RUNNER_TEMP"], "sandkit-output", os.environ["SANDKIT_PUBLISH_FILE"])
if path.is_symlink() or not path.is_file():
    print("sandkit: the agent wrote no " + path.name + "; nothing to publish")
    sys.exit(0)
with open(path, "rb") as handle:
    text = handle.read(262144).decode("utf-8", errors="replace")[:65000]
with open(os.environ["GITHUB_EVENT_PATH"], "rb") as handle:
    event = json.loads(handle.read(64 * 1024 * 1024))
pull = event.get("pull_request") if isinstance(event, dict) else None
issue = event.get("issue") if isinstance(event, dict) else None
number = pull.get("number") if isinstance(pull, dict) else None
if number is None and isinstance(issue, dict) and (kind == "comment" or isinstance(issue.get("pull_request"), dict)):
    number = issue.get("number")
if not isinstance(number, int) or isinstance(number, bool) or not 0 < number < 10**10:
    print("sandkit: the event names no " + ("pull request" if kind == "review" else "issue or pull request"))
    sys.exit(0)
repository = os.environ["GITHUB_REPOSITORY"]
if not re.fullmatch("[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository):
    sys.exit("sandkit: GITHUB_REPOSITORY is not owner/name")
api = os.environ["GITHUB_API_URL"].rstrip("/") + "/repos/" + repository
if kind == "review":
    url, data = api + "/pulls/" + str(number) + "/reviews", {"body": text, "event": "COMMENT"}
else:
    url, data = api + "/issues/" + str(number) + "/comments", {"body": text}
request = urllib.request.Request(url, data=json.dumps(data).encode(), method="POST")
request.add_header("Authorization", "Bearer " + os.environ["GITHUB_TOKEN"])
request.add_header("Accept", "application/vnd.github+json")
request.add_header("Content-Type", "application/json")
request.add_header("X-GitHub-Api-Version", "2022-11-28")
with urllib.request.urlopen(request, timeout=60) as response:
    print("sandkit: published the agent's " + kind + " on #" + str(number) + " (HTTP " + str(response.status) + ")")
""")

# Pushes the agent's changes.patch as a new branch, treating it as data: git apply writes files and
# runs nothing (hooks stay off for the commit too), on workspace.ref as the checkout step fetched it; a
# patch that touches .github/ (workflows and actions a push could run), adds a symbolic link, a gitlink
# or .gitmodules, or a .gitattributes driver is refused; the branch is named
# from the run and created, never moved: an empty --force-with-lease expectation fails if it exists.
# The token reaches git only through the credential helper, from the environment.
BRANCH_SCRIPT = LiteralBlock("""\
patch="$RUNNER_TEMP/sandkit-output/$SANDKIT_PUBLISH_FILE"
if [ -L "$patch" ] || [ ! -f "$patch" ]; then
  echo "sandkit: the agent wrote no $SANDKIT_PUBLISH_FILE; nothing to publish"
  exit 0
fi
case "$GITHUB_RUN_ID-$GITHUB_RUN_ATTEMPT" in
  -* | *- | *[!0-9-]* | *-*-*)
    echo "sandkit: GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT are not numbers" >&2
    exit 1
    ;;
esac
branch="$SANDKIT_BRANCH_PREFIX$GITHUB_RUN_ID-$GITHUB_RUN_ATTEMPT"
git config core.hooksPath /dev/null
if ! git apply --index --whitespace=nowarn -- "$patch"; then
  echo "sandkit: the agent's $SANDKIT_PUBLISH_FILE does not apply to $(git rev-parse HEAD); nothing is published" >&2
  exit 1
fi
changed="$(git diff --cached --no-renames --name-only -z | tr '\\0' '\\n')"
if [ -z "$changed" ]; then
  echo "sandkit: the agent's $SANDKIT_PUBLISH_FILE changes nothing; nothing to publish"
  exit 0
fi
if printf '%s\\n' "$changed" | grep -qi '^\\.github/'; then
  echo "sandkit: the agent's $SANDKIT_PUBLISH_FILE changes .github/ (workflows a push runs); nothing is published" >&2
  exit 1
fi
# Nor what makes a clone or a checkout of the branch run or fetch something: a gitlink or .gitmodules (a
# submodule from any URL), a symbolic link (a checkout writes it; tools follow it out of the tree), a
# .gitattributes naming a filter, diff or merge driver (git runs the configured program on checkout).
if git diff --cached --no-renames --raw | awk '{ print $2 }' | grep -qE '^(120000|160000)$'; then
  echo "sandkit: the agent's $SANDKIT_PUBLISH_FILE adds a symbolic link or a gitlink (a submodule);" \\
    "nothing is published" >&2
  exit 1
fi
if printf '%s\\n' "$changed" | grep -qiE '(^|/)\\.gitmodules$'; then
  echo "sandkit: the agent's $SANDKIT_PUBLISH_FILE changes .gitmodules (submodules from any URL);" \\
    "nothing is published" >&2
  exit 1
fi
if git diff --cached --no-renames -U0 -- ':(glob)**/.gitattributes' | grep -qiE '^[+].*(filter|diff|merge)='; then
  echo "sandkit: the agent's $SANDKIT_PUBLISH_FILE sets a filter, diff or merge driver in .gitattributes;" \\
    "nothing is published" >&2
  exit 1
fi
# An App's push starts the repository's on: push workflows (GITHUB_TOKEN's starts none), which would run
# the agent's code with the repository's secrets before anyone looked: refused when a workflow of the
# base branch has a push trigger, unless the kit accepts it (targets.actions.app_push_runs_workflows).
if [ "${SANDKIT_APP_PUSH:-}" = refuse ] && [ -d .github/workflows ] &&
  grep -rlqsiE --include='*.yml' --include='*.yaml' \\
    -e '^[[:space:]]*-?[[:space:]]*["'"'"']?push["'"'"']?[[:space:]]*(:|$)' \\
    -e '^[[:space:]]*["'"'"']?on["'"'"']?[[:space:]]*:.*[^a-z_-]push([^a-z_-]|$)' .github/workflows; then
  echo "sandkit: a workflow of this branch runs on push, and the App's push would start it with the" \\
    "repository's secrets; nothing is published (targets.actions.app_push_runs_workflows accepts that)" >&2
  exit 1
fi
git -c user.name='github-actions[bot]' -c user.email='41898282+github-actions[bot]@users.noreply.github.com' \\
  commit --quiet --no-verify --message "$SANDKIT_COMMIT_MESSAGE (run $GITHUB_RUN_ID)"
# shellcheck disable=SC2016 # the helper's own shell expands $1 and $GITHUB_TOKEN when git asks
helper='!f() { test "$1" = get && printf "username=x-access-token\\npassword=%s\\n" "$GITHUB_TOKEN"; }; f'
git -c credential.helper= -c "credential.helper=$helper" \\
  push --quiet --force-with-lease="refs/heads/$branch:" origin "HEAD:refs/heads/$branch"
echo "sandkit: pushed the agent's changes as $branch"
""")

# What the job log shows of the proxy: the refused requests' host, port and decision, counted (the
# paths and queries an agent sent stay on the runner, in the proxy's bounded log).
PROXY_LOG_SCRIPT = LiteralBlock("""\
token="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')"
echo "::stop-commands::$token"
echo "Refused by the egress proxy (host:port decision count):"
docker logs "$SANDKIT_PROXY" 2>/dev/null | awk '
  $1 == "sandkit-egress" && $4 ~ /^decision=TCP_DENIED\\// {
    count[substr($6, 6) ":" substr($7, 6) " " substr($4, 10)]++
  }
  END { for (refused in count) print "  " refused " " count[refused] }' | sort | sed -n '1,200p'
echo "::$token::"
# The session's end line, then the record's refusals in the job's summary: host (URL-encoded by squid, so
# it holds no backtick or bar), port and reason, counted.
docker stop --time 10 "$SANDKIT_PROXY" >/dev/null 2>&1 || true
# The outcome line after the end line (docs/record.md): what the runner alone knows, the agent's exit status
# (null when its step ended before the agent's container, or did not run) and the ID of the image it ran.
status="$(head -c 8 -- "$RUNNER_TEMP/sandkit-agent-status" 2>/dev/null | tr -d '\\n')" || true
if [[ "$status" =~ ^[0-9]{1,3}$ ]] && [ "$((10#$status))" -le 255 ]; then status="$((10#$status))"; else status=null; fi
image="$(docker image inspect --format '{{.Id}}' -- "$SANDKIT_IMAGE" 2>/dev/null)" || true
if [[ "$image" =~ ^sha256:[0-9a-f]{64}$ ]]; then image="\\"$image\\""; else image=null; fi
now="$(date +%s.%3N)"
find "$RUNNER_TEMP/sandkit-record" -maxdepth 1 -name 'session-*.jsonl' -type f -print0 2>/dev/null |
  while IFS= read -r -d '' file; do
    printf '{"event":"outcome","source":"runner","time":%s,"exit_status":%s,"image_digest":%s}\\n' \\
      "$now" "$status" "$image" >> "$file"
  done || true
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  {
    echo "### Refused by the egress proxy"
    echo
    echo "| host | port | reason | requests |"
    echo "| --- | --- | --- | --- |"
    find "$RUNNER_TEMP/sandkit-record" -maxdepth 1 -name 'session-*.jsonl' -type f -exec cat {} + 2>/dev/null |
      head -c 16777216 |
      awk '/"event":"decision"/ && /"decision":"refused"/ {
        host = $0; sub(/.*"host":"/, "", host); sub(/".*/, "", host)
        port = $0; sub(/.*"port":"/, "", port); sub(/".*/, "", port)
        reason = $0; sub(/.*"reason":"/, "", reason); sub(/".*/, "", reason)
        count[substr(host, 1, 200) " " port " " reason]++
      }
      END { for (k in count) { split(k, f, " "); printf "| `%s` | %s | %s | %d |\\n", f[1], f[2], f[3], count[k] } }' |
      sort | sed -n '1,100p'
  } >> "$GITHUB_STEP_SUMMARY"
fi
""")

# Always, even after a failure or a cancel: nothing of the session stays on the runner (a
# self-hosted one keeps what a job leaves), and the job fails if something does.
CLEANUP_SCRIPT = LiteralBlock("""\
for container in "$SANDKIT_AGENT" "$SANDKIT_DEADLINE" "$SANDKIT_PROXY"; do
  if [ -n "$container" ]; then
    docker rm --force "$container" >/dev/null 2>&1 || true
  fi
done
if [ -n "$SANDKIT_CA_VOLUME" ]; then
  docker volume rm --force "$SANDKIT_CA_VOLUME" >/dev/null 2>&1 || true
fi
if [ -n "$SANDKIT_NETWORK" ]; then
  for network in "$SANDKIT_NETWORK" "$SANDKIT_NETWORK-held-1" "$SANDKIT_NETWORK-held-2"; do
    docker network rm "$network" >/dev/null 2>&1 || true
  done
fi
rm -rf -- "$RUNNER_TEMP"/sandkit-session.* "$RUNNER_TEMP"/sandkit-host-addresses.* "$RUNNER_TEMP/sandkit-event" \\
  "$RUNNER_TEMP/sandkit-variables" "$RUNNER_TEMP/sandkit-record" "$RUNNER_TEMP/sandkit-agent-status"
for container in "$SANDKIT_AGENT" "$SANDKIT_DEADLINE" "$SANDKIT_PROXY"; do
  if [ -n "$container" ] && docker container inspect "$container" >/dev/null 2>&1; then
    echo "sandkit: the container $container could not be removed" >&2
    exit 1
  fi
done
if [ -n "$SANDKIT_CA_VOLUME" ] && docker volume inspect "$SANDKIT_CA_VOLUME" >/dev/null 2>&1; then
  echo "sandkit: the volume $SANDKIT_CA_VOLUME could not be removed" >&2
  exit 1
fi
""")

#: Every script a generated workflow can hold (tests check that nothing else appears): bash, and python.
SCRIPTS = (
    BUILDER_REMOVE_SCRIPT,
    PROXY_START_SCRIPT,
    AGENT_SCRIPT,
    OUTPUT_CHECK_SCRIPT,
    BRANCH_SCRIPT,
    PROXY_LOG_SCRIPT,
    CLEANUP_SCRIPT,
)
PYTHON_SCRIPTS = (EVENT_SCRIPT, GITHUB_EVENT_SCRIPT, PUBLISH_SCRIPT)


def render(plan: Plan, context: RenderContext) -> Files:
    from sandkit.verify.probe import PROGRAM

    probe = commented_header("#", *plan.header_fields) + PROGRAM
    return {f"workflows/{plan.name}.yml": workflow_text(plan, context).encode(), PROBE_PROGRAM: probe.encode()}


def workflow_text(plan: Plan, context: RenderContext) -> str:
    document = workflow_document(plan, context)
    _refuse_foreign_expressions(plan, document, "")
    return commented_header("#", *plan.header_fields) + _endpoint_notes(plan) + dump_yaml(document)


def _endpoint_notes(plan: Plan) -> str:
    """A comment saying why each endpoint beyond the kit's allowlist is allowed."""
    if plan.egress == "open":
        return ""
    lines = ["Runner egress (harden-runner, egress-policy block) allows the kit's network.allow and:"]
    lines += [f"  {destination}: {why}" for destination, why in JOB_ENDPOINTS]
    lines.append(f"  vars.{BUILD_ENDPOINTS_VARIABLE}: the registries the two image builds pull from (docs/actions.md)")
    return "".join(f"# {line}\n" for line in lines)


def workflow_document(plan: Plan, context: RenderContext) -> dict[str, Any]:
    return {
        "name": f"sandkit {plan.name}",
        "on": triggers(plan),
        "permissions": {},
        "concurrency": {
            "group": Expression(f"sandkit-{plan.name}-" + _expression("github.ref")),
            "cancel-in-progress": False,
        },
        "jobs": jobs(plan, context),
    }


def triggers(plan: Plan) -> dict[str, Any]:
    """The kit's triggers as ``on:``; a trigger that cannot be written exactly is left out (see fidelity)."""
    on: dict[str, Any] = {}
    if plan.triggers.schedules:
        on["schedule"] = [{"cron": cron} for cron in dict.fromkeys(plan.triggers.schedules)]
    for github in plan.triggers.github:
        if _inexpressible(github) is not None:
            continue
        for key, values in (("types", github.types), ("branches", github.branches), ("paths", github.paths)):
            for value in values:
                _literal(plan, value, f"triggers: github {github.event} {key}")
        on[github.event] = _merge_filters(on.get(github.event), github)
    dispatched = [hook.name for hook in plan.triggers.webhooks if hook.dispatch == "repository_dispatch"]
    if dispatched:
        current = on.get("repository_dispatch")
        on["repository_dispatch"] = (
            {"types": dispatched}
            if current is None
            else _merge_filters(current, GithubEvent("repository_dispatch", types=tuple(dispatched)))
        )
    inputs = _dispatch_inputs(plan)
    if plan.triggers.manual or inputs or not on:
        on["workflow_dispatch"] = {"inputs": inputs} if inputs else {}
    for comment in {g.event for g in plan.triggers.comments} & set(on):
        on[comment] = Commented(on[comment], COMMENT_GATED)
    return on


#: Beside a comment event's key: zizmor's dangerous-triggers asks whether anyone's comment starts a
#: run that holds secrets; the gate job is the answer.
COMMENT_GATED = "zizmor: ignore[dangerous-triggers] the gate job admits only the kit's command from authors it allows"


def _dispatch_inputs(plan: Plan) -> dict[str, Any]:
    """The workflow_dispatch webhook's fields as typed inputs, none required (a field may be absent)."""
    hook = next((h for h in plan.triggers.webhooks if h.dispatch == "workflow_dispatch"), None)
    if hook is None:
        return {}
    inputs: dict[str, Any] = {}
    for field in hook.fields:
        spec: dict[str, Any] = {"type": field.type, "required": False}
        if field.description:
            spec["description"] = field.description
        inputs[field.name] = spec
    return inputs


def _inexpressible(github: GithubEvent) -> str | None:
    """Why a github trigger cannot be written as it is, or None."""
    if github.event == "workflow_run":
        return "workflow_run needs the names of the workflows it follows, which the kit format cannot say"
    if github.types and github.event in NO_TYPES:
        return f"{github.event} has no activity types"
    if github.branches and github.event not in BRANCH_FILTERS:
        return f"{github.event} takes no branch filter"
    if github.paths and github.event not in PATH_FILTERS:
        return f"{github.event} takes no path filter"
    return None


def _merge_filters(current: dict[str, Any] | None, github: GithubEvent) -> dict[str, Any]:
    """Two triggers on one event run on either: a filter stays only where both have one."""
    given = {
        k: list(v) for k, v in (("types", github.types), ("branches", github.branches), ("paths", github.paths)) if v
    }
    if current is None:
        return given
    return {k: list(dict.fromkeys(current[k] + given[k])) for k in current if k in given}


GATE_JOB = "gate"


def jobs(plan: Plan, context: RenderContext) -> dict[str, Any]:
    """The agent's job; with comment triggers a gate job before it, with publish a publishing job after it."""
    agent = job(plan, context)
    out: dict[str, Any] = {}
    if plan.triggers.comments:
        out[GATE_JOB] = {
            "name": "a command from someone the kit allows?",
            "runs-on": agent["runs-on"],
            # No token, no environment, no secret: it reads the event file and decides.
            "permissions": {},
            "timeout-minutes": 5,
            "outputs": {"skip": _expression(f"steps.{EVENT_STEP_ID}.outputs.skip")},
            "steps": [_github_event_step(plan, gate=True)],
        }
        agent = {"needs": GATE_JOB, "if": _expression(f"needs.{GATE_JOB}.outputs.skip != 1"), **agent}
    if plan.actions.publish is not None:
        agent["outputs"] = {"results": _expression(f"steps.{RESULTS_STEP_ID}.outputs.results")}
    out["agent"] = agent
    if plan.actions.publish is not None:
        out[PUBLISH_JOB] = _publish_job(plan, plan.actions.publish, agent["runs-on"])
    return out


GATE_JOB = "gate"
PUBLISH_JOB = "publish"
RESULTS_STEP_ID = "results"
RESULTS_ARTIFACT = "sandkit-output"
#: Where the agent finds the folder for its results ($SANDKIT_OUTPUT), and the most it may leave there.
OUTPUT_PATH = "/sandkit/output"
OUTPUT_MAX_BYTES = 16 * 1024 * 1024
PUBLISH_FILES = {"review": "review.md", "comment": "comment.md", "branch": "changes.patch"}
RUNNER_OUTPUT = "${{ runner.temp }}/" + RESULTS_ARTIFACT


def _results_steps() -> list[dict[str, Any]]:
    """The agent's results, checked, uploaded for the publishing job."""
    return [
        {
            "name": "Check the agent's results",
            "id": RESULTS_STEP_ID,
            "env": {"SANDKIT_OUTPUT_MAX": str(OUTPUT_MAX_BYTES)},
            "run": OUTPUT_CHECK_SCRIPT,
        },
        {
            "name": "Upload the agent's results",
            "if": _expression(f"steps.{RESULTS_STEP_ID}.outputs.results == 1"),
            "uses": uses(UPLOAD_ARTIFACT),
            "with": {
                "name": RESULTS_ARTIFACT,
                "path": Expression(RUNNER_OUTPUT),
                "if-no-files-found": "error",
                "retention-days": 1,
            },
        },
    ]


def _publish_job(plan: Plan, publish: str, runs_on: str) -> dict[str, Any]:
    """Posts the results with the one write scope they need; it runs no agent, pull request or kit code."""
    scope = PUBLISH_SCOPES[publish]
    steps: list[dict[str, Any]] = [_base_checkout(plan)] if publish == "branch" else []
    steps += [
        {
            "name": "Download the agent's results",
            "uses": uses(DOWNLOAD_ARTIFACT),
            "with": {"name": RESULTS_ARTIFACT, "path": Expression(RUNNER_OUTPUT)},
        }
    ]
    token = _expression("github.token")
    permissions: dict[str, Any] = {scope: Commented("write", f"{_publishes(publish)}; the only scope this job holds")}
    if plan.actions.app is not None:
        # The App's token instead: for this repository (the action's default without `owner`) and the one
        # scope, minted right before the post and revoked when the job ends; GITHUB_TOKEN gets nothing.
        client_id, private_key = plan.actions.app
        steps.append(
            {
                "name": "Mint the App's token for this repository and the one scope",
                "id": APP_TOKEN_STEP_ID,
                "uses": uses(CREATE_APP_TOKEN),
                "with": {
                    "client-id": _expression(f"vars.{client_id}"),
                    "private-key": _expression(f"secrets.{private_key}"),
                    f"permission-{scope}": "write",
                },
            }
        )
        token, permissions = _expression(f"steps.{APP_TOKEN_STEP_ID}.outputs.token"), {}
    job: dict[str, Any] = {
        "name": f"publish {plan.name}'s {publish}",
        "needs": "agent",
        "if": _expression("needs.agent.outputs.results == 1"),
        "runs-on": runs_on,
        "permissions": permissions,
    }
    if plan.actions.app is not None:
        # The App's key in an environment of its own: no other job (the agent's least of all) can read it.
        job["environment"] = f"sandkit-{plan.name}-publish"
    steps.append(_publish_step(plan, publish, token))
    return {**job, "timeout-minutes": 10, "steps": steps}


def _push_workflows(plan: Plan) -> str:
    """What the branch's push starts, by the token that pushes it."""
    if plan.actions.app is None:
        return (
            "; GITHUB_TOKEN's push starts no workflow run (GitHub runs none for that token's events), so "
            "nothing runs the branch with the repository's secrets until a person opens a pull request from it; "
            "a patch adding a symbolic link, a gitlink, .gitmodules or a .gitattributes driver is refused"
        )
    accepted = (
        "pushes even so, as targets.actions.app_push_runs_workflows accepts"
        if plan.actions.app_push_runs_workflows
        else "is refused when a workflow of the base branch has a push trigger"
    )
    return (
        "; an App's push starts the repository's on: push workflows with its secrets on the agent's code, so it "
        f"{accepted}; a patch adding a symbolic link, a gitlink, .gitmodules or a .gitattributes driver is refused"
    )


def _publishes(publish: str) -> str:
    return "pushes the agent's changes as a new branch" if publish == "branch" else f"posts the agent's {publish}"


def branch_prefix(plan: Plan) -> str:
    """The branch name the publishing job pushes to, before the run's id and attempt."""
    return f"sandkit/{plan.name}/run-"


def _publish_step(plan: Plan, publish: str, token: Expression) -> dict[str, Any]:
    env = {"GITHUB_TOKEN": token, "SANDKIT_PUBLISH": publish, "SANDKIT_PUBLISH_FILE": PUBLISH_FILES[publish]}
    if publish != "branch":
        return {"name": f"Post the {publish}", "shell": "python", "env": env, "run": PUBLISH_SCRIPT}
    env |= {
        "SANDKIT_BRANCH_PREFIX": branch_prefix(plan),
        "SANDKIT_COMMIT_MESSAGE": f"sandkit: the changes of {plan.name}'s agent",
    }
    if plan.actions.app is not None:  # GITHUB_TOKEN's push starts no workflow; an App's starts on: push ones
        env["SANDKIT_APP_PUSH"] = "allow" if plan.actions.app_push_runs_workflows else "refuse"
    return {"name": "Push the changes as a new branch", "env": env, "run": BRANCH_SCRIPT}


def _base_checkout(plan: Plan) -> dict[str, Any]:
    """The commit the branch is cut from: workspace.ref of this repository, else its default branch (never
    the event's commit, which for a pull request is its merge with a fork's code)."""
    ref = plan.workspace_ref or _expression("github.event.repository.default_branch")
    return {
        "name": "Check out the branch's base",
        "uses": uses(CHECKOUT),
        "with": {"persist-credentials": False, "ref": ref},
    }


def job(plan: Plan, context: RenderContext) -> dict[str, Any]:
    permissions = {"contents": "read", **dict(plan.actions.permissions)}
    runs_on = plan.actions.runs_on
    if not RUNNER_LABEL.fullmatch(runs_on):
        raise _problem(
            plan, "targets.actions.runs_on", f"{runs_on!r} is not a runner label (letters, digits, '.', '_' and '-')"
        )
    return {
        "name": f"run {plan.name} in its sandbox",
        "runs-on": runs_on,
        # Each scope with why the job holds it beside it (reviewers and zizmor ask for one).
        "permissions": {
            scope: Commented(level, _permission_reason(plan, scope)) for scope, level in sorted(permissions.items())
        },
        # A dedicated environment: its secrets and protection rules (reviewers, branches) hold for
        # this kit's agent and for nothing else in the repository.
        "environment": f"sandkit-{plan.name}",
        "timeout-minutes": _agent_minutes(plan) + BUILD_MINUTES,
        "defaults": {"run": {"shell": "bash"}},
        "steps": steps(plan, context),
    }


def _permission_reason(plan: Plan, scope: str) -> str:
    """Why the job holds a scope (scopes come from a closed set in the kit model)."""
    asked = scope in dict(plan.actions.permissions)
    if scope == "contents":
        return "actions/checkout reads the sandbox folder" + ("; more as the kit asks" if asked else "")
    return "asked by targets.actions.permissions; the agent gets the token only as a GITHUB_TOKEN kit secret"


def _agent_minutes(plan: Plan) -> int:
    return math.ceil(plan.deadline_seconds / 60)


def steps(plan: Plan, context: RenderContext) -> list[dict[str, Any]]:
    folder = sandbox_folder(plan, context)
    names = _names(plan)
    out = [_harden_runner(plan), _checkout(folder)]
    if plan.triggers.github:
        out.append(_github_event_step(plan, gate=False))
    out += build_steps(plan, folder, names)
    if plan.egress == "allowlist":
        out.append(
            {
                "name": "Start the egress proxy on the sandbox network",
                "env": {
                    "SANDKIT_NETWORK": names["network"],
                    "SANDKIT_PROXY": names["proxy"],
                    "SANDKIT_PROXY_IMAGE": names["proxy_image"],
                    "SANDKIT_PROXY_ALIAS": PROXY_SERVICE,
                    "SANDKIT_PROXY_USER": f"{PROXY_UID}:{PROXY_UID}",
                    # squid itself, on the squid.conf that does not inject (the image's start script injects)
                    "SANDKIT_SQUID_CONF": squid_conf_path(plan),
                    "SANDKIT_HOST_ADDRESSES_SCRIPT": HOST_ADDRESSES_SCRIPT,
                    "SANDKIT_HOST_ADDRESSES_FILE": HOST_ADDRESSES_FILE,
                    "SANDKIT_HOST_GUARD_SCRIPT": HOST_GUARD_SCRIPT,
                    **_record_env(plan),
                    **_log_env(),
                    **_injecting_proxy_env(plan, names),
                },
                "run": PROXY_START_SCRIPT,
            }
        )
    out.append(_probe_step(plan, names, folder))
    if plan.triggers.webhooks:
        out.append(_event_step(plan))
    out.append(_agent_step(plan, names))
    if plan.actions.publish is not None:
        out += _results_steps()
    if plan.egress == "allowlist":
        out.append(
            {
                "name": "Egress proxy decisions",
                "if": Expression(_expression("always()")),
                "env": {"SANDKIT_PROXY": names["proxy"], "SANDKIT_IMAGE": plan.image_tag},
                "run": PROXY_LOG_SCRIPT,
            }
        )
        out.append(
            {
                "name": "Upload the session record",
                "if": Expression(_expression("always()")),
                "uses": uses(UPLOAD_ARTIFACT),
                "with": {
                    "name": f"{RECORD_ARTIFACT}-{plan.name}",
                    "path": Expression(RUNNER_RECORD),
                    "if-no-files-found": "warn",
                },
            }
        )
    allowlist = plan.egress == "allowlist"
    out.append(
        {
            "name": "Remove the sandbox",
            "if": Expression(_expression("always()")),
            "env": {
                "SANDKIT_AGENT": names["agent"],
                "SANDKIT_DEADLINE": names["deadline"],
                "SANDKIT_PROXY": names["proxy"] if allowlist else "",
                "SANDKIT_NETWORK": names["network"] if allowlist else "",
                "SANDKIT_CA_VOLUME": names["ca_volume"] if plan.proxy_injects else "",
            },
            "run": CLEANUP_SCRIPT,
        }
    )
    return out


SETUP_BUILDX = "docker/setup-buildx-action"
BUILD_PUSH = "docker/build-push-action"
BUILDX_STEP_ID = "buildx"
#: The repository variable that names the BuildKit image the builder runs (pin it by digest, or a
#: mirror's); unset, setup-buildx-action's own default.
BUILDKIT_IMAGE_VARIABLE = "SANDKIT_BUILDKIT_IMAGE"
BUILDKIT_DEFAULT_IMAGE = "moby/buildkit:buildx-stable-1"
#: The events whose runs write the image cache: only a collaborator can start them (GitHub's own list of
#: the events that keep a read-write cache token on the default branch; docs/actions.md). Every other
#: run reads it only: a comment, a pull request_target or a workflow_run can be started by anyone, and a
#: pull_request's checkout holds the pull request's own sandbox folder.
CACHE_WRITERS = ("push", "repository_dispatch", "schedule", "workflow_dispatch")


def cache_scope(plan: Plan, image: str) -> str:
    """The cache's name for one image of the kit: the two images (and two kits) never share an index."""
    return f"sandkit-{plan.name}-{image}"


def cache_writers(plan: Plan) -> tuple[list[str], list[str]]:
    """The workflow's events whose runs write the image cache, and those whose runs only read it."""
    events = sorted(triggers(plan))
    return [e for e in events if e in CACHE_WRITERS], [e for e in events if e not in CACHE_WRITERS]


def _event_is(events: list[str], equal: bool) -> Expression:
    operator, join = ("==", " || ") if equal else ("!=", " && ")
    return _expression(join.join(f"github.event_name {operator} '{event}'" for event in events))


def build_steps(plan: Plan, folder: str, names: dict[str, str]) -> list[dict[str, Any]]:
    """buildx with the Actions cache: the builder, each image (read the cache always, write it only on a
    run a collaborator started), then the builder's removal before anything of the sandbox starts."""
    images = [("Build the sandbox image", folder, plan.image_tag, cache_scope(plan, "agent"))]
    if plan.egress == "allowlist":
        images.append(
            ("Build the egress proxy image", f"{folder}/egress", names["proxy_image"], cache_scope(plan, "egress"))
        )
    writers, readers = cache_writers(plan)
    out = [_setup_buildx()]
    for name, context, tag, scope in images:
        if writers and readers:  # the event decides at run time; the two steps exclude each other
            out.append(_build_step(f"{name} (writes the cache)", context, tag, scope, True, _event_is(writers, True)))
            out.append(_build_step(f"{name} (reads the cache)", context, tag, scope, False, _event_is(writers, False)))
        else:
            out.append(_build_step(name, context, tag, scope, bool(writers)))
    out.append(
        {
            "name": "Remove the image builder",
            "if": Expression(_expression("always()")),
            "env": {"SANDKIT_BUILDER": _expression(f"steps.{BUILDX_STEP_ID}.outputs.name")},
            "run": BUILDER_REMOVE_SCRIPT,
        }
    )
    return out


def _setup_buildx() -> dict[str, Any]:
    image = _expression(f"vars.{BUILDKIT_IMAGE_VARIABLE} || '{BUILDKIT_DEFAULT_IMAGE}'")
    return {
        "name": "Set up the image builder (BuildKit, for the Actions cache)",
        "id": BUILDX_STEP_ID,
        "uses": uses(SETUP_BUILDX),
        # No buildx download (the runner's own), so nothing of setup-buildx's own is cached either.
        "with": {"driver-opts": Expression(f"image={image}"), "cache-binary": False},
    }


def _build_step(
    name: str, context: str, tag: str, scope: str, write: bool, when: Expression | None = None
) -> dict[str, Any]:
    """One image into the engine (load), from the checked-out folder alone, with the cache of its scope
    (``write``: this step writes it too; ``when``: the runs the step is for, by their event).
    mode=min: the image's own layers, no intermediate stage; ignore-error: a write the cache refuses
    (a read-only token) costs the next run time, never this run."""
    with_: dict[str, Any] = {
        "context": context,
        "file": f"{context}/Dockerfile",
        "tags": tag,
        "load": True,
        "provenance": False,
        # The build is of a folder, never a git context: it needs no token of this repository.
        "github-token": "",
        "cache-from": f"type=gha,scope={scope}",
    }
    if write:
        with_["cache-to"] = f"type=gha,scope={scope},mode=min,ignore-error=true"
    step: dict[str, Any] = {"name": name}
    if when is not None:
        step["if"] = when
    return {
        **step,
        "uses": uses(BUILD_PUSH),
        # No build record: its upload in the action's post step would run after the agent.
        "env": {"DOCKER_BUILD_SUMMARY": "false", "DOCKER_BUILD_RECORD_UPLOAD": "false"},
        "with": with_,
    }


#: The session record (docs/record.md): the runner's folder the proxy writes it into ($RUNNER_TEMP/sandkit-record
#: in the scripts), and its artifact.
RECORD_ARTIFACT = "sandkit-record"
RUNNER_RECORD = "${{ runner.temp }}/" + RECORD_ARTIFACT


def _record_env(plan: Plan) -> dict[str, Any]:
    """What the proxy's start needs for the session record: sandkit-record, its tmpfs and its folder."""
    owner = plan.uid if plan.proxy_injects else PROXY_UID
    tmpfs_owner = f"uid={owner},gid={owner},mode=0755"
    return {
        "SANDKIT_RECORD_DIR": record.DIR,
        "SANDKIT_RECORD_SCRIPT": record.SCRIPT,
        "SANDKIT_RECORD_TMPFS": f"{record.CONF_DIR}:rw,nosuid,nodev,noexec,size=65536,{tmpfs_owner}",
        "SANDKIT_INJECT_START": inject.PATHS.start_script if plan.proxy_injects else "",
        **proxy_identity_env(plan),
    }


def _log_env() -> dict[str, str]:
    return {"SANDKIT_LOG_MAX_SIZE": LOG_MAX_SIZE, "SANDKIT_LOG_MAX_FILE": LOG_MAX_FILE}


def _names(plan: Plan) -> dict[str, str]:
    """Docker object names; the runner is a fresh machine per job, so fixed names cannot collide."""
    return {
        "network": f"sandkit-{plan.name}-sandbox",
        "proxy": f"sandkit-{plan.name}-egress",
        "proxy_image": proxy_image(plan),
        "agent": f"sandkit-{plan.name}-agent",
        "deadline": f"sandkit-{plan.name}-deadline",
        "ca_volume": f"sandkit-{plan.name}-egress-ca",
    }


def _injecting_proxy_env(plan: Plan, names: dict[str, str]) -> dict[str, str]:
    """What the proxy's start step needs to inject (secrets[].inject): the injected secrets themselves
    (this step's alone, never the agent's), the tmpfs of the authority and the certificate's volume."""
    if not plan.proxy_injects:
        return {"SANDKIT_INJECTED": ""}
    owner = f"uid={plan.uid},gid={plan.uid},mode=0700"  # the injecting image's user (egress/Dockerfile)
    return {
        **{name: _expression(f"secrets.{name}") for name in plan.injected_secrets},
        "SANDKIT_INJECTED": " ".join(plan.injected_secrets),
        "SANDKIT_INJECT_TMPFS": f"{inject.PATHS.dir}:rw,nosuid,nodev,noexec,size=16777216,{owner}",
        "SANDKIT_CA_VOLUME": names["ca_volume"],
        "SANDKIT_CA_FOLDER": inject.PATHS.public,
    }


def _agent_secrets(plan: Plan) -> list[str]:
    """The secrets the agent's step hands the agent as files: all but those the proxy injects."""
    injected = plan.injected_secrets if plan.proxy_injects else ()
    return [name for name, _ in plan.secrets if name not in injected]


def _harden_runner(plan: Plan) -> dict[str, Any]:
    if plan.egress == "open":
        policy = {"egress-policy": "audit"}
    else:
        policy = {
            "egress-policy": "block",
            "disable-telemetry": "true",
            "allowed-endpoints": Expression(" ".join(allowed_endpoints(plan))),
        }
    return {
        "name": "Hold the runner's egress to the allowlist and the job's needs",
        "uses": uses(HARDEN_RUNNER),
        "with": policy,
    }


def allowed_endpoints(plan: Plan) -> list[str]:
    """The kit's allowlist, what the job needs, and the build registries from a repository variable."""
    own = [str(d) for d in plan.allow]
    job_needs = [str(d) for d, _ in JOB_ENDPOINTS if not any(a.covers(d) for a in plan.allow)]
    return [*own, *job_needs, _expression(f"vars.{BUILD_ENDPOINTS_VARIABLE}")]


def _checkout(folder: str) -> dict[str, Any]:
    # No `ref:`: checkout's default is the commit the event names, and for pull_request_target and
    # workflow_run that is the base repository's, never the pull request's head.
    return {
        "name": "Check out the sandbox folder",
        "uses": uses(CHECKOUT),
        "with": {"persist-credentials": False, "sparse-checkout": folder},
    }


EVENT_STEP_ID = "event"


def _event_step(plan: Plan) -> dict[str, Any]:
    """Writes the webhook's selected fields to the event file; the kit's part reaches it as JSON in env."""
    hooks = {
        hook.name: {
            "dispatch": hook.dispatch,
            "matches": [[list(match.path), list(match.values)] for match in hook.matches],
            "fields": [[field.name, list(field.path), field.type] for field in hook.fields],
        }
        for hook in plan.triggers.webhooks
    }
    return {
        "name": "Write the event file from the dispatch",
        "id": EVENT_STEP_ID,
        "shell": "python",
        "env": {"SANDKIT_WEBHOOKS": json.dumps(hooks, sort_keys=True), "SANDKIT_EVENT_FILE": EVENT_FILE},
        "run": EVENT_SCRIPT,
    }


def _github_event_step(plan: Plan, *, gate: bool) -> dict[str, Any]:
    """Checks a comment against the kit's commands and authors (gate), or writes the event's file and variables."""
    triggers: dict[str, list[dict[str, Any]]] = {}
    for github in plan.triggers.github:
        triggers.setdefault(github.event, []).append(
            {
                "comment": COMMENT_EVENTS.get(github.event),
                "command": github.command,
                "associations": list(github.author_associations),
                "bots": list(github.bots),
                "head": github.head_checkout,
            }
        )
    env = {"SANDKIT_GITHUB_TRIGGERS": json.dumps(triggers, sort_keys=True), "SANDKIT_GATE": str(gate).lower()}
    if not gate:
        env |= {
            "SANDKIT_REPO": plan.workspace_repo or "",
            "SANDKIT_EVENT_FOLDER": EVENT_FOLDER,
            "SANDKIT_EVENT_FILE": EVENT_FILE,
            "SANDKIT_COMMENT_FILE": COMMENT_FILE,
        }
    step: dict[str, Any] = {"name": "Check the comment's command and author" if gate else "Write the event file"}
    return {
        **step,
        **({"id": EVENT_STEP_ID} if gate else {}),
        "shell": "python",
        "env": env,
        "run": GITHUB_EVENT_SCRIPT,
    }


def _agent_step(plan: Plan, names: dict[str, str]) -> dict[str, Any]:
    env: dict[str, str] = {name: _expression(f"secrets.{name}") for name in _agent_secrets(plan)}
    network = {"allowlist": names["network"], "none": "none", "open": "bridge"}[plan.egress]
    env.update(
        {
            "SANDKIT_IMAGE": plan.image_tag,
            "SANDKIT_AGENT": names["agent"],
            "SANDKIT_DEADLINE": names["deadline"],
            "SANDKIT_DEADLINE_USER": f"{deadline_uid(plan)}:{deadline_uid(plan)}",
            "SANDKIT_DEADLINE_SECONDS": str(plan.deadline_seconds),
            "SANDKIT_SHARE_PID": "true" if shares_pid_namespace(plan) else "false",
            "SANDKIT_USER": f"{plan.uid}:{plan.uid}",
            "SANDKIT_NETWORK": network,
            "SANDKIT_MEMORY": str(plan.memory_bytes),
            "SANDKIT_CPUS": f"{plan.cpus:g}",
            "SANDKIT_PIDS": str(plan.pids),
            "SANDKIT_TMPFS_TMP": tmpfs(plan, "/tmp", owned=False),
            "SANDKIT_TMPFS_HOME": tmpfs(plan, plan.home, owned=True),
            "SANDKIT_TMPFS_WORKSPACE": workspace_tmpfs(plan),
            "SANDKIT_READ_ONLY": "true" if plan.read_only_root else "false",
            "SANDKIT_RUNTIME": plan.docker_runtime or "",
            # The proxy's address and, where it injects, the placeholders and the trust in its authority.
            "SANDKIT_PROXY_ENV": "\n".join(
                f"{k}={v}" for k, v in (proxy_env(plan.proxy_url) | inject.agent_env(plan)).items()
            )
            if plan.egress == "allowlist"
            else "",
            "SANDKIT_CA_VOLUME": names["ca_volume"] if plan.proxy_injects else "",
            "SANDKIT_AGENT_CA": inject.PATHS.agent_ca,
            "SANDKIT_SECRET_NAMES": " ".join(_agent_secrets(plan)),
            "SANDKIT_EVENT_FOLDER": EVENT_FOLDER,
            "SANDKIT_EVENT_FILE": EVENT_FILE,
            "SANDKIT_OUTPUT_PATH": OUTPUT_PATH if plan.actions.publish is not None else "",
            **_log_env(),
        }
    )
    step: dict[str, Any] = {"name": "Run the agent in its sandbox"}
    if plan.triggers.webhooks:
        step["if"] = Expression(_expression(f"steps.{EVENT_STEP_ID}.outputs.skip != 1"))
    return {**step, "timeout-minutes": _agent_minutes(plan), "env": env, "run": AGENT_SCRIPT}


#: The repository variable that turns the probe step on, and where the build writes the probe program.
VERIFY_VARIABLE = "SANDKIT_VERIFY"
PROBE_PROGRAM = "verify/probe.pl"


def _probe_step(plan: Plan, names: dict[str, str], folder: str) -> dict[str, Any]:
    """`sandkit verify` in the job (docs/verify.md): with the repository variable SANDKIT_VERIFY at 1,
    the agent step's own script runs the probe program in the agent's place first, on the same
    network, proxy, user, tmpfs, deadline and runtime, and fails the job (so the agent never runs)
    when a probe of a row the actions column marks enforced does not pass. It gets no secret: the
    injected ones are the proxy's, and the probes read none of the others."""
    from sandkit.verify import plan as verify

    step = _agent_step(plan, names)
    env = {k: v for k, v in step["env"].items() if k not in _agent_secrets(plan)}
    agent = {
        "environment": dict(v.split("=", 1) for v in env["SANDKIT_PROXY_ENV"].splitlines()),
        "user": env["SANDKIT_USER"],
        "tmpfs": ["/tmp", plan.home, plan.workspace_path],
        "volumes": [f"output:{OUTPUT_PATH}"] if plan.actions.publish is not None else [],
        **({"network_mode": "none"} if plan.egress == "none" else {}),
    }
    probes, enforced = verify.for_actions(plan, fidelity(plan), agent)
    env.update(
        SANDKIT_SECRET_NAMES="",
        SANDKIT_PROBE_PROGRAM=f"{folder}/{PROBE_PROGRAM}",
        SANDKIT_PROBES="\n".join(p.argument for p in probes),
        SANDKIT_PROBES_ENFORCED=" ".join(enforced),
    )
    return {
        "name": "Probe the sandbox (sandkit verify)",
        "if": Expression(_expression(f"vars.{VERIFY_VARIABLE} == 1")),
        "timeout-minutes": 10,
        "env": env,
        "run": AGENT_SCRIPT,
    }


def sandbox_folder(plan: Plan, context: RenderContext) -> str:
    """The kit's output folder relative to the repository root: the nearest folder above it holding
    .git; outside git the kit's own top folder when the output lies below it, else the output's
    parent. Never the working folder, so the workflow is the same wherever the build runs."""
    folder = context.output_folder.resolve()
    root = next((p for p in (folder, *folder.parents) if (p / ".git").exists()), None)
    if root is None:
        kits = context.repository_root
        root = kits if kits is not None and folder.is_relative_to(kits) else folder.parent
    relative = Path(os.path.relpath(folder, root)).as_posix()
    return _literal(plan, relative, "the output folder (-o)")


def _literal(plan: Plan, value: str, where: str) -> str:
    if "${{" in value:
        raise _problem(plan, where, "must not contain `${{`: GitHub would evaluate it as an expression")
    return value


def _problem(plan: Plan, where: str, message: str) -> KitError:
    return KitError([Problem(Location(plan.kit_display), f"{where}: {message}")])


def _refuse_foreign_expressions(plan: Plan, value: Any, path: str) -> None:
    """Defence in depth: a ``${{`` anywhere but in sandkit's own expressions stops the build."""
    if isinstance(value, dict):
        for key, item in value.items():
            _refuse_foreign_expressions(plan, key, path)
            _refuse_foreign_expressions(plan, item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _refuse_foreign_expressions(plan, item, f"{path}[{index}]")
    elif isinstance(value, Commented):
        _refuse_foreign_expressions(plan, value.value, path)
        _refuse_foreign_expressions(plan, value.comment, path)
    elif isinstance(value, str) and not isinstance(value, Expression):
        _literal(plan, value, f"the workflow's {path.lstrip('.')}")


#: The job's own steps run in the real engine (tests/compiler/test_actions_docker.py); what needs
#: GitHub itself (harden-runner, the runner's timeouts, triggers) is checked in the workflow.
RUN_PROOF = "tests/compiler/test_actions_docker.py::test_the_jobs_steps_hold_a_hostile_agent_and_leave_nothing_behind"
STOP_PROOF = "tests/compiler/test_actions_docker.py::test_an_agent_that_stops_its_parent_still_ends_at_the_jobs_timeout"
STATIC_TESTS = "tests/compiler/test_actions.py"
INJECT_PROOF = (
    "tests/compiler/test_actions_docker.py::test_the_jobs_proxy_injects_and_the_agent_holds_only_the_placeholder"
)


def fidelity(plan: Plan) -> list[Fidelity]:
    rows = [
        _egress_fidelity(plan),
        record_row(plan, "actions"),
        proxy_deny_row(
            plan,
            "the squid proxy refuses denied names before any allow rule; denied entries never reach allowed-endpoints",
        ),
        Fidelity("image.user", "enforced", f"docker run --user {plan.uid}:{plan.uid}", proven_by=RUN_PROOF),
        read_only_row(plan, "docker run --read-only with tmpfs /tmp and home", RUN_PROOF),
        Fidelity(
            "capabilities", "enforced", "--cap-drop ALL, no-new-privileges, never privileged", proven_by=RUN_PROOF
        ),
        Fidelity("resources.memory", "enforced", "--memory and --memory-swap (no swap)", proven_by=RUN_PROOF),
        Fidelity("resources.cpus", "enforced", "--cpus", proven_by=RUN_PROOF),
        Fidelity("resources.pids", "enforced", "--pids-limit", proven_by=RUN_PROOF),
        engine_disk_row(plan, mounted_folder=False, proven_by=RUN_PROOF),
        deadline_timeout_row(plan, f"the agent step's timeout-minutes ({_agent_minutes(plan)}) ends it", STOP_PROOF),
        Fidelity(
            "secrets",
            "enforced",
            "${{ secrets.NAME }} only in the env of the step that runs the agent (a secret the proxy injects: of the "
            "step that starts the proxy instead), which writes each to a file in a private folder under RUNNER_TEMP "
            "and bind-mounts it read-only under /run/secrets of that one container: no value on a command line or in "
            "the container's record (docker inspect); the folder is removed when the step ends",
            proven_by=INJECT_PROOF if plan.proxy_injects else RUN_PROOF,
        ),
        _workspace_fidelity(plan),
        engine_runtime_row(
            plan,
            f"docker run --runtime {plan.docker_runtime}: GitHub-hosted runners do not have it, so the job "
            f"fails there instead of running without it; use a self-hosted runner that does; {PROVEN_STATICALLY}",
            (f"{STATIC_TESTS}::test_the_agent_step_asks_for_the_kits_runtime_and_workspace", RUN_PROOF),
        ),
        _trigger_fidelity(plan),
        Fidelity(
            "targets.actions.permissions",
            "enforced",
            "permissions: {} for the workflow; the agent's job gets contents: read"
            + "".join(f", {s}: {level}" for s, level in plan.actions.permissions)
            + f"; {PROVEN_STATICALLY}",
            proven_by=f"{STATIC_TESTS}::test_triggers_map_to_on",
        ),
    ]
    if plan.build_secrets:
        rows.append(
            Fidelity(
                "secrets (build)",
                "unsupported",
                "secrets reach only the step that runs the agent, so the image build gets none of "
                + ", ".join(plan.build_secrets),
            )
        )
    rows += hardened_container_docker_rows(plan)
    rows.append(_cache_fidelity(plan))
    if plan.ports:
        rows.append(
            Fidelity(
                "ports",
                "not applicable",
                "the job runs the agent unattended and ends with it: no one opens a runner's port in a browser and no "
                "step runs beside the agent to test its app; the agent reaches its own app inside the sandbox",
                requested=False,
            )
        )
    if plan.actions.publish is not None:
        rows.append(
            Fidelity(
                "targets.actions.publish",
                "enforced",
                f"the agent writes {PUBLISH_FILES[plan.actions.publish]} to $SANDKIT_OUTPUT; after a check (files "
                "only, bounded) it is uploaded, and a second job holding only "
                f"{PUBLISH_SCOPES[plan.actions.publish]}: write, which runs no agent or pull request code, "
                + (
                    "applies it as data (git apply, hooks off, nothing under .github/) on "
                    f"{plan.workspace_ref or 'the default branch'} and pushes it as a new branch "
                    f"{branch_prefix(plan)}ID-ATTEMPT, never moving one that exists"
                    if plan.actions.publish == "branch"
                    else "posts it as data"
                )
                + (
                    " with the App's token (create-github-app-token, this repository and that scope only)"
                    if plan.actions.app
                    else ""
                )
                + "; the agent's job holds no write scope"
                + (_push_workflows(plan) if plan.actions.publish == "branch" else ""),
                proven_by=BRANCH_PROOF if plan.actions.publish == "branch" else EVENTS_PROOF,
            )
        )
    rows += inject_rows(
        plan,
        None,
        "the step that starts the egress proxy alone gets the injected secrets and mounts them into the proxy's "
        "container alone, which reads them at its start (compose's injecting squid: an authority made for this job "
        "in a tmpfs of its own user, TLS opened to the injection hosts alone, the header replaced there, the host "
        "refused without its secret); the agent gets the placeholder and trusts the authority's certificate from a "
        "read-only volume",
        INJECT_PROOF,
    )
    return rows + _webhook_fidelity(plan)


CACHE_PROOF = f"{STATIC_TESTS}::test_only_runs_a_collaborator_starts_write_the_image_cache"


def _cache_fidelity(plan: Plan) -> Fidelity:
    """What the Actions cache of the image builds holds, who writes it, and what it does not protect."""
    writers, readers = cache_writers(plan)
    who = (
        f"runs of {', '.join(writers)} write it (events only a collaborator starts)"
        if writers
        else "no event of this workflow writes it (add `manual: {}` and run it by hand to fill it)"
    )
    if readers:
        who += f"; runs of {', '.join(readers)} only read it"
    return Fidelity(
        "image build cache",
        "enforced",
        "buildx with the Actions cache (type=gha, mode=min, a scope per image): a repeat run takes the "
        f"installed layers from it instead of installing again; {who}. Every build is of the checked-out "
        "sandbox folder alone, and the runtime token reaches only the build actions and their "
        "BuildKit container, which is removed before the proxy or the agent starts. It does not protect "
        "against a run that holds the token otherwise (an escape from the sandbox, a step added by hand) "
        "writing its branch's cache, and a cached layer keeps the packages of the run that wrote it until "
        f"the Dockerfile changes or GitHub evicts the entry; {PROVEN_STATICALLY}",
        requested=False,
        proven_by=CACHE_PROOF,
    )


def _webhook_fidelity(plan: Plan) -> list[Fidelity]:
    hooks = plan.triggers.webhooks
    if not hooks:
        return []
    unfiltered = [h.name for h in hooks if h.dispatch == "workflow_dispatch" and h.matches]
    how = (
        "repository_dispatch (event types "
        + ", ".join(h.name for h in hooks if h.dispatch == "repository_dispatch")
        + ")"
        if any(h.dispatch == "repository_dispatch" for h in hooks)
        else "workflow_dispatch"
    )
    reason = (
        f"{how}; a step reads the dispatch from GitHub's event file, applies the kit's filters and writes the "
        "selected fields to the file $SANDKIT_EVENT; the payload never reaches an expression, a script or env"
    )
    if unfiltered:
        reason += (
            "; workflow_dispatch carries only the inputs, so the filters of "
            + ", ".join(unfiltered)
            + " are the sender's to apply"
        )
    return [
        Fidelity("triggers.webhook", "best-effort" if unfiltered else "enforced", reason, proven_by=RUN_PROOF),
        Fidelity(
            "triggers.webhook.secret",
            "enforced",
            "GitHub admits a dispatch only with a token allowed to make it (fine-grained: contents: write for "
            "repository_dispatch, actions: write for workflow_dispatch); the source's signing secret is not used; "
            + PROVEN_STATICALLY,
            proven_by="tests/compiler/test_actions_webhooks.py::test_webhooks_become_dispatch_triggers_with_typed_inputs",
        ),
        Fidelity(
            "triggers.webhook.max_sessions",
            "best-effort",
            "the workflow's concurrency group runs one session at a time; GitHub keeps one run waiting and a "
            "newer dispatch replaces it",
        ),
        Fidelity(
            "triggers.webhook.per_minute",
            "unsupported",
            "GitHub limits dispatches only through its API's rate limits on the sender's token",
            requested=False,
        ),
    ]


def _egress_fidelity(plan: Plan) -> Fidelity:
    proofs = {
        "allowlist": RUN_PROOF,
        "none": f"{STATIC_TESTS}::test_no_network_runs_the_agent_with_network_none",
        "open": f"{STATIC_TESTS}::test_open_egress_runs_the_agent_on_the_default_bridge_and_only_audits",
    }
    return Fidelity("network.egress", "enforced", _egress_reason(plan), proven_by=proofs[plan.egress])


def _egress_reason(plan: Plan) -> str:
    if plan.egress == "none":
        return "docker run --network none; harden-runner blocks the runner to the job's own needs"
    if plan.egress == "open":
        return "a normal network, as the kit asks; harden-runner only audits (the linter reports open egress)"
    needs = "; ".join(f"{d}: {why}" for d, why in JOB_ENDPOINTS)
    return (
        "twice: the agent is only on an internal Docker network that has no address of the runner's on it "
        "(inhibit_ipv4, checked from that network before anything starts) and whose one way out is the squid "
        "allowlist proxy (as compose, the runner's own "
        "addresses refused too), and harden-runner (egress-policy: block) lets the runner reach only the "
        f"allowlist plus {needs}; and vars.{BUILD_ENDPOINTS_VARIABLE}: the registries the image builds "
        "pull from (unset: the builds fail closed). harden-runner's *.name may match deeper names; squid's "
        "matches exactly one label"
    )


def _workspace_fidelity(plan: Plan) -> Fidelity:
    if plan.workspace_mode == "clone":
        return Fidelity(
            "workspace.mode",
            "enforced",
            "the entrypoint clones through the egress proxy into a tmpfs, empty at every run; the always() "
            f"cleanup removes the job's containers, also on a self-hosted runner{clone_access(plan)}; "
            + (
                "the ssh clone with the key as the step's secret file is played in Docker (open egress: the "
                "proxy's CONNECT is compose's, proven there)"
                if plan.clone_over_ssh
                else PROVEN_STATICALLY
            ),
            proven_by=BRANCH_PROOF
            if plan.clone_over_ssh
            else f"{STATIC_TESTS}::test_the_agent_step_asks_for_the_kits_runtime_and_workspace",
        )
    if plan.workspace_mode == "none":
        return Fidelity("workspace.mode", "enforced", "an empty tmpfs", proven_by=RUN_PROOF)
    return Fidelity(
        "workspace.mode", "unsupported", "a CI job has no host folder to mount; the workspace is an empty tmpfs"
    )


def _trigger_fidelity(plan: Plan) -> Fidelity:
    left_out = [f"{g.event}: {why}" for g in plan.triggers.github if (why := _inexpressible(g)) is not None]
    if left_out:
        return Fidelity("triggers", "unsupported", "left out of on: " + "; ".join(left_out))
    proof = f"{STATIC_TESTS}::test_triggers_map_to_on"
    if not plan.triggers.requested:
        return Fidelity("triggers", "enforced", "no triggers: workflow_dispatch, run by hand", proven_by=proof)
    reason = "on: schedule, the GitHub events with their filters, workflow_dispatch for manual"
    if plan.triggers.comments:
        reason += (
            "; a comment starts the agent only through the gate job: the kit's command, from the authors it allows"
        )
    if plan.triggers.head_checkout:
        reason += "; a run about a pull request works on its head commit"
    if plan.triggers.comments or plan.triggers.head_checkout:
        return Fidelity("triggers", "enforced", reason, proven_by=EVENTS_PROOF)
    return Fidelity("triggers", "enforced", f"{reason}; {PROVEN_STATICALLY}", proven_by=proof)


EVENTS_PROOF = (
    "tests/compiler/test_actions_events_docker.py::"
    "test_the_agent_works_on_the_pull_requests_head_and_an_outsiders_comment_starts_nothing"
)
BRANCH_PROOF = (
    "tests/compiler/test_actions_events_docker.py::test_the_agents_patch_becomes_a_new_branch_and_never_moves_one"
)
