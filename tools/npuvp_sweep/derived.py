"""Derived columns: arithmetic over a row's parameters and statistics (study key `derived`).

    derived:
      resource_units: {expression: "soc.ai_cores + soc.l2.bandwidth / 32e9", unit: "units"}

An expression is evaluated per row with numbers only: + - * / ** and parentheses, numbers,
column names (dotted names as in the table; values with units such as 32GB/s count as
numbers, 3.2e10), and min, max, log, log2, sqrt. Nothing else is allowed, so a study file
cannot run code.
"""
import ast
import math

from .errors import StudyError
from .registry import numeric

FUNCTIONS = {"min": min, "max": max, "log": math.log, "log2": math.log2, "sqrt": math.sqrt}
OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
             ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b}


def dotted_name(node):
    """`soc.l2.bandwidth` parses as attributes of a name: the column name, or None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id] + parts[::-1])
    return None


def parse(where, text):
    try:
        tree = ast.parse(str(text), mode="eval").body
    except SyntaxError as error:
        raise StudyError(f"{where}: not an expression: {error.msg}")
    names = set()
    check(where, tree, names)
    return tree, names


def check(where, node, names):
    name = dotted_name(node)
    if name is not None:
        names.add(name)
    elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        pass
    elif isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        check(where, node.left, names)
        check(where, node.right, names)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        check(where, node.operand, names)
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
          and not node.keywords):
        for argument in node.args:
            check(where, argument, names)
    else:
        raise StudyError(f"{where}: only numbers, column names, + - * / ** and {', '.join(FUNCTIONS)} "
                         f"are allowed, not '{ast.unparse(node)}'")


def evaluate(node, row):
    """The expression's value for ROW, or None when a column is missing or not a number."""
    name = dotted_name(node)
    if name is not None:
        value = numeric(row.get(name)) if row.get(name) is not None else None
        if value is None:
            raise ValueError(name)
        return value
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp):
        return OPERATORS[type(node.op)](evaluate(node.left, row), evaluate(node.right, row))
    if isinstance(node, ast.UnaryOp):
        value = evaluate(node.operand, row)
        return -value if isinstance(node.op, ast.USub) else value
    return FUNCTIONS[node.func.id](*[evaluate(argument, row) for argument in node.args])


class Derived:
    def __init__(self, study):
        self.columns = []
        for name, spec in (study.document.get("derived") or {}).items():
            where = f"{study.path}: derived.{name}"
            if not isinstance(spec, dict) or "expression" not in spec or set(spec) - {"expression", "unit"}:
                raise StudyError(f"{where}: {{expression: ..., unit: ...}} (unit optional)")
            tree, names = parse(where, spec["expression"])
            self.columns.append((name, tree, names, spec.get("unit", ""), where))

    def check(self, known, console):
        for name, _, names, _, where in self.columns:
            for used in sorted(names):
                if used not in known and not (console and used.startswith("console.")):
                    raise StudyError(f"{where}: '{used}' is neither a parameter of the space nor a collected "
                                     "statistic")
            known.add(name)

    def units(self):
        return {name: unit for name, _, _, unit, _ in self.columns if unit}

    def add(self, row):
        """Adds the derived columns to ROW (empty where an input is missing or the arithmetic fails)."""
        for name, tree, _, _, _ in self.columns:
            try:
                row[name] = evaluate(tree, row) if row.get("exit_status") == 0 else None
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                row[name] = None
