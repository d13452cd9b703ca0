"""Operating-system sandboxing for code that must not see what the harness holds.

A model evaluated by a harness (the temporal effect harness, :mod:`causalarena.eval.temporal`)
runs in its own spawned process.  This module is what that process applies to itself before
it loads the model, and what the parent applies while such a child runs:

- :func:`restrict` (Linux >= 5.13 with Landlock enabled): from then on the process may only
  read the listed directories (the Python runtime, the packages it imports, the model's own
  module directory) and write one scratch directory; every other path -- the release folder,
  the parent's ``/proc/<pid>/{mem,cmdline,fd,...}``, the user's home -- is ``EACCES``.  With
  Landlock ABI >= 4 the process can neither connect nor bind TCP sockets; with ABI >= 6 it can
  neither signal processes outside its domain nor reach abstract Unix sockets.  Landlock also
  forbids ``ptrace`` (hence ``/proc/<pid>/mem``) of any process outside the sandbox, whatever
  the capabilities.  The restriction is irreversible and inherited by the children the process
  starts.  ``PR_SET_NO_NEW_PRIVS`` is set first (Landlock requires it).
- :func:`set_dumpable` (Linux ``prctl(PR_SET_DUMPABLE)``): the parent marks itself
  non-dumpable while a child runs, so a process of the same (non-root) user without Landlock
  cannot open its ``/proc/<pid>/mem``.

What is and is not guaranteed (:func:`guarantees` reports it at run time):

- Linux with Landlock: the file-system, TCP, signal and ptrace rules above.  Not covered: UDP
  sockets, and the CPU/memory the model uses (the harness caps time, not resources).
- Linux without Landlock, macOS, Windows: process separation only -- the child holds only
  its view, and the parent never unpickles anything it sends back -- but the child can read
  every file the user can, including the release's shards.  Evaluate untrusted models there
  in a container or as another user, or on the reserved half.
- Nowhere: a public suite is a pure function of ``(suite, version, seed)``, so a model that
  carries the package can regenerate a public episode from its id.  That is by design; the
  held-out (reserved) half, drawn from a secret key, is what answers this.

Source: the Landlock kernel documentation (``Documentation/userspace-api/landlock.rst``,
ABI versions 1-7) and ``prctl(2)``.  No maintained Python binding of Landlock is on PyPI for
this platform's mirror, so the three system calls are made through :mod:`ctypes`.
"""

from __future__ import annotations

import ctypes
import os
import platform
import resource
import sys
from collections.abc import Iterable
from pathlib import Path

# asm-generic system call numbers (x86_64 and aarch64 share them)
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_DUMPABLE, _PR_GET_DUMPABLE, _PR_SET_NO_NEW_PRIVS = 4, 3, 38

# file-system access rights per ABI (landlock.h)
_FS_EXECUTE = 1 << 0
_FS_WRITE_FILE = 1 << 1
_FS_READ_FILE = 1 << 2
_FS_READ_DIR = 1 << 3
_FS_ABI1 = (1 << 13) - 1  # EXECUTE .. MAKE_SYM
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1

_READ = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
# rights that apply to a file (a rule on a file with directory rights is EINVAL)
_FILE_RIGHTS = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | _FS_TRUNCATE | _FS_IOCTL_DEV


class SandboxError(RuntimeError):
    """The sandbox could not be applied (the message names the step and the errno)."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """Landlock ABI version of the running kernel; 0 when unavailable (or not Linux)."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "aarch64", "arm64"):
        return 0
    try:
        r = _libc().syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)
    except (OSError, AttributeError):
        return 0
    return int(r) if r > 0 else 0


def _fs_rights(abi: int) -> int:
    rights = _FS_ABI1
    if abi >= 2:
        rights |= _FS_REFER
    if abi >= 3:
        rights |= _FS_TRUNCATE
    if abi >= 5:
        rights |= _FS_IOCTL_DEV
    return rights


def _check(r: int, step: str) -> int:
    if r < 0:
        e = ctypes.get_errno()
        raise SandboxError(f"{step} failed: {os.strerror(e)} (errno {e})")
    return r


def restrict(read: Iterable[str | os.PathLike], write: Iterable[str | os.PathLike] = ()) -> int:
    """Confine this process (and its future children) to ``read`` and ``write`` directories.

    Parameters
    ----------
    read : iterable of path
        Directories (or files) the process may read and execute beneath.  Missing paths are
        skipped.
    write : iterable of path
        Directories the process may also create, write and remove files beneath.

    Returns
    -------
    int
        The Landlock ABI applied (0: nothing was applied because the kernel lacks Landlock;
        check :func:`landlock_abi` first when the caller needs the guarantee).

    Raises
    ------
    SandboxError
        A Landlock system call failed on a kernel that offers Landlock.
    """
    abi = landlock_abi()
    if abi == 0:
        return 0
    libc = _libc()
    fs = _fs_rights(abi)
    attr = _RulesetAttr(fs, 0, 0)
    size = 8
    if abi >= 4:
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = _SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL
        size = 24
    fd = _check(
        libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0),
        "landlock_create_ruleset",
    )
    try:
        for paths, rights in ((read, _READ), (write, fs)):
            for p in paths:
                p = os.fspath(p)
                if not os.path.exists(p):
                    continue
                pfd = os.open(p, os.O_PATH | os.O_CLOEXEC)
                try:
                    allowed = rights if os.path.isdir(p) else rights & _FILE_RIGHTS
                    rule = _PathBeneathAttr(allowed, pfd)
                    _check(
                        libc.syscall(_SYS_ADD_RULE, fd, _RULE_PATH_BENEATH, ctypes.byref(rule), 0),
                        f"landlock_add_rule({p})",
                    )
                finally:
                    os.close(pfd)
        _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        _check(libc.syscall(_SYS_RESTRICT_SELF, fd, 0), "landlock_restrict_self")
    finally:
        os.close(fd)
    return abi


def no_core_dumps() -> None:
    """``RLIMIT_CORE = 0``: a crashing sandboxed process leaves no core file with its memory."""
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ValueError, OSError):  # pragma: no cover - platform refuses
        pass


def set_dumpable(flag: bool) -> bool | None:
    """Set this process's ``PR_SET_DUMPABLE`` flag; returns the previous one (None: not Linux)."""
    if sys.platform != "linux":
        return None
    libc = _libc()
    prev = libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(_PR_SET_DUMPABLE, 1 if flag else 0, 0, 0, 0)
    return bool(prev) if prev >= 0 else None


def runtime_paths() -> list[str]:
    """Read-only paths a sandboxed Python process needs: the interpreter, stdlib, site-packages
    and the installed ``causalarena`` package directory (not the folder above it)."""
    import sysconfig

    import causalarena

    out = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            out.add(p)
    import site

    out.update(site.getsitepackages() if hasattr(site, "getsitepackages") else [])
    out.add(str(Path(causalarena.__file__).resolve().parent))
    # shared libraries the dynamic loader opens for extension modules imported later
    out.update(("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache"))
    out.update(("/dev/urandom", "/etc/localtime", "/usr/share/zoneinfo"))
    return sorted(p for p in out if p and os.path.abspath(p) != "/")


def guarantees() -> dict[str, object]:
    """What :func:`restrict` enforces on this machine (recorded in harness results)."""
    abi = landlock_abi()
    return {
        "platform": sys.platform,
        "landlock_abi": abi,
        "filesystem": abi >= 1,
        "ptrace": abi >= 1,
        "tcp": abi >= 4,
        "signals": abi >= 6,
        "parent_non_dumpable": sys.platform == "linux",
    }
