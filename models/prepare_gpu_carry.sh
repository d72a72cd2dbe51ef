#!/usr/bin/env bash
# Prepare what models/gpu_recipe.sh carries to a bare GPU machine (run here, in the repo root):
#   .whl/     ultralytics, onnxslim (the export simplifies with it) and the wheels the GPU image lacks (not polars)
#   .fonts/   CJK font subsets with just the glyphs the tile faces use (~60 kB)
#   .realhk/  real-hk-v4: val in full, every train photo once and some twice (fits 64 MiB)
# Then: device run with carry [".whl", ".fonts", ".realhk"] and command
#   HOURS=0.09 N_SYNTH=2500 WORKERS=16 BATCH=64 OUT_DIR=$OUT bash models/gpu_recipe.sh
set -euo pipefail
PY=${PY:-.venv/bin/python}
REAL=${REAL:-../shared/datasets/real-hk-v4}
grep -qxF "/.whl/" .git/info/exclude 2>/dev/null || printf '/.whl/\n/.fonts/\n/.realhk/\n' >> .git/info/exclude
rm -rf .whl && python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
  ultralytics==8.4.190 ultralytics-thop==2.2.3 ultralytics-platform==0.1.99 onnxslim==0.1.98
GLYPHS="一二三四五六七八九萬東南西北發中春夏秋冬梅蘭菊竹0123456789ESWN"
rm -rf .fonts && mkdir -p .fonts
for spec in /usr/share/fonts/truetype/arphic/ukai.ttc:ukai /usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc:notoserif \
            /usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc:notosans /usr/share/fonts/truetype/wqy/wqy-microhei.ttc:wqy; do
  font=${spec%%:*}; name=${spec##*:}
  [ -f "$font" ] && "$(dirname "$PY")/pyftsubset" "$font" --font-number=0 --text="$GLYPHS" --output-file=".fonts/$name.ttf"
done
# Every train photo once, then second copies (augmented) up to TRAIN_IMAGES: the tracked tree (~17 MB)
# and the wheels leave room for about 600 of real-hk-v4's ~58 kB photos.
rm -rf .realhk && "$PY" - "$REAL" "${TRAIN_IMAGES:-600}" <<'PYTHON'
import csv, collections, shutil, sys
from pathlib import Path
root, limit = Path(sys.argv[1]), int(sys.argv[2])
rows = list(csv.DictReader(open(root / "MANIFEST.tsv"), delimiter="\t"))
copy_number, seen = {}, collections.Counter()
for row in rows:
    seen[row["photo"]] += 1
    copy_number[row["output"]] = seen[row["photo"]]
train = sorted((r for r in rows if r["split"] == "train"), key=lambda r: copy_number[r["output"]])[:limit]
for row in train + [r for r in rows if r["split"] == "val"]:
    for sub, suffix in (("images", ".jpg"), ("labels", ".txt")):
        target = Path(".realhk") / sub / row["split"]
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / sub / row["split"] / (Path(row["output"]).stem + suffix), target)
PYTHON
du -sh .whl .fonts .realhk
