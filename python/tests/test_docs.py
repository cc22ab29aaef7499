"""docs/python.md's example runs and prints what its comments say."""
import os
import re
import subprocess
import sys

from conftest import CACHE, tool

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")


def test_docs_example_prints_its_comments(tmp_path):
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    code = code.replace("build/release/plugins/libnxrt_example_ep.so", tool("NXRT_EXAMPLE_EP"))
    code = code.replace('os.path.expanduser("~/.cache/nxrt/models")', repr(os.path.join(CACHE, "models")))
    expected = [m.group(1) for m in re.finditer(r"^print\(.*\)  # (.*)$", code, re.M)]
    assert len(expected) >= 5
    script = tmp_path / "example.py"
    script.write_text(code)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == expected
