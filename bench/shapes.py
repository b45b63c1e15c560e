"""Repository shapes for ``lint_bench.py``: what real trees hold besides small config files.

Every shape is the usual mix of small Compose, Kubernetes, workflow, Dockerfile, shell, kit,
Python, Markdown and JSON files (with planted findings, see ``lint_bench.KINDS``) plus the
large files that dominate real repositories:

- ``small``: the usual files only (``--sizes`` files).
- ``lockfiles``: a JavaScript monorepo: npm, yarn and pnpm lockfiles of 1 to 5 MB in package
  folders, one npm lockfile with a registry URL that carries a token (planted PS001).
- ``assets``: a web application: minified bundles, source maps, JSON fixtures, access logs,
  a vendored dependency folder, binary images and fonts, and a few deeply nested files.

Content is generated from a fixed seed, so a shape is the same tree on every run. Registry
URLs use an example host.
"""

from __future__ import annotations

import base64
import json
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path

SHAPES = ("small", "lockfiles", "assets")
REGISTRY = "https://registry.example.com"
_WORD_TEXT = """
core util parse react dom router state store query cache http client server stream buffer event
emitter path glob minimatch semver chalk debug ms yargs commander lodash async color string array
object merge deep clone fast json schema ajv babel loader plugin preset env runtime types node
polyfill regenerator webpack rollup vite esbuild postcss
"""
_WORDS = tuple(_WORD_TEXT.split())


def usual_count(shape: str, size: int) -> int:
    """How many of the usual small files a shape holds (``size`` is --sizes' number)."""
    return size if shape == "small" else 500


def generate_extras(root: Path, shape: str, rng: random.Random) -> Counter[str]:
    """Write the shape's large files under ``root``; return what was planted per rule."""
    if shape == "lockfiles":
        return _lockfiles(root, rng)
    if shape == "assets":
        return _assets(root, rng)
    return Counter()


# ----- lockfiles -------------------------------------------------------------------------------
def _lockfiles(root: Path, rng: random.Random) -> Counter[str]:
    planted: Counter[str] = Counter()
    writers: list[tuple[str, Callable[[random.Random, int, bool], str]]] = [
        ("package-lock.json", _npm_lock),
        ("yarn.lock", _yarn_lock),
        ("pnpm-lock.yaml", _pnpm_lock),
    ]
    megabytes = (1.0, 1.5, 2.0, 3.0, 5.0, 1.2, 1.8, 2.5, 4.0, 1.1, 1.4, 1.6)
    for index, target in enumerate(megabytes):
        name, writer = writers[index % len(writers)]
        plant = index == 0  # a token in a resolved URL, as npm writes it from an authenticated registry
        folder = root / "packages" / f"app-{index}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(writer(rng, int(target * 1_000_000), plant))
        (folder / "package.json").write_text(_package_json(index))
        planted["PS001"] += plant
    return planted


def _package_json(index: int) -> str:
    return json.dumps(
        {
            "name": f"app-{index}",
            "version": "1.0.0",
            "private": True,
            "scripts": {"build": "vite build", "test": "vitest run"},
            "dependencies": {"react": "^18.3.1", "react-dom": "^18.3.1"},
        },
        indent=2,
    )


def _package(rng: random.Random, n: int) -> tuple[str, str]:
    name = "-".join(rng.sample(_WORDS, 2)) + f"-{n}"
    if rng.random() < 0.2:
        name = f"@{rng.choice(_WORDS)}/{name}"
    return name, f"{rng.randint(0, 20)}.{rng.randint(0, 30)}.{rng.randint(0, 50)}"


def _integrity(rng: random.Random) -> str:
    return "sha512-" + base64.b64encode(rng.randbytes(64)).decode()


