r"""General365 prompt templates (paper Appendix B, Examples 10-13, verbatim text) and the judge's grading
template (Example 14).

The paper prints the templates with line breaks flattened and ``$`` escaped as ``\$``; the words are
kept exactly and the line breaks are reconstructed (``### The final answer is:`` must start a line to
be a heading). The public release's ``question`` may already carry the format instruction (the
authors appended it during post-processing); it is then sent unchanged, never doubled.
"""

from __future__ import annotations

from ...core.values import Prompt
from ...scoring import judge
from .data import CHOICE_TYPES, NUMERIC_TYPES

NUMERICAL_TEMPLATE = (
    "{question}\n\n"
    "Output your final answer at the end of your reply using the following format:\n"
    "### The final answer is: $\\boxed{{<your answer>}}$\n"
    "Example:\n"
    "### The final answer is: $\\boxed{{123}}$ or $\\boxed{{(1, 2]}}$\n"
    "The final answer should be given as precisely as possible (using LaTeX symbols such as \\sqrt, \\frac, "
    "\\pi, etc.). If the final answer involves a decimal approximation, it must be accurate to at least "
    "{float_round} decimal places.")
SELECT_TEMPLATE = (
    "{question}\n\n"
    "Output your final answer at the end of your reply using the following format:\n"
    "### The final answer is: $ <your answer> $\n"
    "Select one or more appropriate options as your final answer based on the question above.")
TEXT_TEMPLATE = (
    "{question}\n\n"
    "Output your final answer at the end of your reply using the following format:\n"
    "### The final answer is: $ <your answer> $")
SIMILARITY_TEMPLATE = (
    "### Role: You are a distinguished expert in Cognitive Science and General AI Reasoning Logic. Your "
    "specialty lies in measuring the essential similarity between tasks by deconstructing their "
    "#underlying_logic, #knowledge_systems, and #cognitive_challenge_types, rather than relying on "
    "superficial semantic descriptions.\n"
    "### Objective: Perform a deep deconstruction and comparison of [Task A] and [Task B] (including the "
    "Problem, Chain-of-Thought (CoT) reasoning, and Final Result). Output a similarity score on a scale of "
    "0-5. CRITICAL REQUIREMENT: Focus your analysis on the logic evolution trajectory within the CoT, rather "
    "than the surface-level wording of the problem.\n"
    "### Evaluation Dimensions:\n"
    "# 1. Core_Knowledge_Graph: Overlap in theorems, formulas, or facts.\n"
    "# 2. Reasoning_Paradigm: Chaining, branching, or network logic (Inductive/Deductive, etc.).\n"
    "# 3. Source_of_Challenge: Difficulty sources like hidden conditions, reverse thinking, or logic depth.\n"
    "# 4. Operational_Primitives: Atomic actions like symbolic transformation, case analysis, or recursion.\n"
    "### Scoring Standard (0-5 Scalar):\n"
    "0 - Irrelevant: Zero overlap in logic/knowledge.\n"
    "1 - Weakly Related: Macro-level connection (e.g., both \"math\") but CoT paths are entirely different.\n"
    "2 - Superficially Similar: Same topic but fundamentally different reasoning depths.\n"
    "3 - Logically Overlapping: Significant overlap in reasoning logic or operators, though domains differ.\n"
    "4 - Highly Structurally Similar: Identical \"reasoning skeleton\" and challenge sources.\n"
    "5 - Essentially Identical: Variants of each other; logic paths and operators are seamlessly "
    "transferable.\n"
    "### Output Format (Strict Adherence Required):\n"
    "Final Similarity Score: [A scalar number between 0 and 5]\n"
    "### Task Inputs:\n"
    "[Task A]: {task1}\n"
    "[Task B]: {task2}")
DEFAULT_FLOAT_ROUND = 4  # shown when a problem has no precision annotation (the judge prompt's "four")
PROMPT_VERSION = "general365-prompt-v1"
_MARKERS = ("Output your final answer at the end of your reply", "### The final answer is")


def has_instruction(question: str) -> bool:
    return any(m in question for m in _MARKERS)


def query_text(question: str, answer_type: str, float_round: int | None) -> str:
    if has_instruction(question):
        return question
    if answer_type in NUMERIC_TYPES:
        k = float_round if float_round and float_round > 0 else DEFAULT_FLOAT_ROUND
        return NUMERICAL_TEMPLATE.format(question=question.rstrip(), float_round=k)
    template = SELECT_TEMPLATE if answer_type in CHOICE_TYPES else TEXT_TEMPLATE
    return template.format(question=question.rstrip())


def query_prompt(question: str, answer_type: str, float_round: int | None) -> Prompt:
    return Prompt.chat(query_text(question, answer_type, float_round))


def similarity_prompt(task1: str, task2: str) -> Prompt:
    return Prompt.chat(SIMILARITY_TEMPLATE.format(task1=task1.strip(), task2=task2.strip()))


EQUIVALENCE_TEMPLATE = (  # Appendix B, Example 14: the grading prompt of the LLM judge
    "For the following problem, we have the reference answer and the student’s answer. Determine whether "
    "the student’s answer is equivalent to the reference answer. If equivalent, output \"Correct\". If not "
    "equivalent, output \"Incorrect\".\n\n"
    "### Problem\n{problem}\n\n"
    "### Reference Answer\n{reference}\n\n"
    "### Student Answer\n{student}\n\n"
    "Now, please provide your judgment. Please strictly follow the format below to summarize your "
    "conclusion at the end of your judgment:\n"
    "### Conclusion: Correct/Incorrect\n"
    "If the answer involves a decimal approximation, it must be accurate to at least four decimal places.")


def equivalence_prompt(problem: str, reference: str, student: str) -> Prompt:
    """The paper's judge prompt for one answer (an over-long student answer keeps its tail)."""
    return judge.equivalence_prompt(EQUIVALENCE_TEMPLATE, problem, reference, student)
