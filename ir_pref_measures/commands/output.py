"""Outputs never lose data (docs/input.md, "Outputs"), for every command:

* an output path that is one of the inputs (the same file by any spelling: ``./``, absolute, a symlink, a hard
  link, ``FORMAT:PATH``, ``NAME=PATH``, ``A+B``), or two outputs naming one file, is refused before the work
  (:func:`check_outputs`);
* a file is written to a temporary file beside it and renamed onto it (:func:`replacing`): a failed write leaves
  the old file whole and no temporary behind; special files (``/dev/...``, a FIFO) are written directly;
* standard output is written once, at the end (:func:`main_output`): closed before the start is an error
  before the work, an encoding it cannot hold is one message and nothing half printed, a write that fails is
  one message, a closed pipe ends quietly with status 1.

Every failure is an :class:`OutputError` (an :class:`InputError`: status 2, one message, no traceback).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping

from ir_pref_measures.commands.options import check_writable
from ir_pref_measures.errors import InputError

STDOUT = ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")  # output names meaning standard output
DEVICE_FOLDERS = ("/dev/", "/proc/")  # paths written in place, never renamed onto
# names of an open descriptor: written, not reopened
DESCRIPTOR = re.compile(r"/(?:dev/fd|proc/self/fd)/(\d+)|/dev/(stdin|stderr)")


class OutputError(InputError):
    """An output that cannot be written, or would overwrite an input."""


def is_stdout(path: str | os.PathLike | None) -> bool:
    """True for ``-`` and the names of standard output (``/dev/stdout``): written through ``sys.stdout``."""
    return path is not None and os.fspath(path) in STDOUT


def descriptor(path: str) -> int | None:
    """The descriptor that ``/dev/stderr``, ``/dev/fd/N`` or ``/proc/self/fd/N`` names (written as the shell's
    ``>&N`` writes: no reopening, which would empty a file behind it), else ``None``."""
    found = DESCRIPTOR.fullmatch(path)
    if found is None:
        return None
    return int(found.group(1)) if found.group(1) else {"stdin": 0, "stderr": 2}[found.group(2)]


# -- outputs against inputs -----------------------------------------------------------------------------------


def input_files(spec: str) -> list[str]:
    """The existing files a command-line source may name: the whole text, the part after ``NAME=``, each part
    of ``A+B``, each without a ``FORMAT:`` prefix (an ir_datasets ID names no file)."""
    texts = {spec, spec.partition("=")[2], spec.rpartition("=")[2]}
    texts |= {part for text in list(texts) for part in text.split("+")}
    texts |= {text.partition(":")[2] for text in list(texts)}
    return sorted(text for text in texts if text and os.path.exists(text))


def same_file(a: str, b: str) -> bool:
    """One file by two names: the same (st_dev, st_ino) when both exist, else the same real path."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_outputs(
    outputs: Mapping[str, str | None], inputs: Mapping[str, str | Iterable[str] | None] | None = None
) -> None:
    """Before the work: each output (``{option: path}``) can be written (:func:`check_writable`, and a folder
    where its temporary file can be made), is none of the ``inputs`` (``{option: spec or specs}``) by any
    spelling, and names a file no other output names; else an :class:`OutputError` naming both."""
    files = {option: os.fspath(path) for option, path in outputs.items() if path is not None and not is_stdout(path)}
    for option, path in files.items():
        if not path:
            raise OutputError(f"{option} '': an empty file name")
        if descriptor(path) == 0:
            raise OutputError(f"{path}: standard input is not an output")
        check_writable(path)
        if not _direct(path) and not os.access(os.path.dirname(os.path.realpath(path)) or ".", os.W_OK):
            raise OutputError(f"{path}: cannot create a file in its folder (permission denied)")
    files = {option: path for option, path in files.items() if not _device(path)}  # /dev/null twice is fine
    for option, path in files.items():
        for label, specs in (inputs or {}).items():
            for spec in [specs] if isinstance(specs, str) else specs or ():
                for found in input_files(os.fspath(spec)):
                    if same_file(path, found):
                        shown = spec if found == spec else f"{spec} (the file {found})"
                        raise OutputError(
                            f"{path}: the output {option} is the input {label} {shown}; refusing to overwrite it"
                        )
    seen: list[tuple[str, str]] = []
    for option, path in files.items():
        for other, earlier in seen:
            if same_file(path, earlier):
                raise OutputError(f"{path}: the outputs {other} {earlier} and {option} {path} name one file")
        seen.append((option, path))


