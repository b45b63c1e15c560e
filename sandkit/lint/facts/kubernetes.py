"""Containers of Kubernetes objects: every workload, Tekton Tasks and Pipelines, Argo Workflows,
kustomize patches (strategic merge and JSON 6902, in files or written inline), and the pod
specs of Terraform's kubernetes provider.

One reader serves them all. A pod spec is any mapping that holds containers (``containers``,
``initContainers``, ``ephemeralContainers``, Tekton ``steps``, ``sidecars`` and
``stepTemplate``, Argo ``container`` and ``script``), host namespaces or ``volumes``. Keys are
looked up in Kubernetes' spelling and in Terraform's (``security_context``, ``host_path``), and
a nested object may be a mapping or a list of one (HCL blocks), so a ``kubernetes_pod``
resource reads like a Pod.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from sandkit.lazy_regex import lazy
from sandkit.lint.facts.container_model import Container, Mount, Setting, env_items, strings
from sandkit.lint.facts.docker_cli import RUNTIMES, from_commands
from sandkit.lint.source import SourceFile
from sandkit.lint.syntax.tree import PMap, Pos, PSeq, PStr, first_map, pos_of

if TYPE_CHECKING:
    from typing import Any

#: Keys holding containers, with what a finding calls one of them.
_CONTAINER_GROUPS = {
    "containers": "container",
    "initContainers": "init container",
    "ephemeralContainers": "ephemeral container",
    "sidecars": "sidecar",
    "steps": "step",  # Tekton; Argo's steps are lists of lists and hold no container
    "stepTemplate": "step template",
    "container": "container",  # Argo templates; Terraform's repeated block
    "script": "script container",  # Argo script templates
    "init_container": "init container",
}
_POD_HOST = {"hostNetwork": "network", "hostPID": "pid", "hostIPC": "ipc"}
_SNAKE = lazy(r"(?<!^)(?=[A-Z])")
_SHELL_TEXT = ("script", "source")  # Tekton step scripts, Argo script sources


def _get(node: PMap, key: str) -> Any:
    """``node[key]`` in Kubernetes' spelling or Terraform's snake_case one."""
    if key in node:
        return node[key]
    return node.get(_SNAKE.sub("_", key).lower())


def _pos(node: PMap, key: str) -> Pos:
    return node.pos_of(key if key in node else _SNAKE.sub("_", key).lower())


def owner_of(document: PMap) -> str:
    """``Kind/name`` of an object (``generateName`` for Argo), as findings name it."""
    kind = str(document.get("kind") or "object")
    meta = document.get("metadata")
    name = str(meta.get("name") or meta.get("generateName") or "") if isinstance(meta, PMap) else ""
    return f"{kind}/{name}" if name else kind


def consumer_documents(file: SourceFile) -> list[Any]:
    """The file's documents typed as the API server's decoder types them (YAML 1.1 plain
    scalars: ``hostNetwork: on`` is true), made once per file."""
    from sandkit.lint.consumers.kubernetes import consumer_tree

    if file.syntax not in ("yaml", "helm", "template"):
        return file.documents  # JSON types its own scalars
    return file.memo("k8s_documents", lambda: [consumer_tree(d, file.budget) for d in file.documents])


def _consumer_embedded(file: SourceFile, text: PStr) -> list[Any]:
    """An inline patch's documents, typed as the API server types them (kustomize keeps a
    plain ``yes`` plain in what it renders)."""
    from sandkit.lint.consumers.kubernetes import consumer_tree

    return [consumer_tree(d, file.budget) for d in file.embedded(text)]


def kubernetes_containers(file: SourceFile) -> Iterator[Container]:
    for document in consumer_documents(file):
        if isinstance(document, PMap):
            yield from pod_specs(file, document, owner_of(document), typed=True)
            volume = _persistent_volume(document)
            if volume is not None:
                yield volume


def _persistent_volume(document: PMap) -> Container | None:
    """A PersistentVolume's ``spec.hostPath``: every pod whose claim binds to it mounts that
    host path, though no pod spec names it."""
    spec = document.get("spec")
    if document.get("kind") != "PersistentVolume" or not isinstance(spec, PMap):
        return None
    host_path = first_map(_get(spec, "hostPath"))
    path = host_path.get("path") if host_path is not None else None
    if host_path is None or not isinstance(path, str):
        return None
    box = Container(label=f"{owner_of(document)} (the pods that claim it)", pos=spec.pos)
    box.mounts.append(Mount(path, "", pos_of(path, host_path.pos), "hostPath"))
    return box


def pod_specs(file: SourceFile, root: Any, owner: str, *, typed: bool = False) -> Iterator[Container]:
    """Every container and pod spec under ``root`` (see the module doc), and in the pod-spec
    patches (Argo ``podSpecPatch``, YAML or JSON text) found there; ``typed``: the patches are
    typed as the API server types them too (:func:`consumer_documents`)."""
    patches: list[PStr] = []
    yield from _pods_under(file, root, owner, patches)
    for patch in patches:
        for document in _consumer_embedded(file, patch) if typed else file.embedded(patch):
            yield from _pods_under(file, document, f"podSpecPatch of {owner}", [])


def _pods_under(file: SourceFile, root: Any, owner: str, patches: list[PStr]) -> Iterator[Container]:
    for node in file.mappings(root, prune=tuple(_CONTAINER_GROUPS)):
        yield from _pod(file, node, owner)
        annotations = _annotations(node)
        if annotations is not None:
            yield annotations
        patch = node.get("podSpecPatch")
        if isinstance(patch, PStr):
            patches.append(patch)


def _members(node: PMap) -> Iterator[tuple[str, PMap]]:
    for key, what in _CONTAINER_GROUPS.items():
        value = node.get(key)
        items = value if isinstance(value, PSeq) else [value]
        for item in items:
            if isinstance(item, PMap) and (key not in ("script", "container") or "image" in item or "name" in item):
                yield what, item


def _pod(file: SourceFile, spec: PMap, owner: str) -> Iterator[Container]:
    members = list(_members(spec))
    is_pod = bool(members) or any(isinstance(spec.get(key), PSeq) for key in _CONTAINER_GROUPS)
    runtime = _get(spec, "runtimeClassName")
    runtime_class = Setting("runtime", runtime, _pos(spec, "runtimeClassName")) if isinstance(runtime, str) else None
    images = []
    for what, item in members:
        images.append(str(item.get("image") or ""))
        yield from _container(file, item, what, owner, runtime_class)
    admits = owner.split("/")[0] == "PodSecurityPolicy"
    label = owner if admits else f"pod of {owner}"
    pod = Container(label=label, pos=spec.pos, image=" ".join(images), command=owner, admits=admits)
    for key, setting in _POD_HOST.items():
        if _get(spec, key) is True:
            pod.settings.append(Setting(setting, "host", _pos(spec, key)))
    if admits:
        for key, name in (("privileged", "privileged"), ("allowPrivilegeEscalation", "allow-privilege-escalation")):
            if _get(spec, key) is True:
                pod.settings.append(Setting(name, "true", _pos(spec, key)))
    if admits:
        _policy_capabilities(pod, spec)
        _policy_host_paths(pod, spec)
    if is_pod:
        security_context(pod, first_map(_get(spec, "securityContext")))
    volumes = _get(spec, "volumes")
    if volumes is None:
        volumes = spec.get("volume")  # Terraform's repeated block
    read_only = _read_only_volumes(item for _, item in members)
    for volume in strings(volumes):
        host_path = first_map(_get(volume, "hostPath")) if isinstance(volume, PMap) else None
        if host_path is not None and isinstance(host_path.get("path"), str):
            path, name = host_path["path"], str(volume.get("name") or "")
            pod.mounts.append(Mount(path, name, pos_of(path, host_path.pos), "hostPath", read_only=name in read_only))
    if is_pod or pod.settings or pod.mounts:
        yield pod


def _read_only_volumes(members: Iterator[PMap]) -> set[str]:
    """The names of the volumes that every container mounting them mounts ``readOnly: true``
    (each ``volumeMounts`` entry; a volume no container mounts is not among them)."""
    flags: dict[str, bool] = {}
    for member in members:
        mounts = _get(member, "volumeMounts")
        for entry in mounts if isinstance(mounts, PSeq) else ():
            name = entry.get("name") if isinstance(entry, PMap) else None
            if isinstance(name, str):
                flags[name] = flags.get(name, True) and _get(entry, "readOnly") is True
    return {name for name, read_only in flags.items() if read_only}


#: A PodSecurityPolicy's capability lists: the ones a pod may add, and the ones added to every pod.
_POLICY_CAPABILITIES = (("allowedCapabilities", "cap-add"), ("defaultAddCapabilities", "cap-default"))


def _policy_capabilities(policy: Container, spec: PMap) -> None:
    """A PodSecurityPolicy's ``allowedCapabilities`` (``*``: any) and
    ``defaultAddCapabilities`` into ``policy``'s settings."""
    for key, name in _POLICY_CAPABILITIES:
        listed = _get(spec, key)
        if not isinstance(listed, PSeq):
            continue
        for index, cap in enumerate(listed):
            if isinstance(cap, str):
                policy.settings.append(Setting(name, str(cap), listed.pos_of(index)))