def _npm_lock(rng: random.Random, target: int, plant: bool) -> str:
    packages: dict[str, object] = {"": {"name": "app", "version": "1.0.0", "dependencies": {"react": "^18.3.1"}}}
    size, n = 200, 0
    while size < target:
        name, version = _package(rng, n)
        resolved = f"{REGISTRY}/{name}/-/{name.rsplit('/', 1)[-1]}-{version}.tgz"
        if plant and n == 1000:
            secret = "".join(rng.choice("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(24))
            resolved = resolved.replace("https://", f"https://ci-bot:{secret}@")
        entry: dict[str, object] = {"version": version, "resolved": resolved, "integrity": _integrity(rng)}
        if rng.random() < 0.5:
            entry["dependencies"] = {
                _package(rng, n + k)[0]: "^" + _package(rng, k)[1] for k in range(rng.randint(1, 4))
            }
        if rng.random() < 0.3:
            entry["engines"] = {"node": ">=" + str(rng.randint(10, 20))}
        if rng.random() < 0.2:
            entry["dev"] = True
        entry["license"] = rng.choice(["MIT", "ISC", "Apache-2.0", "BSD-3-Clause"])
        packages[f"node_modules/{name}"] = entry
        size += len(json.dumps(entry, indent=2)) + len(name) + 30
        n += 1
    return (
        json.dumps(
            {"name": "app", "version": "1.0.0", "lockfileVersion": 3, "requires": True, "packages": packages}, indent=2
        )
        + "\n"
    )


def _yarn_lock(rng: random.Random, target: int, plant: bool) -> str:
    parts = ["# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n# yarn lockfile v1\n\n"]
    size, n = 0, 0
    while size < target:
        name, version = _package(rng, n)
        sha1 = rng.randbytes(20).hex()
        lines = [
            f'"{name}@^{version}":',
            f'  version "{version}"',
            f'  resolved "{REGISTRY}/{name}/-/{name.rsplit("/", 1)[-1]}-{version}.tgz#{sha1}"',
            f"  integrity {_integrity(rng)}",
        ]
        if rng.random() < 0.5:
            lines.append("  dependencies:")
            lines += [f'    {_package(rng, n + k)[0]} "^1.{k}.0"' for k in range(rng.randint(1, 4))]
        block = "\n".join(lines) + "\n\n"
        parts.append(block)
        size += len(block)
        n += 1
    return "".join(parts)


def _pnpm_lock(rng: random.Random, target: int, plant: bool) -> str:
    head = "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n\nimporters:\n\n  .:\n    dependencies:\n"
    packages, snapshots = ["\npackages:\n"], ["\nsnapshots:\n"]
    importers = []
    size, n = len(head), 0
    while size < target:
        name, version = _package(rng, n)
        key = _yaml_key(f"{name}@{version}")
        package = f"\n  {key}:\n    resolution: {{integrity: {_integrity(rng)}}}\n"
        if rng.random() < 0.3:
            package += f"    engines: {{node: '>={rng.randint(10, 20)}'}}\n"
        if rng.random() < 0.5:
            dependencies = "".join(
                f"      {_yaml_key(_package(rng, n + k)[0])}: 1.{k}.0\n" for k in range(rng.randint(1, 4))
            )
            snapshot = f"\n  {key}:\n    dependencies:\n{dependencies}"
        else:
            snapshot = f"\n  {key}: {{}}\n"
        if n < 40:
            importers.append(f"      {_yaml_key(name)}:\n        specifier: ^{version}\n        version: {version}\n")
        packages.append(package)
        snapshots.append(snapshot)
        size += len(package) + len(snapshots[-1])
        n += 1
    return head + "".join(importers) + "".join(packages) + "".join(snapshots)


def _yaml_key(name: str) -> str:
    return f"'{name}'" if name.startswith("@") else name


# ----- assets ----------------------------------------------------------------------------------
def _assets(root: Path, rng: random.Random) -> Counter[str]:
    web = root / "web"
    for index, kb in enumerate((300, 500, 800, 1000, 400)):
        bundle = _minified(rng, kb * 1000)
        (web / "dist" / "assets").mkdir(parents=True, exist_ok=True)
        (web / "dist" / "assets" / f"index-{index}.min.js").write_text(bundle)
        (web / "dist" / "assets" / f"index-{index}.min.js.map").write_text(_source_map(rng, bundle, index))
    fixtures = root / "tests" / "fixtures"
    fixtures.mkdir(parents=True, exist_ok=True)
    for index, mb in enumerate((1.0, 2.0, 1.5)):
        (fixtures / f"records-{index}.json").write_text(_json_fixture(rng, int(mb * 1_000_000)))
    logs = root / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    for index in range(2):
        (logs / f"access-{index}.log").write_text(_access_log(rng, 1_900_000))
    _vendored(root / "vendor", rng, 300)
    images = root / "web" / "public" / "images"
    images.mkdir(parents=True, exist_ok=True)
    for index in range(20):
        header = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" if index % 2 == 0 else b"wOF2\x00\x01\x00\x00"
        suffix = "png" if index % 2 == 0 else "woff2"
        (images / f"asset-{index}.{suffix}").write_bytes(header + rng.randbytes(rng.randint(100, 500) * 1000))
    deep = root.joinpath(*[f"d{level}" for level in range(40)])
    deep.mkdir(parents=True, exist_ok=True)
    (deep / "compose.yaml").write_text("services:\n  deep:\n    image: nginx:1.27\n")
    (deep / "nested.json").write_text("[" * 300 + "1" + "]" * 300 + "\n")
    (deep / "nested.yaml").write_text(
        "".join("  " * level + f"k{level}:\n" for level in range(150)) + "  " * 150 + "v\n"
    )
    return Counter()


def _identifier(rng: random.Random) -> str:
    return rng.choice("abcdefghijklmnopqrstuvwxyz_$") + "".join(
        rng.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=rng.randint(0, 2))
    )


def _minified(rng: random.Random, target: int) -> str:
    pieces: list[str] = ['"use strict";']
    size = 0
    while size < target:
        a, b, c = _identifier(rng), _identifier(rng), _identifier(rng)
        piece = rng.choice(
            [
                f"function {a}({b},{c}){{return {b}&&{b}.{c}?{b}[{c}]:void 0}}",
                f"var {a}={b}.map(function({c}){{return {c}*{rng.randint(1, 99)}}});",
                f'const {a}="{rng.choice(_WORDS)}-{rng.randint(0, 9999)}";',
                f"{a}.prototype.{rng.choice(_WORDS)}=function(){{this.{b}=new Map;return this}};",
                f'if({a}==={rng.randint(0, 9)})throw new Error("{rng.choice(_WORDS)} failed");',
                f'{a}.fetch("/api/{rng.choice(_WORDS)}?id="+{b}).then(function({c}){{return {c}.json()}});',
            ]
        )
        pieces.append(piece)
        size += len(piece)
    return "".join(pieces) + "\n"


def _source_map(rng: random.Random, bundle: str, index: int) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    segments = ["".join(rng.choices(alphabet, k=rng.choice((4, 4, 5, 6)))) for _ in range(len(bundle) // 12)]
    mappings = ";".join(",".join(segments[i : i + 40]) for i in range(0, len(segments), 40))
    sources = [f"../../src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}-{n}.ts" for n in range(40)]
    return json.dumps(
        {
            "version": 3,
            "file": f"index-{index}.min.js",
            "sources": sources,
            "sourcesContent": [
                bundle[i : i + len(bundle) // 40].replace(";", ";\n") for i in range(0, len(bundle), len(bundle) // 40)
            ],
            "names": sorted({_identifier(rng) for _ in range(500)}),
            "mappings": mappings,
        }
    )


def _json_fixture(rng: random.Random, target: int) -> str:
    records, size = [], 0
    while size < target:
        record = {
            "id": size,
            "uuid": rng.randbytes(16).hex(),
            "name": " ".join(rng.sample(_WORDS, 3)),
            "email": f"{rng.choice(_WORDS)}.{rng.randint(1, 999)}@example.com",
            "created": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T12:00:00Z",
            "score": round(rng.random() * 100, 3),
            "tags": rng.sample(_WORDS, 3),
            "address": {
                "street": f"{rng.randint(1, 999)} {rng.choice(_WORDS)} street",
                "zip": f"{rng.randint(10000, 99999)}",
            },
            "text": "Ünïcödé " + " ".join(rng.choices(_WORDS, k=12)),
        }
        records.append(record)
        size += 420
    return json.dumps({"records": records}, indent=2, ensure_ascii=False) + "\n"


def _access_log(rng: random.Random, target: int) -> str:
    lines, size = [], 0
    agents = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36", "curl/8.5.0", "Go-http-client/1.1")
    while size < target:
        ip = ".".join(str(rng.randint(1, 254)) for _ in range(4))
        path = f"/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}?page={rng.randint(1, 99)}"
        stamp = f"12/Mar/2025:10:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d} +0000"
        status = rng.choice((200, 200, 304, 404, 500))
        line = (
            f'{ip} - - [{stamp}] "GET {path} HTTP/1.1" {status} {rng.randint(100, 99999)} '
            f'"https://www.example.com/" "{rng.choice(agents)}"\n'
        )
        lines.append(line)
        size += len(line)
    return "".join(lines)


def _vendored(folder: Path, rng: random.Random, files: int) -> None:
    for n in range(files):
        package = folder / f"{rng.choice(_WORDS)}-{n // 10}"
        package.mkdir(parents=True, exist_ok=True)
        if n % 10 == 0:
            (package / "package.json").write_text(_package_json(n))
            (package / "README.md").write_text(f"# {package.name}\n\nInstall with `npm install {package.name}`.\n")
        else:
            (package / f"lib-{n}.js").write_text(_minified(rng, rng.randint(2, 30) * 1000))
