#!/usr/bin/env bash
# The rehearsed ~10-minute GPU recipe: install, data, train, export, verify.
# Runs on a bare CUDA machine that has torch but not ultralytics, with these carried paths
# (models/prepare_gpu_carry.sh makes them):
#   .whl/     ultralytics, ultralytics-thop, ultralytics-platform wheels (see models/README.md)
#   .fonts/   CJK font subsets for the synthetic faces (TAICAM_FONTS)
#   .realhk/  the real-hk-v4 photos (train: ≤2 copies per photo to fit the 64 MiB transfer; val: all)
# Knobs (env): DEVICE (0), N_SYNTH (2500), HOURS (0.075), IMGSZ (640), BATCH (64), WORKERS (16), OUT_DIR.
set -euo pipefail
DEVICE=${DEVICE:-0}; N_SYNTH=${N_SYNTH:-2500}; HOURS=${HOURS:-0.075}; IMGSZ=${IMGSZ:-640}
BATCH=${BATCH:-64}; WORKERS=${WORKERS:-16}; OUT_DIR=${OUT_DIR:-${OUT:-runs/gpu}}; WORK=${WORK:-/tmp/taicam-gpu}
mkdir -p "$OUT_DIR" "$WORK/pkgs"
if ! python3 -c "import ultralytics" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$WORK/site" .whl/*.whl
  export PYTHONPATH="$WORK/site${PYTHONPATH:+:$PYTHONPATH}"
fi
# The datasets/ folder imports as taicam_datasets (see pyproject); without an install, link it.
ln -sfn "$PWD/datasets" "$WORK/pkgs/taicam_datasets"
export PYTHONPATH="$PWD:$WORK/pkgs:${PYTHONPATH:-}" PYTHONUNBUFFERED=1 TAICAM_FONTS="${TAICAM_FONTS:-$PWD/.fonts}"
start=$(date +%s)
python3 -m taicam data synth --out "$WORK/synth" --n "$N_SYNTH" --seed 1 --workers "$WORKERS" --framing random 2>&1 | tail -2
echo "synth done in $(( $(date +%s) - start )) s"
python3 -m taicam train --data "$WORK/synth" .realhk --val .realhk --out "$WORK/train" --device "$DEVICE" \
  --imgsz "$IMGSZ" --batch "$BATCH" --workers "$WORKERS" --hours "$HOURS" --epochs 300 --cache --seed 0 2>&1 \
  | grep -v -E "^\s+[0-9]+/[0-9]+ .*it/s|^\s+all " | tail -60 || true
echo "train done in $(( $(date +%s) - start )) s"
cp "$WORK/train/taicam-tiles.onnx" "$OUT_DIR/"
cp "$WORK/train/run/results.csv" "$WORK/train/run/args.yaml" "$OUT_DIR/" 2>/dev/null || true
python3 -m taicam eval --data .realhk --model "$OUT_DIR/taicam-tiles.onnx" --json > "$OUT_DIR/eval_real_val.json"
python3 -m taicam eval --data "$WORK/synth" --model "$OUT_DIR/taicam-tiles.onnx" --json > "$OUT_DIR/eval_synth_val.json"
cat "$OUT_DIR"/eval_*.json | cut -c1-400
echo "all done in $(( $(date +%s) - start )) s"
