"""The PEP 517 build backend of the vasana client: standard library only.

The package is pure Python with no dependencies, so its wheel is just its files plus metadata.
Building it needs nothing from a package index (pip's isolated build environment installs no
build requirements: pyproject.toml lists none), so `pip install ./clients/python` works offline,
on Debian 12's python3.11 and any other Python 3.8+. The metadata comes from pyproject.toml's
[project] table. Nothing is written into the source tree.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "vasana"
# Reproducible archives: every entry gets this time (zip cannot go before 1980).
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _project() -> Dict[str, object]:
    """pyproject.toml's [project] table (tomllib where the interpreter has it, else the simple
    `key = "value"` / `key = ["a", "b"]` lines this file uses)."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        text = f.read()
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        tomllib = None  # type: ignore[assignment]
    if tomllib is not None:
        return dict(tomllib.loads(text.decode("utf-8")).get("project", {}))
    project: Dict[str, object] = {}
    section = ""
    lines = iter(text.decode("utf-8").splitlines())
    for line in lines:
        line = line.strip()
        if line.startswith("["):
            section = line
            continue
        m = re.match(r'^([A-Za-z0-9_-]+)\s*=\s*(.*)$', line)
        if section != "[project]" or not m:
            continue
        key, value = m.group(1), m.group(2).strip()
        if value.startswith('"'):
            project[key] = value.strip('"')
        elif value.startswith("["):
            while "]" not in value:  # an array over several lines
                value += next(lines, "]")
            project[key] = re.findall(r'"([^"]*)"', value)
        elif value.startswith("{"):  # an inline table of strings: license = {text = "MIT"}
            project[key] = dict(re.findall(r'([A-Za-z0-9_-]+)\s*=\s*"([^"]*)"', value))
    return project


def _meta() -> Tuple[str, str, str]:
    """(name, version, METADATA text), after checking the version matches the package's."""
    p = _project()
    name, version = str(p["name"]), str(p["version"])
    with open(os.path.join(ROOT, PACKAGE, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    if not m or m.group(1) != version:
        raise RuntimeError(
            f"pyproject.toml has version {version} but {PACKAGE}/__init__.py has "
            f"{m.group(1) if m else 'no __version__'}: make them the same"
        )
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {name}",
        f"Version: {version}",
    ]
    if p.get("description"):
        lines.append(f"Summary: {p['description']}")
    license_ = p.get("license")
    if isinstance(license_, dict) and license_.get("text"):
        lines.append(f"License: {license_['text']}")
    if p.get("requires-python"):
        lines.append(f"Requires-Python: {p['requires-python']}")
    for c in p.get("classifiers", []) or []:  # type: ignore[union-attr]
        lines.append(f"Classifier: {c}")
    readme = os.path.join(ROOT, "README.md")
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = f.read()
    return name, version, "\n".join(lines) + "\n\n" + body


def _dist_name(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _package_files() -> List[str]:
    """The package's files, relative to ROOT, sorted: its .py files and py.typed."""
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, PACKAGE)):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for fn in sorted(filenames):
            if fn.endswith(".py") or fn == "py.typed":
                out.append(os.path.relpath(os.path.join(dirpath, fn), ROOT))
    return out


def _wheel_text(tag: str = "py3-none-any") -> str:
    return f"Wheel-Version: 1.0\nGenerator: vasana_build\nRoot-Is-Purelib: true\nTag: {tag}\n"


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{path},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory: str, entries: List[Tuple[str, bytes]]) -> str:
    name, version, metadata = _meta()
    dist = f"{_dist_name(name)}-{version}"
    info = f"{dist}.dist-info"
    entries = list(entries) + [(f"{info}/METADATA", metadata.encode("utf-8")), (f"{info}/WHEEL", _wheel_text().encode())]
    record = [_record_line(path, data) for path, data in entries] + [f"{info}/RECORD,,"]
    entries.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    basename = f"{dist}-py3-none-any.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wheel_directory, basename), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in entries:
            zi = zipfile.ZipInfo(path, _ZIP_TIME)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return basename


def _read(rel: str) -> bytes:
    with open(os.path.join(ROOT, rel), "rb") as f:
        return f.read()


# --- PEP 517 -------------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[dict] = None) -> str:
    name, version, metadata = _meta()
    info = f"{_dist_name(name)}-{version}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(metadata)
    with open(os.path.join(metadata_directory, info, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_text())
    return info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(
    wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None
) -> str:
    return _write_wheel(wheel_directory, [(rel.replace(os.sep, "/"), _read(rel)) for rel in _package_files()])


def build_editable(
    wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None
) -> str:
    """A wheel whose .pth file puts the source folder on sys.path (PEP 660)."""
    name = _dist_name(_project()["name"])  # type: ignore[arg-type]
    return _write_wheel(wheel_directory, [(f"__editable__.{name}.pth", (ROOT + "\n").encode("utf-8"))])


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    name, version, metadata = _meta()
    base = f"{_dist_name(name)}-{version}"
    files = ["pyproject.toml", "README.md", os.path.join("build_backend", "vasana_build.py")] + _package_files()
    tests = os.path.join(ROOT, "tests")
    if os.path.isdir(tests):
        files += sorted(
            os.path.relpath(os.path.join(tests, fn), ROOT) for fn in os.listdir(tests) if fn.endswith(".py")
        )
    os.makedirs(sdist_directory, exist_ok=True)
    basename = f"{base}.tar.gz"
    mtime = time.mktime((1980, 1, 1, 0, 0, 0, 0, 0, -1))

    def add(tar: tarfile.TarFile, path: str, data: bytes) -> None:
        ti = tarfile.TarInfo(f"{base}/{path}")
        ti.size, ti.mode, ti.mtime = len(data), 0o644, mtime
        tar.addfile(ti, io.BytesIO(data))

    with tarfile.open(os.path.join(sdist_directory, basename), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in files:
            if os.path.exists(os.path.join(ROOT, rel)):
                add(tar, rel.replace(os.sep, "/"), _read(rel))
        add(tar, "PKG-INFO", metadata.encode("utf-8"))
    return basename
