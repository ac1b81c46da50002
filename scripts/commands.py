#!/usr/bin/python3
"""Every external command the project's host scripts run must come from a
Debian package that scripts/deps.sh installs, or from the base system that
deps.sh lists explicitly (BASE_PACKAGES). Otherwise a fresh machine fails
where this one, with tools installed by hand, passes.

Usage: scripts/commands.py [--deps FILE] [--list]
  --deps FILE  read PACKAGES and BASE_PACKAGES from FILE (default
               scripts/deps.sh; the selftest passes a damaged copy)
  --list       print command, package and where it is run, then check

The scripts are parsed by shfmt (--tojson gives the shell syntax tree), so
quoted awk/jq programs and here-documents are never mistaken for commands;
Makefile recipes are parsed the same way after their make variables are
replaced. A command maps to a package through dpkg -S on the file that
`command -v` finds. Exit 0: all provided; 1: some are not (each named);
2: the check itself could not run.
"""
import json
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Host-side shell code. The guest scripts (qemu/guest/) run busybox applets
# inside the guest, not commands of this machine.
SHELL_GLOBS = ("scripts", "qemu")
# Wrappers that run a command given as an argument, and how many operands
# (after options) come before it.
WRAPPERS = {"command": 0, "exec": 0, "env": 0, "xargs": 0, "nice": 0,
            "time": 0, "sudo": 0, "timeout": 1, "flock": 1, "run_logged": 1,
            "check": 1, "expect_fail": 2, "prebuild": 1}
# Their options that take the next word as a value (nice -n 19 CMD).
VALUE_OPTIONS = {"nice": {"-n"}, "timeout": {"-k", "-s"}, "flock": {"-w", "-E"}}
# Where a fresh Debian machine looks for commands (not this one's PATH,
# which may hold hand-installed tools, such as a pyenv python3).
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