def _policy_host_paths(policy: Container, spec: PMap) -> None:
    """The host paths a PodSecurityPolicy lets pods mount, as ``admitted`` mounts: each
    ``allowedHostPaths`` prefix, or the host's root when the policy allows ``hostPath`` volumes
    (or ``'*'``) and lists no prefix (an empty list admits any path, as no list does)."""
    volumes = _get(spec, "volumes")
    if not isinstance(volumes, PSeq):
        return
    index = next((i for i, v in enumerate(volumes) if v in ("*", "hostPath")), None)
    if index is None:
        return
    where = volumes.pos_of(index)
    prefixes = _get(spec, "allowedHostPaths")
    listed = [p for p in prefixes if isinstance(p, PMap)] if isinstance(prefixes, PSeq) else []
    for entry in listed:
        prefix = entry.get("pathPrefix")
        if isinstance(prefix, str):
            policy.mounts.append(
                Mount(prefix, "", pos_of(prefix, entry.pos), "admitted", read_only=entry.get("readOnly") is True)
            )
    if not listed:
        policy.mounts.append(Mount("/", "", where, "admitted"))


def _container(
    file: SourceFile, item: PMap, what: str, owner: str, runtime_class: Setting | None = None
) -> Iterator[Container]:
    """A container of a pod spec (``runtime_class``: the pod's ``runtimeClassName``, which runs
    all of its containers), and the containers its scripts start with ``docker run``."""
    arguments = strings(item.get("command")) + strings(item.get("args"))
    box = Container(
        label=f'{what} "{item.get("name") or "?"}" of {owner}',
        pos=item.pos,
        image=str(item.get("image") or ""),
        command=" ".join(str(c) for c in arguments),
    )
    if runtime_class is not None:
        box.settings.append(runtime_class)
    security_context(box, first_map(_get(item, "securityContext")))
    box.env.extend(env_items(item.get("env"), item.pos))
    yield box
    # containers the step starts itself: `docker run` in a script or a `sh -c` argument
    for text in [*(item.get(key) for key in _SHELL_TEXT), *arguments]:
        if isinstance(text, PStr) and any(runtime in text for runtime in RUNTIMES):
            yield from from_commands(file.commands_in(text))


