"""The on-disk cache of compiled kernels: compile once, then every process (the Python API,
`warpforge compile`, `warpforge run`) loads the result.

Kinds of entries, all files under `cache_dir()/kernels/`:

| kind | key | holds |
|---|---|---|
| `kernel` | `compile.kernel_key(...)`: the source files (text, name, first line) of the kernel and of every `@simt.device` function it reaches, the names it reads from outside (constants by value), signature / specialization, options, chip, PTX version, and `compiler_fingerprint()` | the PTX and everything the runtime needs (`CompiledKernel`: parameter ABI, error sites, launch contract, shared memory; for tile kernels the grid parameter, block and `load_tile_like` pairs) |
| `cubin` | SHA-256 of the PTX, the chip, and the ptxas binary (path, size, mtime) | the cubin `ptxas -v` made of that PTX and its log (registers, spills, shared and local memory) |
| `autotune` | `compile.kernel_key("autotune", ...)`: the tile kernel's source, its `tile.Config`s, the key, the device's name and chip, the key's values | the index of the config `@tile.autotune` chose (`warpforge.autotune`) |

Where: `$WARPFORGE_CACHE_DIR`, else `$XDG_CACHE_HOME/warpforge`, else `~/.cache/warpforge`.
`WARPFORGE_CACHE=0` turns the cache off (nothing read or written; compiled kernels also bypass it
while `WARPFORGE_DUMP_IR` or `WARPFORGE_KERNEL_OVERRIDE` is set). `WARPFORGE_CACHE_MAX_BYTES` bounds
its size (default 1 GiB): after each write the least recently used entries (by file mtime; a hit
touches its file) are removed until the cache fits.

Entries are written atomically (a temporary file in the same directory, then `os.replace`), so
concurrent processes never see half an entry. Each file starts with a header naming its sections
and the SHA-256 of its body; a file that is truncated, corrupted or of another format is a miss
(removed, then recompiled and written again) — never trusted. Nothing is unpickled: metadata is JSON.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

MAGIC = b"WARPFORGE-CACHE 1\n"
"""First line of every entry file; a new format gets a new number (old entries are then misses)."""

SUFFIX = ".wfc"
DEFAULT_MAX_BYTES = 1 << 30
STALE_TEMP_SECONDS = 3600.0
"""A writer's temporary file older than this is left over from a crash and removed by eviction."""

stats: Counter[str] = Counter()
"""This process's cache events: `hit`, `miss`, `write`, `corrupt`, `evict` (tests and `bench/` read it)."""

_lock = threading.Lock()


BYPASS_ENVIRONMENT = ("WARPFORGE_DUMP_IR", "WARPFORGE_KERNEL_OVERRIDE")
"""Variables that make a compile do more than the key says (dump each stage, replace a stage's IR):
while one is set, compiled kernels are neither read from nor written to the cache."""


def enabled() -> bool:
    """False when `WARPFORGE_CACHE` is `0` (or `false`, `off`, `no`; `warpforge.environment.flag`)."""
    from warpforge.environment import flag

    return flag("WARPFORGE_CACHE", True)


def bypassed() -> bool:
    """True while a variable of `BYPASS_ENVIRONMENT` is set (compiles then run every stage)."""
    return any(os.environ.get(name) for name in BYPASS_ENVIRONMENT)