# -- files ----------------------------------------------------------------------------------------------------


def _direct(path: str) -> bool:
    """Written in place: an existing ``/dev`` or ``/proc`` name (``/dev/stderr``), or an existing file that is not
    a regular one (``/dev/full``, a FIFO)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return os.path.abspath(path).startswith(DEVICE_FOLDERS) or not stat.S_ISREG(mode)


def _device(path: str) -> bool:
    try:
        return stat.S_ISCHR(os.stat(path).st_mode)
    except OSError:
        return False


def _failed(path: str, error: OSError, kept: bool = True) -> OutputError:
    reason = error.strerror or str(error)
    return OutputError(f"{path}: cannot write the output ({reason})" + ("; the file is left as it was" if kept else ""))


@contextlib.contextmanager
def replacing(path: str | os.PathLike) -> Iterator[str]:
    """A temporary path beside ``path`` (a symlink's target) to write; on success it is renamed onto ``path``
    with the old file's permission bits, on any failure removed (the old file intact) and an ``OSError``
    becomes an :class:`OutputError`. Special files are written directly (the path itself is yielded)."""
    path = os.fspath(path)
    if _direct(path):
        try:
            yield path
        except OSError as error:
            raise _failed(path, error, kept=False) from None
        return
    target = os.path.realpath(path)  # through a symlink: the link stays, its file is replaced
    folder, name = os.path.split(target)
    suffix = os.path.splitext(name)[1]  # kept: a plot's format is its suffix
    try:
        temporary = _create(os.path.join(folder, f".{name}."), f".tmp{suffix}")
    except OSError as error:
        raise _failed(path, error) from None
    try:
        yield temporary
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        handle = os.open(temporary, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise _failed(path, error) from None
        raise


def _create(prefix: str, suffix: str) -> str:
    """A new empty file ``prefix<random>suffix``, made with mode 0o666 less the umask (as ``open`` makes one)."""
    for _ in range(100):
        candidate = f"{prefix}{os.urandom(4).hex()}{suffix}"  # secrets.token_hex(4), without importing it
        try:
            os.close(os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        return candidate
    raise FileExistsError(f"no free temporary name {prefix}*{suffix}")


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all: ``-`` (standard output) through ``sys.stdout``,
    a file through :func:`replacing`."""
    if is_stdout(path):
        sys.stdout.write(text)
        return
    data = text.encode("utf-8")
    number = descriptor(os.fspath(path))
    if number is not None:
        try:
            _write_all(number, data)
        except OSError as error:
            raise _failed(os.fspath(path), error, kept=False) from None
        return
    with replacing(path) as temporary, open(temporary, "wb") as out:
        out.write(data)


# -- standard output ------------------------------------------------------------------------------------------


def stdout_problem(stream) -> str | None:
    """Why ``stream`` (``sys.stdout``) cannot take the results: closed, or a descriptor opened read-only."""
    if stream is None or getattr(stream, "closed", False):
        return "standard output is closed"
    try:
        number = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return None  # an in-memory stream
    try:
        import fcntl

        mode = fcntl.fcntl(number, fcntl.F_GETFL) & os.O_ACCMODE
    except (ImportError, OSError):
        return None if os.name == "nt" else "standard output is closed"
    return "standard output is open for reading only" if mode == os.O_RDONLY else None


@contextlib.contextmanager
def main_output(needed: bool = True) -> Iterator[None]:
    """Run a command with ``sys.stdout`` collected in memory, then write it all at once: an error before the
    work if it is ``needed`` and closed, an :class:`OutputError` if it cannot be encoded or written (nothing
    printed); a ``BrokenPipeError`` propagates with standard output sent to ``/dev/null`` (no second error at
    exit)."""
    stream = sys.stdout
    problem = stdout_problem(stream)
    if problem and needed:
        raise OutputError(f"{problem}: nowhere to print the results")
    collected = io.StringIO()
    with contextlib.ExitStack() as stack:
        if sys.stderr is None:  # closed: warnings go nowhere, not into the results (print's file=None is stdout)
            stack.enter_context(contextlib.redirect_stderr(stack.enter_context(open(os.devnull, "w"))))
        stack.enter_context(contextlib.redirect_stdout(collected))
        yield
    text = collected.getvalue()
    if not text:
        return
    if problem:
        raise OutputError(f"{problem}: nowhere to print the results")
    _check_encoding(text, stream)
    try:
        _write(stream, text)
    except BrokenPipeError:
        silence(stream)
        raise
    except OSError as error:
        silence(stream)
        raise OutputError(f"standard output: cannot write the results ({error.strerror or error})") from None


def _write(stream, text: str) -> None:
    """Write ``text`` whole to ``stream``: through its binary buffer, every byte, where it has one (under
    ``PYTHONUNBUFFERED`` the text layer drops what a short write leaves, e.g. at a file size limit or a pipe closed
    in the middle)."""
    binary = getattr(stream, "buffer", None)
    encoding = getattr(stream, "encoding", None)
    if binary is None or not encoding:
        stream.write(text)
        stream.flush()
        return
    stream.flush()
    if os.linesep != "\n":
        text = text.replace("\n", os.linesep)
    view = memoryview(text.encode(encoding, getattr(stream, "errors", None) or "strict"))
    while view:
        written = binary.write(view)
        if written is None:  # a non-blocking descriptor that is full: wait until it takes more
            _wait(binary.fileno())
            continue
        if not written:
            raise OSError(errno.EIO, "nothing was written")
        view = view[written:]
    binary.flush()


def _write_all(number: int, data: bytes) -> None:
    """Every byte of ``data`` to the descriptor ``number`` (after what ``sys.stderr`` holds, for descriptor 2)."""
    if number == 2 and sys.stderr is not None:
        sys.stderr.flush()
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(number, view) :]
        except BlockingIOError:
            _wait(number)


