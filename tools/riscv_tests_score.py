#!/usr/bin/python3
"""Builds the riscv-tests `-p-` binaries of rv64 ui/um/ua/uc/uf/ud/mi/si from a
riscv-tests checkout the user provides and runs each on npuvp (and, with --qemu,
on QEMU's `spike` machine as the reference), then prints the score per suite and
every failure (docs/testing.md "riscv-tests").

The sources are never part of this repository: pass the checkout's folder (the one
holding isa/ and env/). Each binary is linked by the checkout's env/p/link.ld at
0x8000_0000, where npuvp's boot ROM jumps to the ELF entry (docs/memory-map.md), and
reports through HTIF `tohost`: a guest exit code of 0 is a pass, N is the number of
the first failing test case (TESTNUM).

    tools/riscv_tests_score.py --riscv-tests ~/riscv-tests --npuvp build/platform/npuvp --qemu
"""
import argparse
import concurrent.futures
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

SUITES = ["ui", "um", "ua", "uc", "uf", "ud", "mi", "si"]
# The hart needs compressed instructions for rv64uc only; everything else is rv64g.
ARCH_OF_SUITE = {"uc": "rv64gc"}
COMPILER = "riscv64-unknown-elf-gcc"
# The options of riscv-tests' own isa/Makefile, so the binaries are the ones it builds.
COMPILE_OPTIONS = ["-mabi=lp64", "-static", "-mcmodel=medany", "-fvisibility=hidden", "-nostdlib",
                   "-nostartfiles"]
BAD_INPUT = 125


def fail(message):
    print(f"riscv_tests_score: {message}", file=sys.stderr)
    sys.exit(BAD_INPUT)


def test_names(suite_dir, suite):
    """The suite's test list: its Makefrag's `rv64<suite>_sc_tests` when the checkout has
    one (what riscv-tests itself builds), else every .S file of the folder."""
    makefrag = suite_dir / "Makefrag"
    if makefrag.is_file():
        text = makefrag.read_text().replace("\\\n", " ")
        match = re.search(rf"^rv64{suite}_sc_tests\s*=(.*)$", text, re.MULTILINE)
        if match:
            return match.group(1).split()
    return sorted(path.stem for path in suite_dir.glob("*.S"))


def build(source_root, suite, name, out_dir):
    source = source_root / "isa" / f"rv64{suite}" / f"{name}.S"
    binary = out_dir / f"rv64{suite}-p-{name}"
    if not source.is_file():
        return binary, f"source {source} not found"
    command = [COMPILER, f"-march={ARCH_OF_SUITE.get(suite, 'rv64g')}", *COMPILE_OPTIONS,
               f"-I{source_root / 'env' / 'p'}", f"-I{source_root / 'env'}",
               f"-I{source_root / 'isa' / 'macros' / 'scalar'}",
               f"-T{source_root / 'env' / 'p' / 'link.ld'}", str(source), "-o", str(binary)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return binary, "build failed: " + (result.stderr.strip().splitlines() or ["?"])[-1]
    return binary, None


def run(command, timeout):
    """The guest's exit status, or a word saying why there is none."""
    try:
        result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    return result.returncode


def verdict(status):
    if status == 0:
        return "pass"
    if isinstance(status, int):
        return f"exit {status}"
    return status


def measure_all(root, suites, npuvp, qemu, out, timeout, jobs):
    """[((suite, name), npuvp verdict, QEMU verdict or None)] for every test of the suites."""
    out.mkdir(parents=True, exist_ok=True)
    tests = [(suite, name) for suite in suites for name in test_names(root / "isa" / f"rv64{suite}", suite)]

    def measure(test):
        suite, name = test
        binary, problem = build(root, suite, name, out)
        if problem:
            return test, problem, problem if qemu else None
        on_npuvp = verdict(run([str(npuvp), "run", "--elf", str(binary), "--quiet"], timeout))
        on_qemu = None
        if qemu:
            on_qemu = verdict(run(["qemu-system-riscv64", "-machine", "spike", "-bios", "none", "-nographic",
                                   "-kernel", str(binary)], timeout))
        return test, on_npuvp, on_qemu

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(measure, tests))


def print_score(results, suites, qemu):
    header = "| suite | npuvp | QEMU |" if qemu else "| suite | npuvp |"
    print(header)
    print("| --- | --- |" + (" --- |" if qemu else ""))
    rows_of_suite = {suite: [result for result in results if result[0][0] == suite] for suite in suites}
    for suite, rows in list(rows_of_suite.items()) + [("all", results)]:
        name = suite if suite == "all" else f"rv64{suite}"
        line = f"| {name} | {sum(1 for _, on_npuvp, _ in rows if on_npuvp == 'pass')}/{len(rows)} |"
        if qemu:
            line += f" {sum(1 for _, _, on_qemu in rows if on_qemu == 'pass')}/{len(rows)} |"
        print(line)
    failures = [result for result in results if result[1] != "pass" or (qemu and result[2] != "pass")]
    if failures:
        print("\nfailures (exit N: test case N failed first):")
        for (suite, name), on_npuvp, on_qemu in failures:
            reference = f", QEMU {on_qemu}" if qemu else ""
            print(f"  rv64{suite}-p-{name}: npuvp {on_npuvp}{reference}")


