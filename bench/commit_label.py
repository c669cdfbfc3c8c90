# The commit that benchmark results name: TRITONC_COMMIT where the caller
# knows it (the GPU host runs a copy of the working tree, whose .git may be
# absent or stale), else git's short hash, with "-dirty" where the tracked
# files differ from it (so a stale .git under a newer tree shows), else
# "unknown". Imported by the scripts of bench/ (their own folder is first
# on sys.path when run as `python3 bench/NAME.py`).
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def commit_label():
    given = os.environ.get("TRITONC_COMMIT")
    if given:
        return given
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              timeout=30).stdout.strip()
        if not head:
            return "unknown"
        dirty = subprocess.run(["git", "-C", ROOT, "diff-index", "--quiet", "HEAD", "--"], capture_output=True,
                               timeout=30).returncode != 0
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
