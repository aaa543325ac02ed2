"""What the programs tests' scripts share: checks printed as `ok NAME` (or `FAILED NAME` and
exit 1), a daemon error expected by name, and programs forked as children that talk to their
parent in JSON lines over two pipes."""
import json
import os
import sys

from sheetd import SheetdError


def check(name, condition, detail=""):
    if not condition:
        print(f"FAILED {name}: {detail}", flush=True)
        sys.exit(1)
    print(f"ok {name}", flush=True)


def refused(call, error):
    """Whether `call()` is answered with io.sheetd.Sheet.ERROR."""
    try:
        call()
    except SheetdError as e:
        return e.error == f"io.sheetd.Sheet.{error}"
    return False


def say(writer, value):
    writer.write(json.dumps(value) + "\n")
    writer.flush()


def heard(reader):
    line = reader.readline()
    if not line:
        print("FAILED: a child went without a word", flush=True)
        sys.exit(1)
    return json.loads(line)


def fork(body, before=lambda: None):
    """Runs `body(reader, writer)` in a child (after `before()`, there); returns its pid and
    this process's ends: what it says, what to tell it."""
    down_read, down_write = os.pipe()
    up_read, up_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(down_write)
        os.close(up_read)
        code = 0
        try:
            before()
            body(os.fdopen(down_read), os.fdopen(up_write, "w"))
        except SystemExit as exit:
            code = exit.code or 0
        except BaseException as error:
            print(f"FAILED child {os.getpid()}: {error!r}", flush=True)
            code = 1
        sys.stdout.flush()
        os._exit(code)
    os.close(down_read)
    os.close(up_write)
    return pid, os.fdopen(up_read), os.fdopen(down_write, "w")


def reaped(pid):
    """Waits for the child `pid`; whether it exited with 0."""
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0