def _wait(number: int) -> None:
    import select

    select.select([], [number], [])


def _check_encoding(text: str, stream) -> None:
    encoding = getattr(stream, "encoding", None)
    if not encoding or (getattr(stream, "errors", None) or "strict") != "strict":
        return
    try:
        text.encode(encoding)
    except UnicodeEncodeError as error:
        character = text[error.start]
        start = max(text.rfind(c, 0, error.start) for c in " \t\n,\"'") + 1
        ends = [e for e in (text.find(c, error.start) for c in " \t\n,\"'") if e >= 0]
        word = text[start : min(ends, default=len(text))]
        line_no = text.count("\n", 0, error.start) + 1
        raise OutputError(
            f"standard output: its encoding {encoding} cannot hold {character!r} (U+{ord(character):04X}) in "
            f"{word!r} (line {line_no} of the results); nothing was printed; set PYTHONIOENCODING=utf-8"
        ) from None


def flushed(stream) -> bool:
    """Flush ``stream``; when that fails (a closed pipe, a full disk), :func:`silence` it and say ``False``."""
    try:
        if stream is not None:
            stream.flush()
    except (OSError, ValueError):
        silence(stream)
        return False
    return True


def silence(stream) -> None:
    """Point ``stream``'s descriptor at ``/dev/null``, so that the flush at exit cannot fail a second time."""
    try:
        number = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, number)
        os.close(null)
