"""tally as the metrics aggregator of MLPerf Inference Endpoints' benchmark.

Upstream's benchmark starts its aggregator as

    python -m inference_endpoint.async_utils.services.metrics_aggregator ARGS

(commands/benchmark/pipeline.py, services/launcher.py). Installed, this
module makes that command run `tally aggregate ARGS` instead (the same
flags, sockets, frames and file), when and only when the environment
variable TALLY_AGGREGATE is set: to the tally binary's path, or to 1 for
`tally` on the PATH. Unset, upstream's own aggregator runs, untouched.

    python3 tally_dropin.py install [--user | --target DIR]   # into site-packages
    python3 tally_dropin.py uninstall [--user | --target DIR]
    python3 tally_dropin.py status [--user | --target DIR]

Install it with the Python that runs the benchmark. It puts two files into
that Python's site-packages (or DIR): this module and tally_dropin.pth, one
line that imports it at interpreter start-up. The import only adds a finder
to sys.meta_path, which answers for one module name (the aggregator's
__main__) while TALLY_AGGREGATE is set; everything else is left to Python.
The process is replaced by tally (exec), so the launcher's process handle,
its SIGTERM and the exit status are tally's. Uninstall removes both files.
"""

import importlib.abc
import importlib.machinery
import os
import shutil
import sys
import sysconfig

TARGET = "inference_endpoint.async_utils.services.metrics_aggregator.__main__"
ENV = "TALLY_AGGREGATE"
PTH = "tally_dropin.pth"
PTH_LINE = "import tally_dropin; tally_dropin.activate()\n"


def tally_binary():
    v = os.environ.get(ENV, "")
    if not v or v == "0":
        return None
    if v == "1":
        return shutil.which("tally") or "tally"
    return v


def run(binary):
    """Replaces this process by `tally aggregate` with the aggregator's flags."""
    args = [binary, "aggregate"] + sys.argv[1:]
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvp(binary, args)
    except OSError as exc:
        sys.stderr.write("tally_dropin: cannot run %s (%s=%s): %s\n" % (binary, ENV, os.environ.get(ENV), exc))
        raise SystemExit(1)


class _Loader(importlib.abc.InspectLoader):
    """runpy (python -m) asks for the module's code: a call of run()."""

    def __init__(self, binary):
        self.binary = binary

    def is_package(self, fullname):
        return False

    def get_source(self, fullname):
        return "import tally_dropin\ntally_dropin.run(%r)\n" % self.binary

    def get_code(self, fullname):
        return compile(self.get_source(fullname), "<tally_dropin>", "exec")


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != TARGET:
            return None
        binary = tally_binary()
        if binary is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader(binary), origin=binary)


def activate():
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


# ---- installing ------------------------------------------------------------------


def _site_dir(argv):
    if "--target" in argv:
        i = argv.index("--target")
        if i + 1 >= len(argv):
            raise SystemExit("tally_dropin: --target needs a folder")
        return argv[i + 1]
    if "--user" in argv:
        import site

        return site.getusersitepackages()
    return sysconfig.get_paths()["purelib"]


def main(argv):
    if not argv or argv[0] not in ("install", "uninstall", "status"):
        print(__doc__.strip())
        return 2
    d = _site_dir(argv[1:])
    mod, pth = os.path.join(d, "tally_dropin.py"), os.path.join(d, PTH)
    if argv[0] == "install":
        os.makedirs(d, exist_ok=True)
        shutil.copyfile(os.path.abspath(__file__), mod)
        with open(pth, "w") as f:
            f.write(PTH_LINE)
        print("tally_dropin: installed into %s; set %s=/path/to/tally (or 1) to use it" % (d, ENV))
    elif argv[0] == "uninstall":
        for p in (pth, mod):
            if os.path.exists(p):
                os.remove(p)
        print("tally_dropin: removed from %s" % d)
    else:
        on = os.path.exists(pth) and os.path.exists(mod)
        print("tally_dropin: %s in %s; %s=%s" % ("installed" if on else "not installed", d, ENV,
                                                   os.environ.get(ENV, "(unset: upstream's aggregator runs)")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
