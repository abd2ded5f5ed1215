#!/usr/bin/python3
"""Checks that every #include goes the right way between the layers of npuvp.

    tools/check_layers.py [SOURCE_DIR]     exit 0 if every include is allowed, 1 if not
    tools/check_layers.py --self-test      shows on a made-up tree that a wrong-way
                                           include, a private header, an unlisted
                                           folder and a needless TRANSITIONAL entry
                                           are all reported

Run by CTest as `layering` and `layering_self_test`. The rules are the table LAYERS
below (docs/architecture.md#layers explains it): a component is a folder; a file
belongs to the component of the longest folder of the table its path starts with;
it may include files of its own component and of the components listed for it.
A listed name ending in "/*" allows every component below that folder; "*" allows
everything (the tests). To change the architecture, change the table and the
document together.

An include is resolved as the compiler would find it: next to the including file,
then under each of INCLUDE_ROOTS (the include directories the CMake projects give).
Includes that resolve to no file in the tree (the C and C++ libraries, SystemC, the
generated Xdavinci header) are not checked.
"""
import os
import re
import sys
import tempfile

# component -> the components its files may include (besides its own).
LAYERS = {
    # The model library: reusable SystemC/TLM components, no SoC wiring, no scenarios.
    "models/core": [],
    "models/cpu": ["models/core"],
    "models/mem": ["models/core"],
    "models/periph": ["models/core"],
    "models/interconnect": ["models/core"],
    "models/npu": ["models/core", "models/cpu", "models/mem"],
    "models/mesh": ["models/core"],
    # The coherence protocol library: SystemC-free framework and protocols.
    "models/coherence": ["models/core"],
    # The 16-hart cluster: coherent memory over the mesh, the harts' cache adapters.
    # MeshCluster attaches itself to the SoC's ring and CLINT (its constructor takes them).
    "models/cluster": ["models/coherence", "models/mesh", "models/core", "models/cpu", "models/mem",
                       "models/interconnect", "models/periph"],
    # The SoC: wires the models; runs model packages of the compiler.
    "platform": ["models/*", "sw/include", "sw/compiler"],
    # Software. sw/include holds the contracts (protocol, kernel arguments, ISA intrinsics).
    "sw/include": [],
    "sw/compiler": ["sw/include"],
    "sw/kernels": ["sw/include"],
    "sw/kernels/tests": ["sw/kernels", "sw/include"],
    "sw/driver": ["sw/include", "firmware/common"],
    "sw/runtime": ["sw/driver", "sw/include"],
    # Firmware: the runtime (crt0, traps, console, SMP start) and the programs on it.
    "firmware/common": [],
    "firmware/host": ["firmware/common", "sw/driver", "sw/runtime", "sw/include"],
    "firmware/ts": ["firmware/common", "sw/include"],
    "firmware/mesh": ["firmware/common"],
    "firmware/tests": ["firmware/common"],
    # Tests and benchmarks may look at anything, internals included.
    "tests": ["*"],
}

# A component listed here shows other components only these folders (its public
# headers); what lies beside them is private. Components allowed "*" see everything.
EXPORTS = {
    "firmware/common": ["firmware/common/include"],
    "sw/compiler": ["sw/compiler/include"],
}

# Files on their way to another component, whose wrong-way includes are tolerated
# until they move, each with the reason. An entry that no longer breaks the table
# (or whose file is gone) is itself reported, so the list empties as moves land.
TRANSITIONAL = {
}

# Where `#include "x"` and `#include <x>` are looked for, after the including file's folder.
INCLUDE_ROOTS = [
    ".",
    "models",
    "tests",
    "sw/include",
    "sw/compiler/include",
    "sw/compiler/src",
    "sw/driver",
    "sw/runtime",
    "firmware/common/include",
    "firmware/mesh",
]

SCANNED_FOLDERS = ["models", "platform", "sw", "firmware", "tests"]
SOURCE_SUFFIXES = (".h", ".hpp", ".c", ".cc", ".cpp", ".S")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def component_of(path, layers):
    """The longest folder of the table `path` lies in, or None."""
    best = None
    for component in layers:
        if path == component or path.startswith(component + "/"):
            if best is None or len(component) > len(best):
                best = component
    return best


def allowed(source, target, target_path, layers, exports):
    """None if `source` may include `target_path` of `target`, else the reason."""
    if source == target:
        return None
    grants = layers[source]
    if "*" in grants:
        return None
    if not any(g == target or (g.endswith("/*") and target.startswith(g[:-1])) for g in grants):
        return "%s may include only %s" % (source, ", ".join(grants) if grants else "itself")
    public = exports.get(target)
    if public and not any(target_path.startswith(folder + "/") for folder in public):
        return "%s is private to %s (public: %s)" % (target_path, target, ", ".join(public))
    return None