def security_context(box: Container, context: PMap | None) -> None:
    """Read a (pod or container) securityContext into ``box``'s settings."""
    if context is None:
        return
    for key, setting in (("privileged", "privileged"), ("allowPrivilegeEscalation", "allow-privilege-escalation")):
        if _get(context, key) is True:
            box.settings.append(Setting(setting, "true", _pos(context, key)))
    capabilities = first_map(_get(context, "capabilities"))
    added = capabilities.get("add") if capabilities is not None else None
    if isinstance(added, PSeq):
        for index, cap in enumerate(added):
            box.settings.append(Setting("cap-add", str(cap), added.pos_of(index)))
    proc_mount = _get(context, "procMount")
    if isinstance(proc_mount, str):
        box.settings.append(Setting("proc-mount", proc_mount, _pos(context, "procMount")))
    selinux = first_map(_get(context, "seLinuxOptions"))
    if selinux is not None and isinstance(selinux.get("type"), str):
        box.settings.append(Setting("selinux-type", selinux["type"], selinux.pos_of("type")))
    for key, setting in (("seccompProfile", "seccomp"), ("appArmorProfile", "apparmor")):
        profile = first_map(_get(context, key))
        if profile is not None and isinstance(profile.get("type"), str):
            box.settings.append(Setting(setting, profile["type"], profile.pos_of("type")))