def cache_dir() -> Path:
    """The cache's directory (it need not exist yet)."""
    explicit = os.environ.get("WARPFORGE_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "warpforge"


def max_bytes() -> int:
    """The size bound in bytes (`WARPFORGE_CACHE_MAX_BYTES`, default 1 GiB)."""
    from warpforge.environment import integer

    return integer("WARPFORGE_CACHE_MAX_BYTES", DEFAULT_MAX_BYTES, unit="bytes")


@functools.cache
def compiler_fingerprint() -> str:
    """What identifies the compiler itself: the versions of warpforge, xdsl and llvmlite and the name,
    size and mtime of each of warpforge's own source files (so an edited or checked-out compiler never
    reuses an old one's PTX). Cheap: nothing is imported, read or scanned in package metadata
    (`importlib.metadata` alone costs ~0.1 s)."""
    from importlib.util import find_spec

    import warpforge

    h = hashlib.sha256(f"warpforge={warpforge.__version__}\n".encode())
    for dist in ("xdsl", "llvmlite"):
        spec = find_spec(dist)
        origin = Path(spec.origin).parent if spec is not None and spec.origin else None
        infos = sorted(p.name for p in origin.parent.glob(f"{dist}-*.dist-info")) if origin is not None else []
        h.update(f"{dist}={origin}:{','.join(infos)}\n".encode())
    for package in ("warpforge", "warpforge.dialects", "warpforge.passes"):
        spec = find_spec(package)
        for location in (spec.submodule_search_locations or []) if spec is not None else []:
            # any edit (or checkout) changes a file's size or mtime; reading ~1 MB would not pay
            for rel, size, mtime in sorted(_python_files(location, "")):
                h.update(f"{rel}\0{size}\0{mtime}\n".encode())
    return h.hexdigest()


def _python_files(directory: str, prefix: str) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    with os.scandir(directory) as it:
        for entry in it:
            if entry.is_dir() and entry.name != "__pycache__":
                out += _python_files(entry.path, f"{prefix}{entry.name}/")
            elif entry.name.endswith(".py"):
                st = entry.stat()
                out.append((prefix + entry.name, st.st_size, st.st_mtime_ns))
    return out


def digest(*parts: object) -> str:
    """A hex SHA-256 of the `repr` of each part (the entry key)."""
    h = hashlib.sha256()
    for p in parts:
        h.update(repr(p).encode())
        h.update(b"\0")
    return h.hexdigest()


@dataclass(frozen=True)
class CacheInfo:
    """`warpforge cache info`: the directory, whether the cache is on, entries per kind, bytes used
    and the bound."""

    path: Path
    enabled: bool
    entries: dict[str, int]
    bytes: int
    max_bytes: int
    unusable: str = ""
    """Why the directory cannot hold the cache (a path in it is a file, not writable), or empty."""

    def __str__(self) -> str:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(self.entries.items())) or "no entries"
        state = "off (WARPFORGE_CACHE=0)" if not self.enabled else f"off: {self.unusable}, so nothing is cached" if self.unusable else "on"
        return (
            f"cache directory: {self.path}\n"
            f"state: {state}\n"
            f"entries: {sum(self.entries.values())} ({kinds})\n"
            f"size: {_human(self.bytes)} of at most {_human(self.max_bytes)}"
        )


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


