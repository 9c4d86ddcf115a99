"""No function of the console is graded D or worse by radon's cyclomatic complexity (more than 20 paths):
such a function holds more than one idea, and is split where a concept ends."""

from __future__ import annotations

from pathlib import Path

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
