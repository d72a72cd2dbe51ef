"""Box geometry lives once, on Detections: centres, sizes, merging looks that overlap."""

from __future__ import annotations

import numpy as np

from vision.detections import Detections, box_corners, box_iou


def dets(boxes, conf, classes=None, alt=False) -> Detections:
    n = len(conf)
    classes = np.arange(n, dtype=np.int64) if classes is None else np.array(classes, np.int64)
    extra = (np.zeros(n, np.int64), np.full(n, 0.1, np.float32)) if alt else (None, None)
    return Detections(np.array(boxes, np.float32), np.array(conf, np.float32), classes, *extra)


def test_centres_sizes_and_narrow_sides():
    found = dets([[0, 0, 40, 60], [100, 10, 190, 50]], [0.9, 0.8])
    assert found.centres.tolist() == [[20, 30], [145, 30]]
    assert np.allclose(found.sizes, [np.sqrt(2400), 60])
    assert found.narrow_sides.tolist() == [40, 40]
    assert box_corners(found.xyxy)[0].tolist() == [[0, 0], [40, 0], [40, 60], [0, 60]]
    assert found.shifted(5, 7).xyxy[0].tolist() == [5, 7, 45, 67]


def test_merge_keeps_the_surer_of_two_readings_of_one_tile_and_orders_by_confidence():
    left = dets([[0, 0, 40, 60], [200, 0, 240, 60]], [0.6, 0.7])
    right = dets([[2, 1, 41, 60]], [0.9])  # the same tile as left's first, from an overlapping window
    merged = Detections.merge([left, right], iou=0.6)
    assert merged.confidence.tolist() == np.array([0.9, 0.7], np.float32).tolist()
    assert merged.xyxy[0].tolist() == [2, 1, 41, 60]


def test_concat_keeps_second_readings_only_when_every_part_has_them():
    with_alt = dets([[0, 0, 10, 10]], [0.5], alt=True)
    assert Detections.concat([with_alt, with_alt]).alt_class_id is not None
    assert Detections.concat([with_alt, dets([[20, 0, 30, 10]], [0.5])]).alt_class_id is None
    assert len(Detections.concat([Detections.empty()])) == 0


def test_box_iou():
    a = np.array([[0, 0, 10, 10], [0, 0, 0, 0]], np.float64)
    b = np.array([[5, 0, 15, 10]], np.float64)
    assert np.allclose(box_iou(a, b), [[50 / 150], [0.0]])