def resolve(root, including, name):
    """The tree-relative path `name` resolves to from `including`, or None."""
    candidates = [os.path.join(os.path.dirname(including), name)]
    candidates += [os.path.join(folder, name) for folder in INCLUDE_ROOTS]
    for candidate in candidates:
        relative = os.path.normpath(candidate)
        if not relative.startswith("..") and os.path.isfile(os.path.join(root, relative)):
            return relative
    return None


def source_files(root):
    for folder in SCANNED_FOLDERS:
        for directory, subfolders, files in os.walk(os.path.join(root, folder)):
            subfolders[:] = sorted(s for s in subfolders if not s.startswith("."))
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(directory, name), root)


def check(root, layers=LAYERS, exports=EXPORTS, transitional=None):
    """Every problem found, one line each: file:line: what and why."""
    transitional = TRANSITIONAL if transitional is None else transitional
    problems, tolerated = [], set()
    for path in source_files(root):
        source = component_of(path, layers)
        if source is None:
            problems.append("%s: in no component of the layer table (add its folder to LAYERS "
                            "in tools/check_layers.py and to docs/architecture.md)" % path)
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as text:
            for number, line in enumerate(text, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target_path = resolve(root, path, match.group(1))
                if target_path is None:
                    continue
                target = component_of(target_path, layers)
                if target is None:
                    reason = "%s is in no component of the layer table" % target_path
                else:
                    reason = allowed(source, target, target_path, layers, exports)
                if reason and path in transitional:
                    tolerated.add(path)
                elif reason:
                    problems.append("%s:%d: includes %s (%s): %s" % (path, number, target_path, target, reason))
    for path in sorted(set(transitional) - tolerated):
        problems.append("%s: listed in TRANSITIONAL but follows the table (or is gone): remove it "
                        "from tools/check_layers.py" % path)
    return problems


def self_test():
    """A wrong-way include, a private header, an unlisted folder and a needless
    TRANSITIONAL entry must each be found; allowed and tolerated includes must not be."""
    files = {
        "models/core/a.h": '#include "core/b.h"\n#include <vector>\n',
        "models/core/b.h": "",
        "models/cpu/c.h": '#include "core/a.h"\n',                   # allowed: down a layer
        "models/cpu/d.h": '#include "platform/soc.h"\n',            # wrong way, but tolerated while it moves
        "models/cpu/e.h": '#include "platform/soc.h"\n',            # wrong way: a model includes the SoC
        "platform/soc.h": '#include "cpu/c.h"\n#include "npuvp/x.h"\n',
        "sw/include/npuvp/x.h": "",
        "sw/driver/drv.c": '#include <npuvp/api.h>\n#include "../../firmware/common/internal.h"\n',
        "firmware/common/include/npuvp/api.h": "",
        "firmware/common/internal.h": "",
        "tests/t.cpp": '#include "platform/soc.h"\n#include "../firmware/common/internal.h"\n',
        "sw/newfolder/n.c": "",                                      # in no component
    }
    layers = {"models/core": [], "models/cpu": ["models/core"], "platform": ["models/*", "sw/include"],
              "sw/include": [], "sw/driver": ["sw/include", "firmware/common"], "firmware/common": [],
              "tests": ["*"]}
    exports = {"firmware/common": ["firmware/common/include"]}
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as out:
                out.write(text)
        problems = check(root, layers, exports, {"models/cpu/d.h": "moving", "models/cpu/c.h": "moving"})
    expected = [
        "models/cpu/e.h:1: includes platform/soc.h (platform): models/cpu may include only models/core",
        "sw/driver/drv.c:2: includes firmware/common/internal.h (firmware/common): firmware/common/internal.h "
        "is private to firmware/common (public: firmware/common/include)",
        "sw/newfolder/n.c: in no component of the layer table (add its folder to LAYERS in tools/check_layers.py "
        "and to docs/architecture.md)",
        "models/cpu/c.h: listed in TRANSITIONAL but follows the table (or is gone): remove it from "
        "tools/check_layers.py",
    ]
    if problems != expected:
        print("check_layers.py self-test FAILED\nexpected:\n  %s\nfound:\n  %s" %
              ("\n  ".join(expected), "\n  ".join(problems) or "(nothing)"))
        return 1
    print("check_layers.py self-test: the %d planted problems were found, nothing else" % len(expected))
    return 0


def main(arguments):
    if arguments == ["--self-test"]:
        return self_test()
    if len(arguments) > 1 or (arguments and arguments[0].startswith("-")):
        print("usage: tools/check_layers.py [SOURCE_DIR] | --self-test", file=sys.stderr)
        return 2
    root = arguments[0] if arguments else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print("%d include(s) against the layering (tools/check_layers.py, docs/architecture.md#layers)"
              % len(problems), file=sys.stderr)
        return 1
    print("every #include follows the layer table (%d components)" % len(LAYERS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
