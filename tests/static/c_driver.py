#!/usr/bin/env python3
"""c_driver.py — check the C model of `augur static --format c` against the
Python module of the same program: write a C driver that calls every
function of the C model, or compare the driver's output with the Python
module's values.

Usage: c_driver.py write MODULE HEADER VALUE...   (a C driver on stdout)
       c_driver.py check MODULE OUTPUT VALUE...   (prints "agree N" or the first difference)

Every integer unknown takes each VALUE in turn; a branch ratio (ratio_LINE)
takes 1/4.  The driver prints one line per function and value:
NAME VALUE flops loads stores bytes statements, to 17 significant digits."""
import importlib
import inspect
import sys

KEYS = ("flops", "loads", "stores", "bytes", "statements")


def functions(module):
    """(name, parameter names) of the module's model functions."""
    return [(name, list(inspect.signature(f).parameters))
            for name, f in inspect.getmembers(module, inspect.isfunction) if f.__module__ == module.__name__]


def arg(param, value):
    return 0.25 if param.startswith("ratio_") else value


def write(module, header, values):
    print(f'#include <stdio.h>\n#include "{header}"\n\nstatic void show(const char *name, long v, augur_counts c)\n'
          '{\n    printf("%s %ld %.17g %.17g %.17g %.17g %.17g\\n", name, v, c.flops, c.loads, c.stores, c.bytes,'
          ' c.statements);\n}\n\nint main(void)\n{')
    for v in values:
        for name, params in functions(module):
            # a C keyword-free name: Python renamed keywords with a trailing _, C keeps the original
            args = ", ".join(repr(arg(p, v)) for p in params)
            print(f'    show("{name}", {v}, {name}({args}));')
    print("    return 0;\n}")


def check(module, output, values):
    lines = open(output).read().split("\n")
    n = 0
    for v in values:
        for name, params in functions(module):
            want = module.__dict__[name](*[arg(p, v) for p in params])
            got = lines[n].split()
            n += 1
            if got[0] != name or int(got[1]) != v:
                return f"line {n}: {got[:2]} where {name} {v} was expected"
            for k, text in zip(KEYS, got[2:]):
                if abs(float(text) - float(want[k])) > 1e-9 * max(1.0, abs(float(want[k]))):
                    return f"{name}({v}) {k}: C {text}, Python {want[k]}"
    return f"agree {n}"


def main():
    sys.path.insert(0, ".")
    module = importlib.import_module(sys.argv[2])
    values = [int(x) for x in sys.argv[4:]]
    if sys.argv[1] == "write":
        write(module, sys.argv[3], values)
    else:
        print(check(module, sys.argv[3], values))


if __name__ == "__main__":
    main()
