"""Detection defaults, importable without numpy or onnxruntime: the CLI's flags show them."""

# The confidence a box needs to count as a tile on its own. Below it a box counts only beside a
# sure tile of its size, or when read as a flower from ``vision.photo.FLOWER_CONF`` (flowers lie
# apart from the rows). With the detector fine-tuned on real tiles, 0.45 read more real-tile scenes
# and real photos exactly than 0.25, 0.35 or 0.55 (models/README.md, "Confidence threshold").
DEFAULT_CONF = 0.45
DEFAULT_IOU = 0.6  # NMS overlap: touching tiles overlap little, so a lower one would not split them better
