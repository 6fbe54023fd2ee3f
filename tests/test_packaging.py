"""The wheel carries what an installed package needs: the sample, the paper's numbers, the
metric Space and the dataset card (both kept once, in the checkout, and linked in)."""

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_wheel_contains_data_metric_and_card(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "-q", "-w", str(tmp_path), str(REPO)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = tmp_path.glob("general365-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("general365/_metric/general365.py", "general365/_metric/README.md",
                   "general365/_dataset_card/README.md", "general365/data/sample/part_a.jsonl",
                   "general365/data/sample/part_b.jsonl",
                   "general365/data/published/table1_full.csv"):
        assert needed in names, needed
    entry = [n for n in names if n.endswith("entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry[0]).decode()
    assert "general365 = general365.cli:console_main" in text
