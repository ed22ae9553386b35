"""The import graph of memlens, drawn from the source: module to module, and package to
package as a Mermaid flowchart for docs/architecture.md.

    python scripts/import_graph.py [--root <a checkout>] [--engine-parts]

Every import counts, a function's lazy one and a ``__main__`` block's too: a circle that only
closes at run time still ties the packages together. tests/test_boundaries.py checks the same
graph for circles.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

PACKAGES = ("engine", "cli", "tui", "mcp_server")


def module_graph(*packages: Path) -> dict[str, set[str]]:
    """module -> the modules of ``packages`` it imports (``packages`` share one parent)."""
    root = packages[0].parent

    def name(p: Path) -> str:
        parts = list(p.relative_to(root).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    modules = {name(p): p for package in packages for p in package.rglob("*.py")}
    graph = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
                deps.update(subs or [base])
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        graph[module] = {d for d in deps if d in modules and d != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one node."""
    reach = {m: set() for m in graph}
    for start in graph:
        todo = list(graph[start])
        while todo:
            m = todo.pop()
            if m not in reach[start]:
                reach[start].add(m)
                todo.extend(graph[m])
    return {frozenset({m} | {o for o in reach[m] if m in reach[o]})
            for m in graph if m in reach[m]}


def group(module: str, engine_parts: bool) -> str:
    """The box a module is drawn in: its top package, or with ``engine_parts`` each engine
    subpackage apart (``engine`` then holds the modules directly under engine/)."""
    parts = module.split(".")
    if parts[0] != "engine" or not engine_parts:
        return parts[0]
    return "engine." + parts[1] if len(parts) > 2 else "engine"


def mermaid(graph: dict[str, set[str]], engine_parts: bool = False) -> str:
    """The graph by box as a Mermaid flowchart, each arrow labelled with the imports it
    stands for; the boxes and arrows an import circle of modules runs through drawn red."""
    def box(m: str) -> str:
        return group(m, engine_parts)

    arrows: dict[tuple[str, str], int] = {}
    for module, deps in graph.items():
        for dep in deps:
            if box(module) != box(dep):
                arrows[(box(module), box(dep))] = arrows.get((box(module), box(dep)), 0) + 1
    circled = [c for c in cycles(graph)]
    red_boxes = {box(m) for c in circled for m in c}
    red_arrows = {(box(m), box(d)) for c in circled for m in c for d in graph[m] if d in c}
    ident = {b: b.replace(".", "_") for b in {box(m) for m in graph}}
    lines = ["flowchart TD"]
    for b in sorted(ident, key=lambda b: (b.startswith("engine"), b)):
        label = "engine (top modules)" if engine_parts and b == "engine" else b
        lines.append(f'    {ident[b]}["{label}"]')
    red = []
    for n, ((a, b), count) in enumerate(sorted(arrows.items())):
        lines.append(f"    {ident[a]} -->|{count}| {ident[b]}")
        if (a, b) in red_arrows:
            red.append(str(n))
    if red_boxes:
        lines.append("    classDef circle stroke:#d33,stroke-width:3px")
        lines.append(f"    class {','.join(sorted(ident[b] for b in red_boxes))} circle")
    if red:
        lines.append(f"    linkStyle {','.join(red)} stroke:#d33,stroke-width:2px")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                    help="a checkout of memlens (default: this one)")
    ap.add_argument("--engine-parts", action="store_true",
                    help="draw each engine subpackage as its own box")
    args = ap.parse_args()
    found = [args.root / p for p in PACKAGES if (args.root / p).is_dir()]
    if not found:
        ap.error(f"{args.root} holds none of {', '.join(PACKAGES)}: not a memlens checkout")
    graph = module_graph(*found)
    print(mermaid(graph, args.engine_parts))
    found = sorted(cycles(graph), key=len, reverse=True)
    edges = sum(len(d) for d in graph.values())
    print(f"\n{len(graph)} modules, {edges} imports; "
          + (f"{len(found)} import circle(s):" if found else "no import circle"))
    for circle in found:
        print(f"  {len(circle)} modules: {', '.join(sorted(circle))}")


if __name__ == "__main__":
    main()
