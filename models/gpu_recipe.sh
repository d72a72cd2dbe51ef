#!/usr/bin/env bash
# The rehearsed ~9-minute GPU recipe: install, data, fine-tune the shipped detector, keep the weights.
# Runs on a bare CUDA machine that has torch, onnx and onnxruntime but not ultralytics, with these
# carried paths (models/prepare_gpu_carry.sh makes them):
#   .whl/     ultralytics, ultralytics-thop, ultralytics-platform wheels (see models/README.md)
#   .fonts/   CJK font subsets for the synthetic faces (TAICAM_FONTS)
#   .realhk/  real-hk-v4 photos (val in full; train photos once, some twice, to fit the 64 MiB transfer)
# The training mix: real-hk-v4 train photos, renders, and real-tile table scenes laid out from the
# train photos' crops (taicam_datasets.real_scenes). Checkpoints are chosen on the real-tile scenes'
# val split; real-hk-v4 val is left for the held-out figures. No warm-up: its bias learning rate of 0.1
# would throw away the trained biases.
# Knobs (env): DEVICE (0), ARCH (models/taicam-tiles.onnx: fine-tune the shipped detector), LR0 (0.0005),
# N_SYNTH (2000), N_REAL (1600), REAL_REPEAT (1: times the real photos are listed), PROCS (16), HOURS (0.1),
# IMGSZ (640), BATCH (64), WORKERS (16), PLANT_FLOWERS (0; 1: renders draw each flower's own plant),
# SCENE_SEED (5000000: the first real-tile scene's seed), REAL_DIR (.realhk), OUT_DIR, WORK, and RUNS:
# space-separated LR0:REAL_REPEAT pairs trained side by side on the one GPU from the same data, WORKERS
# split among them (default one run, "$LR0:$REAL_REPEAT"); each run's files go to
# $OUT_DIR/lr<LR0>-real<REAL_REPEAT>/. tests/test_datasets_and_training.py runs it on CPU on a tiny set.
set -uo pipefail
DEVICE=${DEVICE:-0}; ARCH=${ARCH:-models/taicam-tiles.onnx}; LR0=${LR0:-0.0005}
N_SYNTH=${N_SYNTH:-2000}; N_REAL=${N_REAL:-1600}; REAL_REPEAT=${REAL_REPEAT:-1}; PROCS=${PROCS:-16}; HOURS=${HOURS:-0.1}; IMGSZ=${IMGSZ:-640}
BATCH=${BATCH:-64}; WORKERS=${WORKERS:-16}; SCENE_SEED=${SCENE_SEED:-5000000}; REAL_DIR=${REAL_DIR:-.realhk}; RUNS=${RUNS:-$LR0:$REAL_REPEAT}; OUT_DIR=${OUT_DIR:-${OUT:-runs/gpu}}; WORK=${WORK:-/tmp/taicam-gpu}
mkdir -p "$OUT_DIR" "$WORK/pkgs"
if ! python3 -c "import ultralytics" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$WORK/site" .whl/*.whl || exit 1
  export PYTHONPATH="$WORK/site${PYTHONPATH:+:$PYTHONPATH}"
fi
# The datasets/ folder imports as taicam_datasets (see pyproject); without an install, link it.
ln -sfn "$PWD/datasets" "$WORK/pkgs/taicam_datasets"
export PYTHONPATH="$PWD:$WORK/pkgs:${PYTHONPATH:-}" PYTHONUNBUFFERED=1
# The carried font subsets where the machine has no Debian fonts (a bare GPU machine).
[ -d .fonts ] && export TAICAM_FONTS="${TAICAM_FONTS:-$PWD/.fonts}"
start=$(date +%s)
plants=(); [ "${PLANT_FLOWERS:-0}" = 1 ] && plants=(--plant-flowers)
python3 -m taicam data synth --out "$WORK/synth" --n "$N_SYNTH" --seed 1 --workers "$WORKERS" --framing random "${plants[@]}" 2>&1 | tail -1
echo "synth done in $(( $(date +%s) - start )) s"
per=$(( (N_REAL + PROCS - 1) / PROCS ))
for i in $(seq 0 $(( PROCS - 1 ))); do
  python3 -m taicam_datasets.real_scenes --data "$REAL_DIR" --split train --out "$WORK/real_$i" --n "$per" \
    --seed $(( SCENE_SEED + i * per )) > "$WORK/real_$i.log" 2>&1 &
done
wait
echo "real-tile scenes done in $(( $(date +%s) - start )) s: $(cat "$WORK"/real_*/layouts.jsonl | wc -l) scenes"
# One training a run, side by side. Each reads its own hard-linked copy of the data: ultralytics writes
# its label caches beside the labels, and two runs listing different folders would overwrite each other's.
read -ra runs <<< "$RUNS"; run_workers=$(( WORKERS / ${#runs[@]} )); names=()
for spec in "${runs[@]}"; do
  lr=${spec%%:*}; repeat=${spec##*:}; name=lr$lr-real$repeat; data=$WORK/$name-data; names+=("$name")
  mkdir -p "$data" && cp -al "$REAL_DIR" "$data/realhk" && cp -al "$WORK/synth" "$data/synth"
  run_real=(); run_checks=()
  for i in $(seq 0 $(( PROCS - 1 ))); do
    cp -al "$WORK/real_$i" "$data/real_$i"; run_real+=("$data/real_$i")
    [ "$i" -lt 8 ] && run_checks+=("$data/real_$i")  # the first half's val scenes choose the epoch
  done
  # The real photos first: their train photos measure the batch norms and calibrate the INT8 copy.
  photos=(); for _ in $(seq "$repeat"); do photos+=("$data/realhk"); done
  python3 -m taicam train --data "${photos[@]}" "$data/synth" "${run_real[@]}" --val "${run_checks[@]}" \
    --out "$WORK/$name" --arch "$ARCH" --lr0 "$lr" --warmup-epochs 0 --device "$DEVICE" --imgsz "$IMGSZ" \
    --batch "$BATCH" --workers "$run_workers" --hours "$HOURS" --epochs 300 --cache --seed 0 > "$WORK/$name.log" 2>&1 &
done
wait
echo "train done in $(( $(date +%s) - start )) s"
failed=0
for name in "${names[@]}"; do
  echo "== $name"
  # The whole log's end only when the run did not export (its progress bars are left out).
  if grep -q "^exported " "$WORK/$name.log"; then
    grep -E "epochs completed|^exported " "$WORK/$name.log"
  else
    failed=1; grep -v -E "^\s+[0-9]+/[0-9]+ .*it/s|it/s\]?$" "$WORK/$name.log" | tail -40
  fi
  mkdir -p "$OUT_DIR/$name"
  cp "$WORK/$name/run/weights/best.pt" "$OUT_DIR/$name/taicam-tiles.pt"
  cp "$WORK/$name/taicam-tiles.onnx" "$WORK/$name/taicam-tiles.int8.onnx" "$WORK/$name/run/results.csv" "$OUT_DIR/$name/" 2>/dev/null
  ls -la "$OUT_DIR/$name"
done
echo "all done in $(( $(date +%s) - start )) s"
exit "$failed"
