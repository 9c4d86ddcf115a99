"""The shape of the console's code, as a newcomer meets it: no function graded D or worse by radon's
cyclomatic complexity (more than 20 paths: more than one idea, split where a concept ends), and no circle of
imports between its modules (each part can be read from the modules it builds on)."""

from __future__ import annotations

from pathlib import Path

import grimp
from radon.complexity import cc_rank, cc_visit

SRC = Path(__file__).resolve().parent.parent / "src" / "stablepay_console"


def test_no_function_is_graded_d_or_worse() -> None:
    graded = []
    for path in sorted(SRC.rglob("*.py")):
        for block in cc_visit(path.read_text(encoding="utf-8")):
            if cc_rank(block.complexity) >= "D":
                graded.append(f"{path.relative_to(SRC)}:{block.lineno} {block.name} {cc_rank(block.complexity)} "
                              f"({block.complexity})")
    assert len(list(SRC.rglob("*.py"))) > 100, "the console's sources were not found"
    assert graded == []


def test_no_module_imports_itself_round_a_circle() -> None:
    """Every import counts: one inside a function, and one made only for type checking (a reader still has to
    read the other module to follow this one)."""
    graph = grimp.build_graph("stablepay_console", exclude_type_checking_imports=False)
    imports = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    circles = []
    for module in sorted(imports):
        for imported in sorted(imports[module]):
            if imported != module and graph.chain_exists(importer=imported, imported=module):
                chain = graph.find_shortest_chain(importer=imported, imported=module)
                circles.append(" -> ".join((module, *(chain or ()))))
    assert len(imports) > 100
    assert circles == [], "\n".join(circles[:10])


MODULE_LINES = 400
"""A module holds one idea: past this many lines, look for where a concept ends and split there."""


def test_no_module_is_longer_than_the_house_allows() -> None:
    long = [f"{path.relative_to(SRC)} ({count} lines)" for path in sorted(SRC.rglob("*.py"))
            if (count := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES]
    assert long == [], f"split where a concept ends: {long}"
