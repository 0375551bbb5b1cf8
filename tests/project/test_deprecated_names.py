"""Renamed public names keep their old name for one release: the old name gives the same object as the new one and
warns (``DeprecationWarning``) once per process, however often it is used. Each case runs in a fresh interpreter
(a process that imported the old name before would not warn again)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# old spelling -> the same object under its new name (expressions after `import ir_pref_measures as ipm`)
CASES = {
    "ipm.judges": ("ipm.judges.align", "ipm.agreement.align"),
    "import ir_pref_measures.judges": (
        "__import__('ir_pref_measures.judges').judges.reliability",
        "ipm.agreement.reliability",
    ),
    "from ir_pref_measures.judges.panel import align": (
        "__import__('ir_pref_measures.judges.panel', fromlist=['align']).align",
        "ipm.agreement.align",
    ),
    "ir_pref_measures.judging.judges.llm.make_judge": (
        "__import__('ir_pref_measures.judging.judges.llm', fromlist=['make_judge']).make_judge",
        "__import__('ir_pref_measures.judging.judges.llm', fromlist=['x']).llm_judge_from_options",
    ),
    "ir_pref_measures.judging.llm (moved to judging.judges.llm)": (
        "__import__('ir_pref_measures.judging.llm', fromlist=['LLMJudge']).LLMJudge",
        "ipm.judging.LLMJudge",
    ),
    "ipm.judging.combine": ("ipm.judging.combine", "ipm.judging.combine_answers"),
    "ir_pref_measures.dropins.pref_eval.relevant_in_file_order (moved to comparison.pairwise)": (
        "__import__('ir_pref_measures.dropins.pref_eval', fromlist=['x']).relevant_in_file_order",
        "__import__('ir_pref_measures.comparison.pairwise', fromlist=['x']).relevant_in_file_order",
    ),
    "ir_pref_measures.judging.selectors.read_grades (moved to loading)": (
        "__import__('ir_pref_measures.judging.selectors', fromlist=['read_grades']).read_grades",
        "ipm.judging.read_grades",
    ),
}

PROGRAM = """
import warnings
warnings.simplefilter("always")
import ir_pref_measures as ipm
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    objects = [{old} for _ in range(3)]
deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
print(len(deprecations))
print(all(o is {new} for o in objects))
print(deprecations[0].message if deprecations else "")
"""


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_old_name_warns_once_and_gives_the_same_object(case):
    old, new = CASES[case]
    code = PROGRAM.format(old=old, new=new)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", check=False)
    assert done.returncode == 0, done.stderr
    count, same, message = done.stdout.splitlines()
    assert (count, same) == ("1", "True")
    assert "deprecated" in message
