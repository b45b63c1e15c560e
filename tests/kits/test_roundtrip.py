"""Property: a kit dumped from the model loads back equal, whatever its free text holds."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandkit.credentials import credential_kind
from sandkit.kits.dump import dump_kit
from sandkit.kits.loader import load_kit
from sandkit.kits.model import Kit

# Any Unicode but lone surrogates (not UTF-8) and NUL (refused by the loader: no program can receive it).
TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=40).filter(
    lambda t: credential_kind(t) is None
)
LABEL = st.from_regex(r"[a-z][a-z0-9]{0,10}", fullmatch=True)
HOST = st.builds(lambda a, b: f"{a}.{b}.test", LABEL, LABEL)
ENV_NAME = st.from_regex(r"[A-Z][A-Z0-9]{0,8}", fullmatch=True).filter(
    lambda n: not n.endswith(("KEY", "TOKEN", "PWD"))
)

KITS = st.builds(
    lambda name, env, install, command, instructions, allow, egress, timeout: Kit.model_validate(
        {
            "apiVersion": "sandkit/v1",
            "name": name,
            "description": instructions[:10],
            "env": env,
            "install": install,
            "startup": install[::-1],
            "network": {"egress": egress, "allow": allow},
            "agent": {"command": command, "instructions": instructions, "instructions_file": "AGENTS.md"},
            "resources": {"timeout": timeout},
        }
    ),
    name=LABEL,
    env=st.dictionaries(ENV_NAME, TEXT, max_size=4),
    install=st.lists(TEXT, max_size=3),
    command=st.lists(TEXT, min_size=1, max_size=4),
    instructions=TEXT,
    allow=st.lists(HOST, max_size=3, unique=True),
    egress=st.sampled_from(["allowlist", "none", "open"]),
    timeout=st.sampled_from(["90s", "15m", "2h", "1h30m"]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(KITS)
def test_dumped_kit_loads_back_equal(kit: Kit) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kit.yaml"
        path.write_text(dump_kit(kit), encoding="utf-8")
        assert load_kit(path).kit == kit