# The self-test's miniature checkout: our own environment and two tests written for it
# (one passes, one fails its case 3), enough to exercise the list, build, run and verdict.
SELF_TEST_FILES = {
    "env/p/link.ld": "OUTPUT_ARCH(riscv)\nENTRY(_start)\nSECTIONS {\n  . = 0x80000000;\n"
                     "  .text : { *(.text.init) *(.text) }\n  .tohost ALIGN(64) : { *(.tohost) }\n"
                     "  .data : { *(.data) }\n}\n",
    "env/p/riscv_test.h": "#define TESTNUM gp\n#define RVTEST_RV64U\n"
                          "#define RVTEST_CODE_BEGIN .section .text.init; .globl _start; _start: li TESTNUM, 0;\n"
                          "#define RVTEST_CODE_END\n"
                          "#define RVTEST_PASS li a0, 1; j 9b;\n"
                          "#define RVTEST_FAIL slli a0, TESTNUM, 1; ori a0, a0, 1; 9: la t0, tohost; sd a0, 0(t0); 8: j 8b;\n"
                          "#define RVTEST_DATA_BEGIN .section .tohost, \"aw\"; .globl tohost; tohost: .dword 0; "
                          ".globl fromhost; fromhost: .dword 0; .data;\n#define RVTEST_DATA_END\n",
    "isa/macros/scalar/test_macros.h": "#define TEST_CASE(n, reg, expected, code...) li TESTNUM, n; code; "
                                       "li t1, expected; bne reg, t1, fail;\n"
                                       "#define TEST_PASSFAIL j pass; fail: RVTEST_FAIL pass: RVTEST_PASS\n",
    "isa/rv64ui/Makefrag": "rv64ui_sc_tests = \\\n\tpasses \\\n\tfails_three \\\n\nrv64ui_p_tests = x\n",
}
SELF_TEST_BODY = ('#include "riscv_test.h"\n#include "test_macros.h"\nRVTEST_RV64U\nRVTEST_CODE_BEGIN\n'
                  "{cases}\nTEST_PASSFAIL\nRVTEST_CODE_END\nRVTEST_DATA_BEGIN\nRVTEST_DATA_END\n")


def self_test(npuvp):
    """Checks this script on the miniature checkout: 1 of 2 passes, the other fails at 3."""
    with tempfile.TemporaryDirectory() as folder:
        root = pathlib.Path(folder)
        for path, text in SELF_TEST_FILES.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        cases = "TEST_CASE(2, a2, 5, li a0, 2; li a1, 3; add a2, a0, a1)"
        (root / "isa/rv64ui/passes.S").write_text(SELF_TEST_BODY.format(cases=cases))
        (root / "isa/rv64ui/fails_three.S").write_text(
            SELF_TEST_BODY.format(cases=cases + "\nTEST_CASE(3, a2, 6, add a2, a0, a1)"))
        results = measure_all(root, ["ui"], npuvp, False, root / "out", 60, 2)
    print_score(results, ["ui"], False)
    expected = [(("ui", "passes"), "pass", None), (("ui", "fails_three"), "exit 3", None)]
    if results != expected:
        print(f"self-test FAILED: expected {expected}, got {results}", file=sys.stderr)
        return 1
    print("self-test passed")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--riscv-tests", type=pathlib.Path,
                        help="a riscv-tests checkout (holding isa/ and env/p/)")
    parser.add_argument("--self-test", action="store_true",
                        help="check this script on a miniature checkout of its own (needs --npuvp)")
    parser.add_argument("--npuvp", default="build/platform/npuvp", type=pathlib.Path)
    parser.add_argument("--qemu", action="store_true",
                        help="also run each binary on qemu-system-riscv64 -machine spike (the reference)")
    parser.add_argument("--out", default="build/riscv-tests", type=pathlib.Path,
                        help="where the binaries go (default build/riscv-tests)")
    parser.add_argument("--suites", nargs="+", default=SUITES, choices=SUITES)
    parser.add_argument("--timeout", type=float, default=30, help="seconds per run (default 30)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    if not args.npuvp.is_file():
        fail(f"--npuvp {args.npuvp} not found (build it: cmake --build build --target npuvp)")
    if shutil.which(COMPILER) is None:
        fail(f"{COMPILER} not found (Debian package gcc-riscv64-unknown-elf)")
    if args.self_test:
        return self_test(args.npuvp)
    if args.riscv_tests is None:
        fail("--riscv-tests FOLDER is needed (a riscv-tests checkout)")
    root = args.riscv_tests
    for needed in [root / "env" / "p" / "riscv_test.h", root / "env" / "p" / "link.ld",
                   root / "isa" / "macros" / "scalar" / "test_macros.h"]:
        if not needed.is_file():
            fail(f"{needed} not found: --riscv-tests must be a riscv-tests checkout with its env submodule")
    if args.qemu and shutil.which("qemu-system-riscv64") is None:
        fail("qemu-system-riscv64 not found (Debian package qemu-system-misc)")
    results = measure_all(root, args.suites, args.npuvp, args.qemu, args.out, args.timeout, args.jobs)
    print_score(results, args.suites, args.qemu)
    return 0 if all(on_npuvp == "pass" for _, on_npuvp, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
