"""How often a value climbs back up the layers on its way from an entry point to the kernels.

    python tools/climbs.py [ROOT]          # ROOT: a checkout (default: this one)

The walk follows one parameter of an entry function through the static call graph (Python's ``ast``): a call
whose arguments mention the parameter, or a name assigned from it, is followed into the callee, with the callee's
parameters that receive it (a method called on the value gets its ``self``). Calls are resolved through the
module's imports (``from m import f``, ``import m as x``; ``Class.method``); a method called on the value is resolved
when one class of the package alone defines that name. The walk lists the functions it enters in call order (each
function expanded once). A **climb** is a step of that list from a module of one layer to a module of a higher layer
(the layers of ``pyproject.toml``'s import contract; modules outside the layers are skipped): the value went down
to a lower layer and comes back up before it goes on, e.g. ``parsing -> model -> parsing -> model`` climbs twice.
Prints, per entry, the climbs, the modules visited, and each climbing step.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

PACKAGE = "ir_pref_measures"
ENTRIES = {  # name -> (function, the parameter followed)
    "eval": ("ir_pref_measures.commands.eval.run", "args"),
    "Experiment": ("ir_pref_measures.experiment.front.Experiment", "runs"),
}


@dataclass
class Function:
    module: str
    name: str  # qualified within the module: f, or Class.method
    node: ast.FunctionDef | ast.AsyncFunctionDef
    params: list[str] = field(default_factory=list)


def modules(root: Path) -> dict[str, ast.Module]:
    """Module name -> its tree, for the package and ``adapters/`` (installed as ``ir_pref_measures.adapters``)."""
    found = {}
    for folder, prefix in ((root / PACKAGE, PACKAGE), (root / "adapters", f"{PACKAGE}.adapters")):
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([prefix, *parts])] = ast.parse(path.read_text(), str(path))
    return found


def imports(module: str, tree: ast.Module, known: set[str]) -> dict[str, str]:
    """Local name -> the dotted name it stands for, from every import of the module (function-level ones too)."""
    names = {}
    package = module if module in known and _is_package(module, known) else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.partition(".")[0]] = alias.name if alias.asname else alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            for alias in node.names:
                names[alias.asname or alias.name] = f"{base}.{alias.name}"
    return names


def _is_package(module: str, known: set[str]) -> bool:
    return any(other.startswith(module + ".") for other in known)


def functions(trees: dict[str, ast.Module]) -> dict[str, Function]:
    """``module.f`` and ``module.Class.method`` -> the function."""
    found = {}
    for module, tree in trees.items():
        for node in tree.body:
            members = [(node.name, node)] if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else []
            if isinstance(node, ast.ClassDef):
                members = [
                    (f"{node.name}.{item.name}", item)
                    for item in node.body
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                ]
            for name, function in members:
                args = function.args
                params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
                params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
                found[f"{module}.{name}"] = Function(module, name, function, params)
    return found


def layers(root: Path) -> list[list[str]]:
    """The layers of the import contract, top first, each a list of packages or modules."""
    config = tomllib.loads((root / "pyproject.toml").read_text())
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    return [[part.strip() for part in layer.split("|")] for layer in contract["layers"]]


def layer_of(module: str, stack: list[list[str]]) -> int | None:
    """The layer of ``module`` (0: the top), None outside the layers."""
    for rank, layer in enumerate(stack):
        if any(module == name or module.startswith(name + ".") for name in layer):
            return rank
    return None


def _mentions(node: ast.AST, tainted: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in tainted for n in ast.walk(node))


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


class Walk:
    """The walk from one entry: the functions entered in call order."""

    def __init__(self, root: Path):
        self.trees = modules(root)
        known = set(self.trees)
        self.imports = {module: imports(module, tree, known) for module, tree in self.trees.items()}
        self.functions = functions(self.trees)
        methods: dict[str, list[str]] = {}
        for key, function in self.functions.items():
            if "." in function.name:
                methods.setdefault(function.name.rpartition(".")[2], []).append(key)
        self.unique_methods = {name: keys[0] for name, keys in methods.items() if len(keys) == 1}
        self.trace: list[str] = []
        self.expanded: set[str] = set()

    def resolve(self, function: Function, call: ast.Call, tainted: set[str]) -> tuple[str | None, bool]:
        """The callee's key, and whether the call is a method call on the followed value. A call of a local name
        bound to a function (``compute = f if x else g``, a parameter defaulting to ``f``) is a call of the first
        function it is bound to."""
        dotted = _dotted(call.func)
        if dotted is None:
            return None, False
        if dotted in (bound := self.bound(function)):
            return bound[dotted], False
        head, _, rest = dotted.partition(".")
        if head == "self" and "." in function.name and rest and "." not in rest:
            key = f"{function.module}.{function.name.partition('.')[0]}.{rest}"
            return (key if key in self.functions else None), False
        if head in tainted and rest and "." not in rest:
            return self.unique_methods.get(rest), True
        target = self.imports[function.module].get(head)
        candidates = [f"{target}.{rest}" if rest else target] if target else []
        candidates.append(f"{function.module}.{dotted}")
        for candidate in candidates:
            if candidate in self.functions:
                return candidate, False
            if candidate and f"{candidate}.__init__" in self.functions:
                return f"{candidate}.__init__", False
        return None, False

    def named(self, function: Function, node: ast.AST) -> str | None:
        """The first function of the package that ``node`` names (through the module's imports), if any."""
        for name in (n for n in ast.walk(node) if isinstance(n, ast.Name)):
            target = self.imports[function.module].get(name.id, f"{function.module}.{name.id}")
            if target in self.functions:
                return target
        return None

    def bound(self, function: Function) -> dict[str, str]:
        """Local names bound to a function of the package: by assignment, or as a parameter's default."""
        found = {}
        args = function.node.args
        for arg, default in zip(args.args[len(args.args) - len(args.defaults) :], args.defaults, strict=True):
            if (target := self.named(function, default)) is not None:
                found[arg.arg] = target
        for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            if default is not None and (target := self.named(function, default)) is not None:
                found[arg.arg] = target
        for node in ast.walk(function.node):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                if (target := self.named(function, node.value)) is not None and not isinstance(node.value, ast.Call):
                    found[node.targets[0].id] = target
        return found

    def follow(self, key: str, params: set[str]) -> None:
        """Enter ``key`` with ``params`` holding the value; follow the calls it passes the value to."""
        self.trace.append(key)
        if key in self.expanded:
            return
        self.expanded.add(key)
        function = self.functions[key]
        tainted = set(params)
        for _ in range(2):  # assignments in loops reach earlier lines on the second pass
            for node in ast.walk(function.node):
                if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value:
                    if _mentions(node.value, tainted):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        tainted |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
                elif isinstance(node, ast.For | ast.comprehension) and _mentions(node.iter, tainted):
                    tainted |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
                elif isinstance(node, ast.withitem) and node.optional_vars and _mentions(node.context_expr, tainted):
                    tainted |= {n.id for n in ast.walk(node.optional_vars) if isinstance(n, ast.Name)}
        calls = sorted(
            (n for n in ast.walk(function.node) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset)
        )
        for call in calls:
            arguments = [*call.args, *(k.value for k in call.keywords)]
            on_value = isinstance(call.func, ast.Attribute) and _mentions(call.func.value, tainted)
            if not on_value and not any(_mentions(a, tainted) for a in arguments):
                continue
            callee, method = self.resolve(function, call, tainted)
            if callee is None or callee == key:
                continue
            target = self.functions[callee]
            received = self._received(target, call, tainted, method or on_value)
            if received:
                self.follow(callee, received)

    @staticmethod
    def _received(target: Function, call: ast.Call, tainted: set[str], bound: bool) -> set[str]:
        """The callee's parameters that receive the followed value."""
        params = target.params
        is_method = "." in target.name and params[:1] in (["self"], ["cls"])
        positional = params[1:] if is_method else params
        received = {params[0]} if is_method and bound else set()
        for i, argument in enumerate(call.args):
            if _mentions(argument, tainted):
                received |= {positional[i]} if i < len(positional) else set(params[-1:])
        for keyword in call.keywords:
            if _mentions(keyword.value, tainted):
                received |= {keyword.arg} if keyword.arg in params else set(params[-1:])
        return received


def climbs(root: Path, entry: str, parameter: str) -> tuple[list[tuple[str, str]], set[str]]:
    """The climbing steps (from function, to function) of the walk from ``entry``, and the modules it visits."""
    walk = Walk(root)
    walk.follow(entry, {parameter})
    stack = layers(root)
    placed = [(key, layer_of(walk.functions[key].module, stack)) for key in walk.trace]
    placed = [(key, rank) for key, rank in placed if rank is not None]
    steps = [(a, b) for (a, ra), (b, rb) in zip(placed, placed[1:], strict=False) if rb < ra]
    return steps, {walk.functions[key].module for key in walk.trace}


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else Path(__file__).resolve().parents[1])
    for name, (entry, parameter) in ENTRIES.items():
        steps, visited = climbs(root, entry, parameter)
        print(f"{name} ({entry}, following {parameter!r}): {len(steps)} climbs, {len(visited)} modules")
        for a, b in steps:
            print(f"  {re.sub(f'^{PACKAGE}.', '', a)} -> {re.sub(f'^{PACKAGE}.', '', b)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
