"""Write (or, with ``--check``, compare) the module table of ``docs/architecture.md``: every module of the package, in
the order of the layers of ``pyproject.toml``'s import contract (top to bottom; the modules of no layer last), each
with the first sentence of its docstring.

    python tools/module_table.py           # rewrite the table between <!-- modules --> and <!-- /modules -->
    python tools/module_table.py --check   # exit 1 if it is out of date

Reads the source tree only (``ast`` and the text of ``pyproject.toml``): nothing of the package is imported. A module
without a docstring is an error, so that every row says what its module holds.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "ir_pref_measures"
PAGE = ROOT / "docs" / "architecture.md"
BLOCK = re.compile(r"(<!-- modules -->\n)(.*?)(<!-- /modules -->)", re.S)
LAYERS = re.compile(r'^type = "layers"\nlayers = \[\n(.*?)^\]', re.S | re.M)
SENTENCE_END = re.compile(r"(?<=[^.]\.)\s+(?=[A-Z])")
ROLES = re.compile(r":(?:func|mod|class|meth|data|attr|exc):`~?([\w.]+)`")


def layers(pyproject: str) -> list[list[str]]:
    """The layers of the import contract, top to bottom, each the packages (or modules) it joins with ``|``,
    relative to the package: ``[["commands"], ["adapters"], ..., ["measures", "parsing"], ["model"]]``."""
    found = LAYERS.search(pyproject)
    if found is None:
        raise SystemExit("pyproject.toml: no layers contract")
    names = re.findall(r'"([^"]+)"', found.group(1))
    return [[part.strip().removeprefix(f"{PACKAGE}.") for part in name.split("|")] for name in names]


def source_folder(name: str, root: Path) -> Path:
    """Where the modules of ``name`` (a package or module under the package) are: ``adapters`` is built from the
    checkout's ``adapters/``."""
    return root / "adapters" if name == "adapters" else root / PACKAGE / name


def modules(name: str, root: Path) -> list[Path]:
    """The module files of a layer's package (every ``.py`` file under it but an empty ``__init__.py``, which only
    marks a folder as a package) or module."""
    folder = source_folder(name, root)
    if not folder.is_dir():
        return [folder.with_suffix(".py")]
    return sorted(path for path in folder.rglob("*.py") if path.name != "__init__.py" or path.read_text().strip())


def shown(path: Path, root: Path) -> str:
    """A module's name in the table: relative to the package (``judging/store.py``), or ``adapters/...``."""
    relative = path.relative_to(root)
    return str(relative if relative.parts[0] == "adapters" else relative.relative_to(PACKAGE))


def first_sentence(path: Path) -> str:
    """The first sentence of the module's docstring, in Markdown (``x`` and :role:`~a.b` as code; ``|`` escaped)."""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    if not docstring:
        raise SystemExit(f"{path}: no docstring: say in its first sentence what the module holds")
    paragraph = " ".join(docstring.split("\n\n")[0].split())
    sentence = SENTENCE_END.split(paragraph)[0].removesuffix(":")
    sentence = ROLES.sub(lambda m: f"`{m.group(1)}`", sentence).replace("``", "`")
    return sentence.replace("|", "\\|")


def table(root: Path = ROOT) -> str:
    """The Markdown table: one row per module, the layers top to bottom, then the modules of no layer."""
    rows = ["| layer | module | holds |", "|---|---|---|"]
    listed: set[Path] = set()
    groups = [
        (" \\| ".join(f"`{name}`" for name in layer), layer)
        for layer in layers((root / "pyproject.toml").read_text(encoding="utf-8"))
    ]
    for label, names in groups:
        for name in names:
            for path in modules(name, root):
                rows.append(f"| {label} | `{shown(path, root)}` | {first_sentence(path)} |")
                label = ""
                listed.add(path)
    label = "no layer"
    for path in sorted((root / PACKAGE).glob("*.py")):
        if path not in listed:
            rows.append(f"| {label} | `{shown(path, root)}` | {first_sentence(path)} |")
            label = ""
    return "\n".join(rows) + "\n"


def generated(text: str, root: Path = ROOT) -> str:
    """``text`` (the page) with its module table regenerated."""
    if not BLOCK.search(text):
        raise SystemExit(f"{PAGE}: no '<!-- modules -->' ... '<!-- /modules -->' block")
    body = table(root)
    return BLOCK.sub(lambda m: m.group(1) + body + m.group(3), text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the table is out of date")
    args = parser.parse_args(argv)
    text = PAGE.read_text(encoding="utf-8")
    new = generated(text)
    if args.check:
        if new != text:
            print(f"{PAGE} is out of date with the modules: run python tools/module_table.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