def _annotations(node: PMap) -> Container | None:
    """Legacy AppArmor/seccomp annotations on an object's metadata."""
    annotations = node.get("annotations")
    if not isinstance(annotations, PMap):
        return None
    box = Container(label="annotations", pos=node.pos)
    for key, value in annotations.items():
        key_text = str(key)
        if "apparmor.security.beta.kubernetes.io" in key_text:
            box.settings.append(Setting("apparmor", str(value), annotations.pos_of(key)))
        elif "seccomp.security.alpha.kubernetes.io" in key_text:
            box.settings.append(Setting("seccomp", str(value), annotations.pos_of(key)))
    return box if box.settings else None


# ----- kustomize ------------------------------------------------------------------------------
_PATCH_LISTS = ("patches", "patchesStrategicMerge", "patchesJson6902", "patchesJSON6902")


def kustomization_containers(file: SourceFile) -> Iterator[Container]:
    """Containers that a kustomization's inline patches add or change.

    ``patches`` and ``patchesJson6902`` entries with a ``patch:`` string, and inline strings of
    ``patchesStrategicMerge``; a patch is JSON 6902 when it is a list of operations, a strategic
    merge patch otherwise. Patches in files are read as files of their own.
    """
    for document in file.documents:
        if not isinstance(document, PMap):
            continue
        for key in _PATCH_LISTS:
            for entry in strings(document.get(key)):
                text = entry.get("patch") if isinstance(entry, PMap) else entry
                if not isinstance(text, PStr) or "\n" not in text.strip():
                    continue  # a file name, read on its own
                target = entry.get("target") if isinstance(entry, PMap) else None
                yield from _patch(file, _consumer_embedded(file, text), _target(target))


def _target(target: Any) -> str:
    if not isinstance(target, PMap):
        return "patch"
    kind, name = target.get("kind"), target.get("name")
    return f"patch of {kind or 'object'}" + (f"/{name}" if name else "")


def _patch(file: SourceFile, documents: list[Any], owner: str) -> Iterator[Container]:
    for document in documents:
        if isinstance(document, PSeq):
            yield from pod_specs(file, operations_tree(document), owner, typed=True)
        elif isinstance(document, PMap):
            yield from pod_specs(file, document, f"patch of {owner_of(document)}", typed=True)


def json_patch_containers(file: SourceFile) -> Iterator[Container]:
    """A JSON 6902 patch file (YAML or JSON): the containers its operations add or change."""
    for document in consumer_documents(file):
        if isinstance(document, PSeq):
            yield from pod_specs(file, operations_tree(document), "JSON patch", typed=True)


def operations_tree(operations: PSeq) -> PMap:
    """The object JSON 6902 ``add`` and ``replace`` operations write, as a tree.

    ``{op: add, path: /spec/template/spec/volumes/-, value: V}`` becomes
    ``{spec: {template: {spec: {volumes: [V]}}}}``: each operation its own branch, every
    synthetic node at the operation's value, so the pod-spec reader finds what was added where
    the patch wrote it. Numbers and ``-`` in a path are list positions.
    """
    root = PMap(operations.pos)
    branches = PSeq(operations.pos)
    root["operations"] = branches
    for op in operations:
        if not isinstance(op, PMap) or op.get("op") not in ("add", "replace") or "value" not in op:
            continue
        path = op.get("path")
        if not isinstance(path, str) or not path.startswith("/"):
            continue
        at = op.pos_of("value")
        value: Any = op["value"]
        for segment in reversed(path[1:].split("/")):
            if segment == "-" or segment.isdigit():
                items = PSeq(at)
                items.append(value)
                items.item_pos.append(at)
                value = items
            else:
                key = segment.replace("~1", "/").replace("~0", "~")
                mapping = PMap(at)
                mapping[key] = value
                mapping.key_pos[key] = at
                mapping.value_pos[key] = at
                value = mapping
        branches.append(value)
        branches.item_pos.append(at)
    return root