class DiskCache:
    """A directory of entries (see the module docstring). `get` and `put` never raise on I/O
    problems: a cache that cannot be read or written behaves as an empty one."""

    def __init__(self, root: Path, bound: int | None = None):
        self.root = Path(root)
        self.bound = max_bytes() if bound is None else bound
        self.entries = self.root / "kernels"

    def path(self, kind: str, key: str) -> Path:
        return self.entries / f"{kind}-{key}{SUFFIX}"

    # ------------------------------------------------------------------ reading

    def get(self, kind: str, key: str) -> dict[str, bytes] | None:
        """The sections of entry (`kind`, `key`), or None (missing, unreadable or corrupted: a
        corrupted file is removed)."""
        path = self.path(kind, key)
        try:
            data = path.read_bytes()
        except OSError:
            stats["miss"] += 1
            return None
        sections = decode(data, kind, key)
        if sections is None:
            stats["corrupt"] += 1
            stats["miss"] += 1
            self.discard(kind, key)
            return None
        stats["hit"] += 1
        try:
            os.utime(path)  # least recently *used*: a hit makes the entry young again
        except OSError:
            pass
        return sections

    def discard(self, kind: str, key: str) -> None:
        """Remove one entry (an entry whose content turned out unusable)."""
        try:
            self.path(kind, key).unlink()
        except OSError:
            pass

    # ------------------------------------------------------------------ writing

    def put(self, kind: str, key: str, sections: dict[str, bytes]) -> bool:
        """Write an entry atomically (temp file + rename), then evict down to the bound. Returns
        False when the directory cannot be written (the cache then just misses)."""
        import tempfile

        data = encode(kind, key, sections)
        try:
            self.entries.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.entries, prefix=f".{kind}-{key[:16]}.", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, self.path(kind, key))
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:
            return False
        stats["write"] += 1
        self.evict()
        return True

    def _files(self) -> list[tuple[float, int, Path]]:
        out = []
        try:
            names = os.listdir(self.entries)
        except OSError:
            return []
        now = time.time()
        for name in names:
            p = self.entries / name
            try:
                st = p.stat()
            except OSError:
                continue
            if name.endswith(".tmp"):
                if now - st.st_mtime > STALE_TEMP_SECONDS:
                    try:
                        p.unlink()
                    except OSError:
                        pass
                continue
            if name.endswith(SUFFIX):
                out.append((st.st_mtime, st.st_size, p))
        return out

    def evict(self) -> int:
        """Remove least recently used entries until the cache fits its bound; the number removed."""
        with _lock:
            files = self._files()
            total = sum(size for _, size, _ in files)
            removed = 0
            for _, size, p in sorted(files, key=lambda t: (t[0], str(t[2]))):
                if total <= self.bound:
                    break
                try:
                    p.unlink()
                except OSError:
                    continue
                total -= size
                removed += 1
            stats["evict"] += removed
            return removed

    # ------------------------------------------------------------------ the CLI

    def info(self) -> CacheInfo:
        entries: Counter[str] = Counter()
        total = 0
        for _, size, p in self._files():
            entries[p.name.split("-", 1)[0]] += 1
            total += size
        return CacheInfo(self.root, enabled(), dict(entries), total, self.bound, _unusable(self.root))

    def clear(self) -> int:
        """Remove every entry (and leftover temporary files); the number of entries removed."""
        removed = 0
        try:
            names = os.listdir(self.entries)
        except OSError:
            return 0
        for name in names:
            if name.endswith(SUFFIX) or name.endswith(".tmp"):
                try:
                    (self.entries / name).unlink()
                    removed += name.endswith(SUFFIX)
                except OSError:
                    pass
        return removed


def _unusable(root: Path) -> str:
    """Why `root` cannot hold the cache: it (or a folder above it) is a file, or it is not writable; else ''."""
    for path in (root, *root.parents):
        if path.exists():
            if not path.is_dir():
                return f"{path} is a file, not a directory" + (" (set WARPFORGE_CACHE_DIR to a directory)" if path == root else "")
            if not os.access(path, os.W_OK | os.X_OK):
                return f"{path} is not writable"
            return ""
    return ""


def encode(kind: str, key: str, sections: dict[str, bytes]) -> bytes:
    """An entry's bytes: `MAGIC`, a JSON header line (kind, key, section sizes, SHA-256 of the body),
    then the sections one after another."""
    body = b"".join(sections.values())
    header = {
        "kind": kind,
        "key": key,
        "sections": [[name, len(blob)] for name, blob in sections.items()],
        "sha256": hashlib.sha256(body).hexdigest(),
    }
    return MAGIC + json.dumps(header, separators=(",", ":")).encode() + b"\n" + body


def decode(data: bytes, kind: str, key: str) -> dict[str, bytes] | None:
    """The sections of an entry's bytes, or None unless it is whole, of this format, for (`kind`,
    `key`), and its body matches its checksum."""
    if not data.startswith(MAGIC):
        return None
    end = data.find(b"\n", len(MAGIC))
    if end < 0:
        return None
    try:
        header = json.loads(data[len(MAGIC) : end])
        body = data[end + 1 :]
        if header["kind"] != kind or header["key"] != key:
            return None
        if hashlib.sha256(body).hexdigest() != header["sha256"]:
            return None
        out: dict[str, bytes] = {}
        offset = 0
        for name, size in header["sections"]:
            out[str(name)] = body[offset : offset + int(size)]
            offset += int(size)
        if offset != len(body):
            return None
        return out
    except (ValueError, KeyError, TypeError):
        return None


def default_cache() -> DiskCache | None:
    """The cache the compiler uses now (from the environment), or None when `WARPFORGE_CACHE=0`."""
    if not enabled():
        return None
    return DiskCache(cache_dir())