def die(msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(2)


def shell_files():
    files = [os.path.join(TOP, ".ci", "run")]
    for d in SHELL_GLOBS:
        for f in sorted(os.listdir(os.path.join(TOP, d))):
            if f.endswith(".sh"):
                files.append(os.path.join(TOP, d, f))
    return files


def makefile_script():
    """The Makefile's recipes as one shell script (make syntax replaced)."""
    out, cont, other = [], "", False
    with open(os.path.join(TOP, "Makefile")) as f:
        for line in f:
            line = line.rstrip("\n")
            # A continued line that is not a recipe (.PHONY: a b \) is not
            # a recipe either, even if the continuation starts with a tab.
            if other or not (line.startswith("\t") or cont):
                other = line.endswith("\\")
                continue
            line = cont + line.lstrip("\t").lstrip("@-")
            if line.endswith("\\"):
                cont = line[:-1] + " "
                continue
            cont = ""
            # $(make functions) and $(VARS), nested once, become a word.
            prev = None
            while prev != line:
                prev = line
                line = re.sub(r"\$\([^()$]*\)", "MAKEVAR", line)
            out.append(line.replace("$$", "$"))
    return "\n".join(out) + "\n"


def syntax_tree(text, where):
    p = subprocess.run(["shfmt", "--tojson"], input=text, text=True,
                       capture_output=True)
    if p.returncode != 0:
        die(f"shfmt could not parse {where}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def literal(word):
    parts = word.get("Parts") or []
    if len(parts) == 1 and parts[0].get("Type") == "Lit":
        return parts[0].get("Value", "")
    return None


def calls(node, found, funcs):
    """Collect (name, line) of the command words, and function names."""
    if isinstance(node, list):
        for n in node:
            calls(n, found, funcs)
        return
    if not isinstance(node, dict):
        return
    if node.get("Type") == "FuncDecl":
        funcs.add(node["Name"]["Value"])
    if node.get("Type") == "CallExpr" and node.get("Args"):
        words = [literal(a) for a in node["Args"]]
        line = node["Args"][0].get("Pos", {}).get("Line", 0)
        names = words[:1]
        if words[0] in WRAPPERS:
            skip = WRAPPERS[words[0]]
            value_options = VALUE_OPTIONS.get(words[0], set())
            value = False
            for w in words[1:]:
                if value:
                    value = False
                    continue
                if w is not None and (w.startswith("-") or "=" in w):
                    value = w in value_options
                    continue
                if skip:
                    skip -= 1
                    continue
                names.append(w)
                break
        for w in names:
            if w and NAME.match(w):
                found.append((w, line))
    for v in node.values():
        calls(v, found, funcs)


def deps_lists(path):
    text = open(path).read()
    lists = {}
    for var in ("PACKAGES", "BASE_PACKAGES"):
        m = re.search(rf'^{var}="(.*?)^"', text, re.S | re.M)
        if not m:
            die(f"{path} has no {var}=\"...\" list")
        lists[var] = {ln.split()[0] for ln in m.group(1).splitlines()
                      if ln.strip() and not ln.lstrip().startswith("#")}
    return lists["PACKAGES"], lists["BASE_PACKAGES"]


def builtins():
    p = subprocess.run(["bash", "-c", "compgen -b; compgen -k"],
                       capture_output=True, text=True, check=True)
    return set(p.stdout.split())


def package_of(cmd):
    path = shutil.which(cmd, path=SYSTEM_PATH)
    if not path:
        return None, None
    candidates = []
    for c in (path, os.path.realpath(path)):
        # usrmerge: dpkg may know /usr/bin/cat as /bin/cat
        candidates += [c, re.sub(r"^/usr/(s?bin)/", r"/\1/", c)]
    for c in candidates:
        p = subprocess.run(["dpkg", "-S", c], capture_output=True, text=True)
        if p.returncode == 0:
            return path, p.stdout.split(":")[0].split(",")[0].strip()
    return path, ""


def depends(pkgs):
    """The packages that the given ones depend on directly."""
    p = subprocess.run(["dpkg-query", "-W", "-f", "${Depends},${Pre-Depends}\n"] +
                       sorted(pkgs), capture_output=True, text=True)
    out = set()
    for alt in re.split(r"[,|\n]", p.stdout):
        if alt.strip():
            out.add(alt.split()[0].split(":")[0])
    return out


def main(argv):
    deps = os.path.join(TOP, "scripts", "deps.sh")
    show = False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--deps" and args:
            deps = args.pop(0)
        elif a == "--list":
            show = True
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            die(f"unknown argument {a!r} (see --help)")
    for tool in ("shfmt", "dpkg"):
        if not shutil.which(tool):
            die(f"{tool} is missing: run 'make deps'")
    packages, base = deps_lists(deps)
    # One level of dependencies counts as installed too (python3 brings
    # python3-minimal, build-essential brings gcc).
    provided = packages | base | depends(packages | base)

    found, funcs = [], set()
    for f in shell_files():
        rel = os.path.relpath(f, TOP)
        hits = []
        calls(syntax_tree(open(f).read(), rel), hits, funcs)
        found += [(w, f"{rel}:{ln}") for w, ln in hits]
    hits = []
    calls(syntax_tree(makefile_script(), "Makefile recipes"), hits, funcs)
    found += [(w, "Makefile") for w, _ in hits]

    skip = builtins() | funcs | {"MAKEVAR"}
    where = {}
    for w, at in found:
        if w not in skip:
            where.setdefault(w, []).append(at)

    bad = 0
    for cmd in sorted(where):
        path, pkg = package_of(cmd)
        at = ", ".join(sorted(set(where[cmd]))[:3])
        if path is None:
            print(f"MISSING  {cmd}: run at {at}, but not on this machine "
                  f"(which Debian package? add it to PACKAGES in {deps})")
            bad += 1
        elif not pkg:
            print(f"UNKNOWN  {cmd} ({path}): run at {at}, no Debian package "
                  f"owns it")
            bad += 1
        elif pkg not in provided:
            print(f"UNLISTED {cmd}: run at {at}, from Debian package {pkg}, "
                  f"which {os.path.relpath(deps, TOP)} does not install")
            bad += 1
        elif show:
            print(f"ok       {cmd:20} {pkg:20} {at}")
    print(f"{len(where)} external commands, {bad} not provided by the "
          f"packages deps.sh installs or lists as base")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
